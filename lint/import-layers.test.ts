import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Lints `code` as if it were the file at `file` (repo-relative), with the project's own config. */
async function messagesFor(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

// Each test starts ESLint with the project's config, which takes seconds on a loaded 2-core machine.
describe('engine layers (lint)', { timeout: 30_000 }, () => {
  it('the upstream mirror imports nothing of zonescope', async () => {
    const messages = await messagesFor('lib/topology/upstream/example.ts', "import { indexCluster } from '../model/cluster-model';\nexport const used = indexCluster;\n");
    expect(messages).toEqual([expect.stringMatching(/^zonescope\/import-layers: lib\/topology\/upstream may not import lib\/topology\/model/)]);
  });

  it('no layer imports anything of ours outside lib/topology', async () => {
    const messages = await messagesFor('lib/topology/report/example.ts', "import { isReadOnly } from '@/lib/data/header';\nexport const used = isReadOnly;\n");
    expect(messages).toEqual([expect.stringMatching(/may import nothing of ours outside lib\/topology/)]);
  });

  it('layers import downwards freely', async () => {
    const code = "import { LABEL_TOPOLOGY_ZONE } from '../upstream/constants';\nimport { indexCluster } from '../model/cluster-model';\nexport const used = [LABEL_TOPOLOGY_ZONE, indexCluster];\n";
    expect(await messagesFor('lib/topology/analyses/example.ts', code)).toEqual([]);
  });

  it('engine files outside the four layers are refused', async () => {
    expect(await messagesFor('lib/topology/loose.ts', 'export const x = 1;\n')).toEqual([expect.stringMatching(/Engine files live in one of/)]);
  });
});

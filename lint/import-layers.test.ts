import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph, runtimeImports } from './project-layers.mjs';

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
    const messages = await messagesFor('lib/topology/report/example.ts', "import { isReadOnly } from '@/lib/views/header';\nexport const used = isReadOnly;\n");
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

describe('project layers (lint)', { timeout: 30_000 }, () => {
  it('a lower lib layer may not import a higher one', async () => {
    const messages = await messagesFor('lib/server/example.ts', "import { getHeader } from '../views/header';\nexport const used = getHeader;\n");
    expect(messages).toEqual([expect.stringMatching(/^project\/project-layers: lib\/server may not import lib\/views/)]);
  });

  it('lib imports nothing of the UI or the tools', async () => {
    const messages = await messagesFor('lib/k8s/example.ts', "import { ServicesTable } from '@/components/services/services-table';\nexport const used = ServicesTable;\n");
    expect(messages).toEqual([expect.stringMatching(/^project\/project-layers: lib\/ may not import components\//)]);
  });

  it('components take client-node projections as types only', async () => {
    const runtime = "import { wireToRecord } from '@/lib/k8s/wire-to-record';\nexport const used = wireToRecord;\n";
    expect(await messagesFor('components/example.tsx', runtime)).toEqual([expect.stringMatching(/components\/ may not import lib\/k8s .* at run time/)]);
    const types = "import type { ClusterEntry } from '@/lib/k8s/clusters';\nexport type Used = ClusterEntry;\n";
    expect(await messagesFor('components/example.tsx', types)).toEqual([]);
  });

  it("a 'use client' module imports no server-only module at run time", async () => {
    const code = "'use client';\nimport { getHeader } from '@/lib/views/header';\nexport const used = getHeader;\n";
    expect(await messagesFor('components/example.tsx', code)).toEqual([expect.stringMatching(/^project\/client-boundary: .* it is server-only/)]);
  });

  it('files outside the named layers are refused', async () => {
    expect(await messagesFor('lib/data/example.ts', 'export const x = 1;\n')).toEqual([expect.stringMatching(/lib\/data is no layer/)]);
  });
});

describe('import cycles', () => {
  it('reads run-time imports only: type-only statements and all-type lists make no edge', () => {
    const text = [
      "import type { A } from './a';",
      "import { type B, type C } from './b';",
      "import { type D, e } from './d';",
      "import f from './f';",
      "import './side-effect';",
      "export { g } from './g';",
      "export type { H } from './h';",
    ].join('\n');
    expect(runtimeImports(text)).toEqual(['./d', './f', './side-effect', './g']);
  });

  it('finds each module on a cycle, with the cycle through it', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    const cycles = cyclesOf(graph);
    expect([...cycles.keys()].sort()).toEqual(['a.ts', 'b.ts', 'c.ts', 'e.ts']);
    expect(cycles.get('b.ts')).toEqual(['b.ts', 'c.ts', 'a.ts', 'b.ts']);
    expect(cycles.get('e.ts')).toEqual(['e.ts', 'e.ts']);
  });

  it('the project has none', () => {
    expect([...cyclesOf(importGraph()).values()].map((cycle) => cycle.join(' → '))).toEqual([]);
  });
});

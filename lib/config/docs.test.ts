import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { CONFIGURATION_DOC, configurationDoc } from './docs';
import { VARIABLE_NAMES, VARIABLES } from './variables';

const ROOT = path.resolve(__dirname, '..', '..');

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the table (run it after changing lib/config/variables.ts)', () => {
    expect(readFileSync(path.join(ROOT, CONFIGURATION_DOC), 'utf8')).toBe(configurationDoc());
  });

  it('lists every variable once, with its default and who reads it', () => {
    const text = configurationDoc();
    for (const name of VARIABLE_NAMES) {
      const rows = text.split('\n').filter((line) => line.startsWith(`| \`${name}\` |`));
      expect(rows, name).toHaveLength(1);
      expect(rows[0], name).toContain(` ${VARIABLES[name].readers.join(', ')} |`);
    }
  });
});

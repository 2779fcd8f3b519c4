/**
 * `npm run docs:config`: writes docs/configuration.md from the configuration's variable table
 * (lib/config/variables.ts, rendered by lib/config/docs.ts). Run it after changing the table; the
 * unit test lib/config/docs.test.ts fails while the checked-in page differs from what it writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { CONFIGURATION_DOC, configurationDoc } from '../lib/config/docs';
import { VARIABLE_NAMES } from '../lib/config/variables';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(ROOT, CONFIGURATION_DOC);
const text = configurationDoc();
let before: string | null = null;
try {
  before = readFileSync(file, 'utf8');
} catch {
  // Not written yet.
}
if (before === text) {
  console.log(`${CONFIGURATION_DOC} is up to date (${VARIABLE_NAMES.length} variables).`);
} else {
  writeFileSync(file, text);
  console.log(`wrote ${CONFIGURATION_DOC} (${VARIABLE_NAMES.length} variables).`);
}

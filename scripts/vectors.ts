/**
 * `npm run vectors -- DIR...` — evaluates every topology test vector found in the given folders
 * (design.md §4). Prints one line per failing vector, then `N passed, M failed`; exits 1 on any
 * failure, unknown category or unreadable file.
 */
import { vectorChecks } from './vectors/registry';
import { findVectorFiles, runVectorFiles } from './vectors/runner';

const paths = process.argv.slice(2).filter((arg) => arg !== '--');
if (paths.length === 0) {
  console.error('usage: npm run vectors -- DIR_OR_FILE...');
  process.exit(2);
}
const { files, errors: findErrors } = findVectorFiles(paths);
const result = runVectorFiles(files, vectorChecks);
for (const line of [...findErrors, ...result.errors, ...result.failures]) console.log(line);
if (files.length === 0) console.log('no vector files found');
console.log(`${result.passed} passed, ${result.failed} failed`);
process.exit(findErrors.length + result.errors.length + result.failed > 0 || files.length === 0 ? 1 : 0);

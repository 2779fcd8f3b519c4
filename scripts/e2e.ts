/**
 * `npm run test:e2e [-- <playwright test arguments>]`: the e2e suite against the production build.
 *
 * 1. Builds the dashboard into its own folder (`ZONESCOPE_DIST_DIR=.next-e2e`, so it never races
 *    a build of `.next`), but only when the sources that go into the build changed since the last
 *    e2e build (a content hash kept next to the build), or with `--rebuild`.
 * 2. Runs `playwright test` with the remaining arguments; playwright.config.ts starts the
 *    simulator and `next start` on that build, and stops both at the end.
 *
 * `next build` rewrites tsconfig.json (it adds the build folder's type globs to `include`); the
 * file is put back as it was, so an e2e run leaves the working tree as it found it.
 * Exit code: the build's when it fails, else Playwright's.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWithStamp, builtAt, isBuildCurrent } from './build-folder';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST_DIR = '.next-e2e';

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function main(argv: readonly string[]): Promise<number> {
  const rebuild = argv.includes('--rebuild');
  const args = argv.filter((a) => a !== '--rebuild');
  const env = { ...process.env, ZONESCOPE_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: '1' };

  // 1. Build when needed.
  const built = isBuildCurrent(ROOT, DIST_DIR);
  if (rebuild || !built) {
    console.log(`e2e: building the dashboard into ${DIST_DIR}${rebuild ? ' (--rebuild)' : ' (sources changed since the last e2e build)'}`);
    const code = await buildWithStamp(ROOT, DIST_DIR, () => run('npx', ['--no-install', 'next', 'build'], env));
    if (code !== 0) return code;
  } else {
    console.log(`e2e: ${DIST_DIR} is up to date (built ${builtAt(ROOT, DIST_DIR)?.toISOString() ?? 'earlier'})`);
  }

  // 2. The suite.
  return run('npx', ['--no-install', 'playwright', 'test', ...args], env);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`e2e: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);

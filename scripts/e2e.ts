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
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST_DIR = '.next-e2e';
const STAMP = path.join(ROOT, DIST_DIR, 'e2e-inputs.sha256');

/** What goes into the build: folders (recursively, without tests) and single files. */
const INPUT_DIRS = ['app', 'components', 'lib', 'public'];
const INPUT_FILES = ['proxy.ts', 'instrumentation.ts', 'next.config.js', 'postcss.config.mjs', 'package-lock.json'];
const TEST_FILE = /\.(int\.)?test\.tsx?$|(^|\/)testdata\//;
/** Files `next build` may rewrite; restored afterwards. */
const REWRITTEN = ['tsconfig.json'];

function listFiles(dir: string): string[] {
  const absolute = path.join(ROOT, dir);
  if (!existsSync(absolute)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(absolute, { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(relative));
    else if (entry.isFile() && !TEST_FILE.test(relative)) out.push(relative);
  }
  return out;
}

/** A hash of every build input's path and content. */
function inputsHash(): string {
  const hash = createHash('sha256');
  const files = [...INPUT_DIRS.flatMap(listFiles), ...INPUT_FILES.filter((f) => existsSync(path.join(ROOT, f)))].sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

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

async function build(env: NodeJS.ProcessEnv): Promise<number> {
  const saved = REWRITTEN.filter((f) => existsSync(path.join(ROOT, f))).map((f) => ({ file: f, content: readFileSync(path.join(ROOT, f)) }));
  try {
    return await run('npx', ['--no-install', 'next', 'build'], env);
  } finally {
    for (const { file, content } of saved) {
      const absolute = path.join(ROOT, file);
      if (!readFileSync(absolute).equals(content)) writeFileSync(absolute, content);
    }
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const rebuild = argv.includes('--rebuild');
  const args = argv.filter((a) => a !== '--rebuild');
  const env = { ...process.env, ZONESCOPE_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: '1' };

  // 1. Build when needed.
  const hash = inputsHash();
  const built = existsSync(path.join(ROOT, DIST_DIR, 'BUILD_ID')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash;
  if (rebuild || !built) {
    console.log(`e2e: building the dashboard into ${DIST_DIR}${rebuild ? ' (--rebuild)' : built ? '' : ' (sources changed since the last e2e build)'}`);
    const code = await build(env);
    if (code !== 0) return code;
    writeFileSync(STAMP, `${hash}\n`);
  } else {
    console.log(`e2e: ${DIST_DIR} is up to date (built ${statSync(STAMP).mtime.toISOString()})`);
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

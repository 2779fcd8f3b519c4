/**
 * The benchmark's production build: its own folder (`ZONESCOPE_DIST_DIR=.next-bench`, see
 * next.config.js) so it never races the e2e suite's or a developer's `.next`, rebuilt only when the
 * sources that go into the build changed since the last benchmark build (a content hash kept next
 * to the build), as `scripts/e2e.ts` does for the e2e suite.
 *
 * `next build` rewrites tsconfig.json (it adds the build folder's type globs); the file is put back
 * as it was.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The benchmark's build folder (relative to the project root). */
export const BENCH_DIST_DIR = '.next-bench';

const INPUT_DIRS = ['app', 'components', 'lib', 'public'];
const INPUT_FILES = ['proxy.ts', 'instrumentation.ts', 'next.config.js', 'postcss.config.mjs', 'package-lock.json'];
const TEST_FILE = /\.(int\.)?test\.tsx?$|(^|\/)testdata\//;
const REWRITTEN = ['tsconfig.json'];

function listFiles(root: string, dir: string): string[] {
  const absolute = path.join(root, dir);
  if (!existsSync(absolute)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(absolute, { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(root, relative));
    else if (entry.isFile() && !TEST_FILE.test(relative)) out.push(relative);
  }
  return out;
}

/** A hash of every build input's path and content. */
export function buildInputsHash(root: string): string {
  const hash = createHash('sha256');
  const files = [...INPUT_DIRS.flatMap((dir) => listFiles(root, dir)), ...INPUT_FILES.filter((f) => existsSync(path.join(root, f)))].sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function stampPath(root: string, distDir: string): string {
  return path.join(root, distDir, 'bench-inputs.sha256');
}

/** Whether `distDir` holds a build of the current sources. */
export function isBuildCurrent(root: string, distDir: string): boolean {
  const stamp = stampPath(root, distDir);
  return existsSync(path.join(root, distDir, 'BUILD_ID')) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === buildInputsHash(root);
}

/** Whether `distDir` holds any build. */
export function hasBuild(root: string, distDir: string): boolean {
  return existsSync(path.join(root, distDir, 'BUILD_ID'));
}

/**
 * Runs `build()` (the `next build` child) keeping tsconfig.json as it was, and stamps the build
 * with the hash of its inputs when it succeeds.
 */
export async function buildWithStamp(root: string, distDir: string, build: () => Promise<number | string>): Promise<number | string> {
  const hash = buildInputsHash(root);
  const saved = REWRITTEN.filter((f) => existsSync(path.join(root, f))).map((f) => ({ file: f, content: readFileSync(path.join(root, f)) }));
  try {
    const code = await build();
    if (code === 0) writeFileSync(stampPath(root, distDir), `${hash}\n`);
    return code;
  } finally {
    for (const { file, content } of saved) {
      const absolute = path.join(root, file);
      if (!readFileSync(absolute).equals(content)) writeFileSync(absolute, content);
    }
  }
}

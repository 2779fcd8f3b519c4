/**
 * The production build the e2e suite (scripts/e2e.ts) and the benchmark (scripts/bench.ts, its
 * smoke run scripts/bench/smoke.bench.test.ts) share: one folder, {@link PRODUCTION_DIST_DIR}
 * (`ZONESCOPE_DIST_DIR`, see next.config.js), apart from a developer's `.next`. A build is stamped
 * with a content hash of the sources that go into it and is redone only when they changed, so CI
 * builds once and every later consumer finds it current.
 *
 * Two consumers started together never build at once: the check and the build run under a lock
 * (`<folder>.lock`, holding the builder's pid; {@link withBuildLock}), and the second finds the
 * first one's build current once it gets the lock.
 *
 * `next build` rewrites tsconfig.json (it adds the build folder's type globs); the file is put back
 * as it was.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The shared production build folder (relative to the project root). */
export const PRODUCTION_DIST_DIR = '.next-prod';

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
  return path.join(root, distDir, 'inputs.sha256');
}

/** Whether `distDir` holds a build of the current sources. */
export function isBuildCurrent(root: string, distDir: string): boolean {
  const stamp = stampPath(root, distDir);
  return existsSync(path.join(root, distDir, 'BUILD_ID')) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === buildInputsHash(root);
}

/** When the build in `distDir` was stamped (`null` without a stamp). */
export function builtAt(root: string, distDir: string): Date | null {
  const stamp = stampPath(root, distDir);
  return existsSync(stamp) ? statSync(stamp).mtime : null;
}

/** Whether `distDir` holds any build. */
export function hasBuild(root: string, distDir: string): boolean {
  return existsSync(path.join(root, distDir, 'BUILD_ID'));
}

/**
 * Runs `build()` (the `next build` child) keeping tsconfig.json as it was, and stamps the build
 * with the hash of its inputs when it succeeds.
 */
export async function buildWithStamp<C>(root: string, distDir: string, build: () => Promise<C>): Promise<C> {
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

function lockPath(root: string, distDir: string): string {
  return path.join(root, `${distDir.replace(/[/\\]+$/, '')}.lock`);
}

function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(lock, 'pid'), 'utf8').trim());
  } catch {
    // Just created and the pid not written yet (held), unless that was long ago (its creator died).
    try {
      return Date.now() - statSync(lock).mtimeMs < 10_000;
    } catch {
      return false;
    }
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` (typically: check {@link isBuildCurrent}, build when not) holding the build folder's
 * lock, so two consumers never build into it at once. Waits while another live process holds it
 * (`onWait` is told once); a lock left by a process that is gone is taken over.
 */
export async function withBuildLock<T>(root: string, distDir: string, fn: () => Promise<T>, onWait: (holder: string) => void = () => undefined): Promise<T> {
  const lock = lockPath(root, distDir);
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), `${process.pid}\n`);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive(lock)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!told) {
        told = true;
        onWait(path.relative(root, lock));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Shared by the snapshot loader tests: a temporary folder to write dumps into (removed after the
 * file's tests), and unwrapping a load that must succeed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { SnapshotResult } from './snapshot/results';
import { formatProblem } from './snapshot/results';

/** A temporary folder for this test file; `write` creates a file in it (and its folders) and returns its path. */
export function dumpFolder(prefix: string): { readonly dir: string; write(relative: string, text: string): string } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    write(relative, text) {
      const file = path.join(dir, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
  };
}

/** The loaded snapshot; throws with every problem when the load failed. */
export function ok(result: SnapshotResult): Extract<SnapshotResult, { ok: true }> {
  if (!result.ok) throw new Error(`expected success, got:\n${result.errors.map(formatProblem).join('\n')}`);
  return result;
}

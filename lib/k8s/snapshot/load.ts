/**
 * Loading a snapshot from the file system: a file, a folder (its `.yaml`, `.yml` and `.json`
 * files, recursively, in name order, hidden entries skipped) or several of them. Large files are
 * streamed in chunks through the dump splitters (../dump-stream): a List is read item by item and
 * each object projected at once, so a dump larger than a string (~512 MB) or than memory as parsed
 * objects loads. All-or-nothing: any problem in any file is reported, and no snapshot. What is
 * accepted is described in ./collector.
 */
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { isJsonText } from '../kubectl-dump';
import { SnapshotCollector } from './collector';
import { FileReader, readText, splitterFor } from './file-reader';
import type { SnapshotProblem, SnapshotResult } from './results';

const SNAPSHOT_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** The `code` of a file-system error (`ENOENT`, …), `error` when it has none. */
function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : 'error';
}

async function collectFiles(target: string, errors: SnapshotProblem[]): Promise<string[]> {
  let info;
  try {
    info = await stat(target);
  } catch (error) {
    const code = errorCode(error);
    errors.push({ file: target, message: code === 'ENOENT' ? 'no such file or folder' : `cannot be read (${code})` });
    return [];
  }
  if (info.isFile()) return [target];
  if (!info.isDirectory()) {
    errors.push({ file: target, message: 'is neither a file nor a folder' });
    return [];
  }
  const entries = (await readdir(target, { withFileTypes: true })).filter((e) => !e.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) {
      for (const file of await collectFiles(full, errors)) files.push(file);
    } else if (entry.isFile() && SNAPSHOT_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) files.push(full);
  }
  return files;
}

/**
 * The dump files of a path: the file itself, or a folder's `.yaml`, `.yml` and `.json` files,
 * recursively, in name order (hidden entries skipped). Problems (missing path, empty folder) are
 * returned instead; shared with the simulator's `--snapshot FOLDER`.
 */
export async function listSnapshotFiles(target: string): Promise<{ readonly files: readonly string[]; readonly errors: readonly SnapshotProblem[] }> {
  const errors: SnapshotProblem[] = [];
  let files: string[] = [];
  try {
    files = await collectFiles(target, errors);
  } catch (error) {
    errors.push({ file: target, message: `cannot be listed (${errorCode(error)})` });
  }
  if (errors.length === 0 && files.length === 0) errors.push({ file: target, message: 'no .yaml, .yml or .json files found' });
  return { files, errors };
}

/** How {@link loadSnapshot} reads files (tests make both small to exercise streaming). */
export interface LoadOptions {
  /** Files up to this size are read whole (default 8 MiB); larger ones are streamed. */
  readonly wholeFileBytes?: number;
  /** Bytes read at a time when streaming (default 1 MiB). */
  readonly chunkBytes?: number;
}

/** Reads one file into the collector, streaming it in chunks when large. */
async function readFileInto(collector: SnapshotCollector, file: string, options: LoadOptions): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    if (size <= (options.wholeFileBytes ?? 8 * 1024 * 1024)) {
      readText(collector, (await handle.readFile()).toString('utf8').replace(/^\uFEFF/, ''), file);
      return;
    }
    // Large: decide by the name and the first byte that is not blank, then stream.
    const probe = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
    const head = probe.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
    const splitter = splitterFor(isJsonText(head, file), new FileReader(collector, file).onEvent);
    const chunk = Buffer.alloc(Math.max(1, options.chunkBytes ?? 1024 * 1024));
    let position = 0;
    for (;;) {
      const { bytesRead: n } = await handle.read(chunk, 0, chunk.length, position);
      if (n === 0) break;
      position += n;
      splitter.push(chunk.subarray(0, n));
    }
    splitter.end();
    collector.documents += splitter.documents;
  } finally {
    await handle.close();
  }
}

/**
 * Loads a snapshot from a file, a folder (recursively, in name order: `.yaml`, `.yml`, `.json`)
 * or several of them, streaming each file (a dump may be larger than memory would hold as text).
 * All-or-nothing: any problem in any file yields `{ok: false, errors}` listing the problems
 * found, and no snapshot. Never rejects: an unexpected failure is a problem too.
 */
export async function loadSnapshot(pathOrPaths: string | readonly string[], options: LoadOptions = {}): Promise<SnapshotResult> {
  const targets = typeof pathOrPaths === 'string' ? [pathOrPaths] : pathOrPaths;
  const errors: SnapshotProblem[] = [];
  const files: string[] = [];
  try {
    for (const target of targets) for (const file of await collectFiles(target, errors)) files.push(file);
  } catch (error) {
    return { ok: false, errors: [{ file: targets.join(', '), message: `cannot be listed (${errorCode(error)})` }] };
  }
  if (errors.length === 0 && files.length === 0) errors.push({ file: targets.join(', ') || '(none)', message: 'no .yaml, .yml or .json files found' });
  if (errors.length > 0) return { ok: false, errors };
  const collector = new SnapshotCollector(false);
  for (const file of files) {
    try {
      await readFileInto(collector, file, options);
    } catch (error) {
      const code = errorCode(error);
      collector.problem({ file, message: code !== 'error' ? `cannot be read (${code})` : `cannot be read: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  try {
    return collector.result(files);
  } catch (error) {
    return { ok: false, errors: [{ file: files.join(', '), message: `cannot be loaded: ${error instanceof Error ? error.message : String(error)}` }] };
  }
}

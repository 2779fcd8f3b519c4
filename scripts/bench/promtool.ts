/**
 * `promtool check metrics` on a scraped exposition: Prometheus's own linter, run as a child
 * process with the text on its stdin (`PROMTOOL_BIN`, else `promtool` on `PATH`). Not installed is
 * an answer (`exitCode: null` and the reason), not a failure.
 */
import { spawn } from 'node:child_process';

/** What `promtool check metrics` said of a scrape. */
export interface PromtoolResult {
  /** Exit code (0: accepted; 3: lint problems; 1: unparsable), `null` when promtool is not installed. */
  readonly exitCode: number | null;
  /** Its output lines (lint problems, parse errors), or why it did not run. */
  readonly lines: readonly string[];
  readonly ms: number;
}

/** The promtool binary: `PROMTOOL_BIN` when set, else `promtool` on `PATH`. */
export function promtoolBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.PROMTOOL_BIN || 'promtool';
}

/** Pipes `text` into `promtool check metrics`. */
export function promtoolCheck(text: string, binary = promtoolBinary()): Promise<PromtoolResult> {
  return new Promise((resolve) => {
    const startedAt = performance.now();
    const child = spawn(binary, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ exitCode: null, lines: [error.code === 'ENOENT' ? `${binary} is not installed (apt-get install prometheus, or set PROMTOOL_BIN)` : error.message], ms: performance.now() - startedAt });
    });
    child.on('close', (code) => {
      resolve({ exitCode: code, lines: output.split('\n').filter((l) => l.trim() !== ''), ms: performance.now() - startedAt });
    });
    // promtool may exit before reading everything (a parse error): ignore the broken pipe.
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
}

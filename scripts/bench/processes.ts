/**
 * Child processes of the benchmark: each is started in its own process group, so stopping it also
 * stops whatever it spawned (next start's workers, tsx's child). Every child is tracked and
 * stopped on exit, on SIGINT/SIGTERM and when the run's deadline passes. (What /proc says of a
 * running child — its memory and CPU — is process-tree.ts.)
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

/** A started child with its output captured line by line. */
export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
  /** Every output line so far (stdout and stderr). */
  readonly lines: string[];
  /** Resolves with the exit code (or signal name) when the child ends. */
  readonly exited: Promise<number | string>;
  /** Waits for an output line matching `pattern`; rejects on exit or after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Subscribes to new output lines. */
  onLine(listener: (line: string) => void): void;
}

const children = new Set<Child>();
let cleanupInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Stops every child still running (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopAll(graceMs = 3000): Promise<void> {
  const running = [...children];
  for (const child of running) killGroup(child.pid, 'SIGTERM');
  await Promise.race([Promise.all(running.map((c) => c.exited)), new Promise((r) => setTimeout(r, graceMs))]);
  for (const child of running) killGroup(child.pid, 'SIGKILL');
  children.clear();
}

/** Stops one child (and its process group). */
export async function stop(child: Child, graceMs = 3000): Promise<void> {
  killGroup(child.pid, 'SIGTERM');
  const done = await Promise.race([child.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs))]);
  if (!done) killGroup(child.pid, 'SIGKILL');
  children.delete(child);
}

/** Installs the exit/signal handlers that stop every child (idempotent). */
export function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', () => {
    for (const child of children) killGroup(child.pid, 'SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping children…\n`);
      void stopAll(1500).finally(() => process.exit(130));
    });
  }
}

/** Starts `command args` in its own process group with `env`, capturing its output. */
export function startChild(name: string, command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; echo?: boolean; stdoutFile?: string }): Child {
  installCleanup();
  // `stdoutFile`: the child writes its standard output straight to that file (large outputs cost
  // the benchmark nothing); only standard error is captured then.
  const stdoutFd = options.stdoutFile !== undefined ? openSync(options.stdoutFile, 'w') : null;
  const proc = spawn(command, [...args], { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe'] });
  if (stdoutFd !== null) closeSync(stdoutFd);
  if (proc.pid === undefined) throw new Error(`cannot start ${name}`);
  const lines: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const feed = (stream: NodeJS.ReadableStream | null) => {
    let rest = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      rest += chunk;
      let at: number;
      while ((at = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, at);
        rest = rest.slice(at + 1);
        // Keep memory bounded on long runs: the newest lines matter.
        if (lines.length > 20_000) lines.splice(0, 10_000);
        lines.push(line);
        if (options.echo) process.stderr.write(`  [${name}] ${line}\n`);
        for (const listener of listeners) listener(line);
      }
    });
  };
  feed(proc.stdout);
  feed(proc.stderr);
  let exitCode: number | string | null = null;
  const exited = new Promise<number | string>((resolve) => {
    proc.on('exit', (code, signal) => {
      exitCode = code ?? signal ?? 'unknown';
      resolve(exitCode);
    });
    proc.on('error', (error) => {
      exitCode = error.message;
      resolve(exitCode);
    });
  });
  const child: Child = {
    name,
    process: proc,
    pid: proc.pid,
    lines,
    exited,
    onLine: (listener) => listeners.add(listener),
    waitForLine: (pattern, timeoutMs) =>
      new Promise<string>((resolve, reject) => {
        const found = lines.find((line) => pattern.test(line));
        if (found !== undefined) return resolve(found);
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`${name}: no line matching ${pattern} within ${Math.round(timeoutMs / 1000)} s; last output:\n${lines.slice(-15).join('\n')}`));
        }, timeoutMs);
        const listener = (line: string) => {
          if (!pattern.test(line)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(line);
        };
        listeners.add(listener);
        void exited.then((code) => {
          clearTimeout(timer);
          listeners.delete(listener);
          reject(new Error(`${name} exited (${code}) before printing ${pattern}; last output:\n${lines.slice(-15).join('\n')}`));
        });
      }),
  };
  children.add(child);
  void exited.then(() => children.delete(child));
  return child;
}

/** Runs a command to completion; resolves with its exit code, wall time and captured output. */
export function run(name: string, command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; echo?: boolean; stdoutFile?: string; timeoutMs: number }): Promise<{ code: number | string; ms: number; output: string[] }> {
  const startedAt = performance.now();
  const child = startChild(name, command, args, options);
  const timer = setTimeout(() => void stop(child), options.timeoutMs);
  return child.exited.then((code) => {
    clearTimeout(timer);
    return { code, ms: performance.now() - startedAt, output: child.lines };
  });
}

/**
 * buildah and podman as this machine runs them without a Docker engine (issue 31, checked here):
 * builds with `buildah bud --isolation chroot`; containers with Debian's `runc` and cgroupfs
 * (`crun` refuses this machine's hybrid cgroups and rlimits), the host's network and explicit
 * rlimits, events and logs in files (no systemd journal in a CI container).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

import { startChild, stop } from '../bench/processes';

/** The Debian packages the image test needs, with the program each provides. */
export const IMAGE_TOOLS: readonly { readonly path: string; readonly pkg: string }[] = [
  { path: '/usr/bin/buildah', pkg: 'buildah' },
  { path: '/usr/bin/podman', pkg: 'podman' },
  { path: '/usr/sbin/runc', pkg: 'runc' },
  { path: '/usr/sbin/debootstrap', pkg: 'debootstrap' },
];

/** The podman options every call takes (before the subcommand). */
export const PODMAN_GLOBAL = ['--runtime', '/usr/sbin/runc', '--cgroup-manager=cgroupfs', '--events-backend=file'] as const;

/** The `podman run` options every container of the test takes (after `run`). */
export const PODMAN_RUN_BASE = ['--network', 'host', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024', '--log-driver', 'k8s-file'] as const;

/** What is missing of {@link IMAGE_TOOLS}, as an install hint; null when all are there. */
export function missingTools(): string | null {
  const missing = IMAGE_TOOLS.filter((tool) => !existsSync(tool.path));
  if (missing.length === 0) return null;
  return `missing ${missing.map((tool) => tool.path).join(', ')}: install them with \`apt-get install -y ${missing.map((tool) => tool.pkg).join(' ')}\` (Debian), as .ci/run does`;
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end, collecting its output (never throws for a non-zero exit). */
export function capture(command: string, args: readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 64 << 20, timeout: options.timeoutMs ?? 120_000 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(new Error(`${command} ${args.join(' ')}: ${error.message}`));
        return;
      }
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

/** Runs a command to its end, throwing with its output's tail when it fails. */
export async function must(command: string, args: readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<string> {
  const result = await capture(command, args, options);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${tail(result.stderr || result.stdout)}`);
  return result.stdout;
}

/**
 * Runs a long command with its output streamed line by line to `log`, so a build of
 * several minutes shows progress; rejects with the last lines when it fails. The child is the
 * bench's (scripts/bench/processes.ts): lines split across reads are joined, and the child's
 * process group is stopped at the time limit or when the test process exits.
 */
export async function stream(command: string, args: readonly string[], log: (line: string) => void, options: { readonly timeoutMs: number }): Promise<void> {
  const child = startChild(command, command, args, { cwd: process.cwd(), env: process.env });
  child.onLine((line) => {
    if (line.trim() !== '') log(line);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stop(child);
  }, options.timeoutMs);
  const code = await child.exited.finally(() => clearTimeout(timer));
  if (code === 0) return;
  const last = child.lines.filter((line) => line.trim() !== '').slice(-40);
  throw new Error(`${command} ${args.slice(0, 4).join(' ')} … ${timedOut ? `was stopped (limit ${options.timeoutMs / 1000} s)` : `exited ${code}`}:
${last.join('\n')}`);
}

/** `podman <global options> …args`, throwing on failure. */
export function podman(args: readonly string[], timeoutMs = 120_000): Promise<string> {
  return must('podman', [...PODMAN_GLOBAL, ...args], { timeoutMs });
}

/** `podman <global options> …args`, whatever its exit code. */
export function podmanResult(args: readonly string[], timeoutMs = 120_000): Promise<CommandResult> {
  return capture('podman', [...PODMAN_GLOBAL, ...args], { timeoutMs });
}

/** A label of a local image, or null when the image is not in the store. */
export async function imageLabel(image: string, label: string): Promise<string | null> {
  const result = await podmanResult(['image', 'inspect', '--format', `{{ index .Labels "${label}" }}`, image]);
  if (result.code !== 0) return null;
  const value = result.stdout.trim();
  return value === '' || value === '<no value>' ? null : value;
}

function tail(text: string, lines = 30): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

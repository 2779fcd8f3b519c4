/**
 * `npm start [-- <next start arguments>]`: `next start` on loopback unless told otherwise.
 *
 * Binds `ZONESCOPE_HOST` (default `127.0.0.1`; `0.0.0.0` or an interface address to serve
 * beyond this machine) and passes the same value on to the server as `ZONESCOPE_HOST`, which is
 * how zonescope knows whether it is reachable beyond loopback (Host allow-list and write policy:
 * lib/data/exposure.ts). An explicit `-H`/`--hostname` argument wins and is passed on the same way.
 * `PORT` / `-p` choose the port as for `next start`. Exit code: `next start`'s.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The default bind address of `npm start` and `npm run demo`. */
export const DEFAULT_HOST = '127.0.0.1';

/** The `next start` arguments and the environment for them. */
export function startCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): { args: string[]; env: Record<string, string | undefined>; host: string } {
  const args = [...argv];
  let host: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if ((arg === '-H' || arg === '--hostname') && i + 1 < args.length) host = args[i + 1] ?? null;
    else if (arg.startsWith('--hostname=')) host = arg.slice('--hostname='.length);
  }
  if (host === null) {
    host = env.ZONESCOPE_HOST?.trim() || DEFAULT_HOST;
    args.push('-H', host);
  }
  return { args: ['start', ...args], env: { ...env, ZONESCOPE_HOST: host }, host };
}

function main(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const next = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
  const { args, env } = startCommand(process.argv.slice(2), process.env);
  const child = spawn(process.execPath, [next, ...args], { cwd: root, env: env as NodeJS.ProcessEnv, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();

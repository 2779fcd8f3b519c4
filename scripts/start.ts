/**
 * `npm start [-- -p PORT -H HOST]`: the production build's standalone server, on loopback unless
 * told otherwise.
 *
 * The build is `output: 'standalone'` (next.config.js), whose server is `<build>/standalone/server.js`
 * (`next start` warns that it does not work with that output). That server serves the static
 * files from next to itself, so they are linked in first (`<build>/static`, `public/`; copied
 * where links cannot be made), as deploy/Dockerfile copies them. The server changes its working
 * directory to its own folder: relative `KUBECONFIG` and `ZONESCOPE_SNAPSHOT` paths are made
 * absolute first, so they mean what they meant where `npm start` ran.
 *
 * Binds `ZONESCOPE_HOST` (default `127.0.0.1`; `0.0.0.0` or an interface address to serve
 * beyond this machine) and passes the same value on to the server as `ZONESCOPE_HOST`, which is
 * how zonescope knows whether it is reachable beyond loopback (Host allow-list and write policy:
 * lib/server/exposure.ts). An explicit `-H`/`--hostname` argument wins and is passed on the same way.
 * `PORT` / `-p` / `--port` choose the port (default 3000). Once the server answers, prints
 * `zonescope is ready on http://HOST:PORT`. Exit code: the server's; 2 for bad arguments, 1
 * without a build.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { serverNodeArgs } from './node-flags';

/** The default bind address of `npm start` and `npm run demo`. */
export const DEFAULT_HOST = '127.0.0.1';
/** The default port. */
export const DEFAULT_PORT = 3000;

/** How the standalone server is to be started. */
export interface StartPlan {
  /** Bind address. */
  readonly host: string;
  readonly port: number;
  /** The server's environment (`PORT`, `HOSTNAME`, `ZONESCOPE_HOST`, absolute paths). */
  readonly env: Record<string, string | undefined>;
  /** The address to open: loopback for a wildcard bind, IPv6 in brackets. */
  readonly url: string;
}

/** A bad command line, with the message to print. */
export class StartUsageError extends Error {}

function parsePort(text: string | undefined, what: string): number {
  if (text === undefined || !/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    throw new StartUsageError(`${what} must be a port number (1–65535), not "${text ?? ''}"`);
  }
  return Number(text);
}

/** The address a browser on this machine opens for a server bound to `host`. */
export function browseUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Absolute versions of path lists (`a:b`) relative to `cwd`. */
function absolutePaths(value: string | undefined, cwd: string): string | undefined {
  if (value === undefined || value === '') return value;
  return value
    .split(path.delimiter)
    .map((entry) => (entry === '' ? entry : path.resolve(cwd, entry)))
    .join(path.delimiter);
}

/**
 * The plan for `argv` (`-p`/`--port`, `-H`/`--hostname`, also as `--port=N`) and `env`; throws
 * {@link StartUsageError} for anything else or a bad port.
 */
export function startPlan(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): StartPlan {
  let host: string | null = null;
  let port: number | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      i += 1;
      const next = argv[i];
      if (next === undefined) throw new StartUsageError(`${flag} needs a value`);
      return next;
    };
    if (flag === '-H' || flag === '--hostname') host = value();
    else if (flag === '-p' || flag === '--port') port = parsePort(value(), flag);
    else throw new StartUsageError(`unknown argument "${arg}" (npm start takes -p/--port and -H/--hostname)`);
  }
  host ??= env.ZONESCOPE_HOST?.trim() || DEFAULT_HOST;
  port ??= env.PORT === undefined || env.PORT === '' ? DEFAULT_PORT : parsePort(env.PORT, 'PORT');
  return {
    host,
    port,
    url: browseUrl(host, port),
    env: {
      ...env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOSTNAME: host,
      ZONESCOPE_HOST: host,
      KUBECONFIG: absolutePaths(env.KUBECONFIG, cwd),
      ZONESCOPE_SNAPSHOT: absolutePaths(env.ZONESCOPE_SNAPSHOT, cwd),
    },
  };
}

/** The build folder (`ZONESCOPE_DIST_DIR`, default `.next`), as next.config.js has it. */
export function distDir(root: string, env: Readonly<Record<string, string | undefined>>): string {
  return path.resolve(root, env.ZONESCOPE_DIST_DIR || '.next');
}

function linkOrCopy(target: string, link: string): void {
  if (!existsSync(target)) return;
  try {
    lstatSync(link);
    return; // already there (a link from an earlier start, or a copy)
  } catch {
    // missing: link it
  }
  try {
    symlinkSync(target, link, 'dir');
  } catch {
    cpSync(target, link, { recursive: true });
  }
}

/**
 * The standalone server of the build in `dist`, with the static files it serves put next to it.
 * Throws when there is no standalone build.
 */
export function prepareStandalone(root: string, dist: string): string {
  const standalone = path.join(dist, 'standalone');
  const server = path.join(standalone, 'server.js');
  if (!existsSync(server)) throw new Error(`there is no production build in ${path.relative(root, dist) || dist} (no standalone/server.js): run npm run build first`);
  const builtDist = path.join(standalone, path.relative(root, dist));
  linkOrCopy(path.join(dist, 'static'), path.join(builtDist, 'static'));
  linkOrCopy(path.join(root, 'public'), path.join(standalone, 'public'));
  return server;
}

/** Polls `url` until the server answers (any status) or `child` exits; `false` after `timeoutMs`. */
export async function waitForServer(url: string, isRunning: () => boolean, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && isRunning()) {
    try {
      const response = await fetch(`${url}/api/health/live`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return false;
}

async function main(): Promise<number> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  let plan: StartPlan;
  let server: string;
  try {
    plan = startPlan(process.argv.slice(2), process.env, process.cwd());
    server = prepareStandalone(root, distDir(root, process.env));
  } catch (error) {
    console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof StartUsageError ? 2 : 1;
  }
  const child = spawn(process.execPath, [...serverNodeArgs(plan.env), server], { env: plan.env as NodeJS.ProcessEnv, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const exit = new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  if (await waitForServer(plan.url, () => child.exitCode === null && child.signalCode === null)) console.log(`zonescope is ready on ${plan.url}`);
  return exit;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

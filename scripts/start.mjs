/**
 * `npm start [-- -p PORT -H HOST]`: the production build's standalone server, on loopback unless
 * told otherwise — in this one Node process (`MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} node
 * --max-semi-space-size=32 scripts/start.mjs`, the server's V8 flags and environment from
 * scripts/node-flags.ts; no tsx or wrapper process in front of it).
 * Plain JavaScript so that Node runs it as it is; its types are in start.d.mts.
 *
 * The build is `output: 'standalone'` (next.config.js), whose server is `<build>/standalone/server.js`
 * (`next start` warns that it does not work with that output). That server serves the static
 * files from next to itself, so they are linked in first (`<build>/static`, `public/`; copied
 * where links cannot be made), as deploy/Dockerfile copies them. The server changes its working
 * directory to its own folder: relative `KUBECONFIG` and `ZONESCOPE_SNAPSHOT` paths are made
 * absolute first, so they mean what they meant where `npm start` ran. The build folder is
 * `ZONESCOPE_DIST_DIR` (default `.next`), as next.config.js has it.
 *
 * Binds `ZONESCOPE_HOST` (default `127.0.0.1`; `0.0.0.0` or an interface address to serve
 * beyond this machine) and passes the same value on to the server as `ZONESCOPE_HOST`, which is
 * how zonescope knows whether it is reachable beyond loopback (Host allow-list and write policy:
 * lib/server/exposure.ts). An explicit `-H`/`--hostname` argument wins and is passed on the same way.
 * `PORT` / `-p` / `--port` choose the port (default 3000). Once the server answers, prints
 * `zonescope is ready on http://HOST:PORT`. Exit code: the server's; 2 for bad arguments, 1
 * without a build.
 *
 * Configuration: the server checks its settings when it boots (instrumentation.ts), which is this
 * process: a bad value stops the start with the server's message and exit code, before the ready
 * line. Checks that must run before the server is loaded go in {@link main} where it says so.
 */
import { cpSync, existsSync, lstatSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** The default bind address of `npm start` and `npm run demo`. */
export const DEFAULT_HOST = '127.0.0.1';
/** The default port. */
export const DEFAULT_PORT = 3000;

/** Idle keep-alive of the server's connections, milliseconds (`KEEP_ALIVE_TIMEOUT`): above the 60 s of common fronts. */
export const DEFAULT_KEEP_ALIVE_MS = 65_000;

/** A bad command line, with the message to print. */
export class StartUsageError extends Error {}

/**
 * @param {string | undefined} text
 * @param {string} what
 * @returns {number}
 */
function parsePort(text, what) {
  if (text === undefined || !/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    throw new StartUsageError(`${what} must be a port number (1–65535), not "${text ?? ''}"`);
  }
  return Number(text);
}

/**
 * The address a browser on this machine opens for a server bound to `host`.
 * @param {string} host
 * @param {number} port
 * @returns {string}
 */
export function browseUrl(host, port) {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * Absolute versions of path lists (`a:b`) relative to `cwd`.
 * @param {string | undefined} value
 * @param {string} cwd
 * @returns {string | undefined}
 */
function absolutePaths(value, cwd) {
  if (value === undefined || value === '') return value;
  return value
    .split(path.delimiter)
    .map((entry) => (entry === '' ? entry : path.resolve(cwd, entry)))
    .join(path.delimiter);
}

/** The options, as `parseArgs` takes them. */
const OPTIONS = /** @type {const} */ ({ port: { type: 'string', short: 'p' }, hostname: { type: 'string', short: 'H' } });

/**
 * The plan for `argv` (`-p`/`--port`, `-H`/`--hostname`, also as `--port=N`; given again, the last
 * counts) and `env`; throws {@link StartUsageError} for anything else, a missing value or a bad port.
 * The arguments are read by `parseArgs` leniently and checked here, in the words of the other
 * commands (lib/shared/command-line.ts, which this plain JavaScript cannot import).
 * @param {readonly string[]} argv
 * @param {Readonly<Record<string, string | undefined>>} env
 * @param {string} cwd
 * @returns {import('./start.d.mts').StartPlan}
 */
export function startPlan(argv, env, cwd) {
  /** @type {string | null} */
  let host = null;
  /** @type {number | null} */
  let port = null;
  for (const token of parseArgs({ args: [...argv], options: OPTIONS, strict: false, tokens: true }).tokens) {
    if (token.kind !== 'option' || !Object.hasOwn(OPTIONS, token.name)) {
      throw new StartUsageError(`unknown argument "${argv[token.index]}" (npm start takes -p/--port and -H/--hostname)`);
    }
    const { value } = token;
    if (value === undefined || value === '' || (!token.inlineValue && value.startsWith('--'))) throw new StartUsageError(`${token.rawName} needs a value`);
    if (token.name === 'hostname') host = value;
    else port = parsePort(value, token.rawName);
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
      // Next.js's standalone server keeps idle connections 5 s unless told: longer than the fronts
      // it is deployed behind (see KEEP_ALIVE_TIMEOUT in docs/configuration.md).
      KEEP_ALIVE_TIMEOUT: env.KEEP_ALIVE_TIMEOUT ?? String(DEFAULT_KEEP_ALIVE_MS),
      KUBECONFIG: absolutePaths(env.KUBECONFIG, cwd),
      ZONESCOPE_SNAPSHOT: absolutePaths(env.ZONESCOPE_SNAPSHOT, cwd),
    },
  };
}

/**
 * The build folder (`ZONESCOPE_DIST_DIR`, default `.next`), as next.config.js has it.
 * @param {string} root
 * @param {Readonly<Record<string, string | undefined>>} env
 * @returns {string}
 */
export function distDir(root, env) {
  return path.resolve(root, env.ZONESCOPE_DIST_DIR || '.next');
}

/**
 * @param {string} target
 * @param {string} link
 */
function linkOrCopy(target, link) {
  if (!existsSync(target)) return;
  try {
    lstatSync(link);
    return; // already there (a link from an earlier start, or a copy)
  } catch {
    // missing: link it
  }
  try {
    symlinkSync(target, link, 'dir');
  } catch (error) {
    // Another start (a second e2e shard) linked it meanwhile: there it is.
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'EEXIST') return;
    cpSync(target, link, { recursive: true });
  }
}

/**
 * The standalone server of the build in `dist`, with the static files it serves put next to it.
 * Throws when there is no standalone build.
 * @param {string} root
 * @param {string} dist
 * @returns {string}
 */
export function prepareStandalone(root, dist) {
  const standalone = path.join(dist, 'standalone');
  const server = path.join(standalone, 'server.js');
  if (!existsSync(server)) throw new Error(`there is no production build in ${path.relative(root, dist) || dist} (no standalone/server.js): run npm run build first`);
  const builtDist = path.join(standalone, path.relative(root, dist));
  linkOrCopy(path.join(dist, 'static'), path.join(builtDist, 'static'));
  linkOrCopy(path.join(root, 'public'), path.join(standalone, 'public'));
  return server;
}

/** How long the start waits for its server before it says it is still waiting (and the default of {@link waitForServer}). */
const FIRST_WAIT_MS = 60_000;

/**
 * One GET of `url` on a connection of its own, closed after the answer (any status). The start
 * polls from the server's own process: a pooled connection (fetch's) stayed open to the server's
 * own port for as long as its keep-alive allowed, a connection the server holds to itself, which
 * the cluster-routing bench counts as a request looped through the server.
 * @param {string} url
 * @param {number} timeoutMs
 * @returns {Promise<void>}
 */
function probeOnce(url, timeoutMs) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { connection: 'close' }, timeout: timeoutMs }, (response) => {
      response.resume();
      response.once('end', () => resolve());
      response.once('error', reject);
    });
    request.once('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.once('error', reject);
  });
}

/**
 * Polls `url` until the server answers (any status) while `isRunning()`; `false` after `timeoutMs`.
 * @param {string} url
 * @param {() => boolean} isRunning
 * @param {number} [timeoutMs]
 * @returns {Promise<boolean>}
 */
export async function waitForServer(url, isRunning, timeoutMs = FIRST_WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && isRunning()) {
    try {
      await probeOnce(`${url}/api/health/live`, 2_000);
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return false;
}

/**
 * Puts `env` into this process's environment: what it sets, set; what it leaves `undefined`, removed.
 * @param {Readonly<Record<string, string | undefined>>} env
 */
function applyEnvironment(env) {
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
}

/**
 * Runs the standalone `server` (its server.js) in this process with `plan`'s environment, and once
 * it answers prints `zonescope is ready on URL` plus `readyNote`; after 60 s without an answer it
 * says on stderr that it is still waiting, and goes on waiting. `npm start` and the packaged
 * `zonescope dashboard` / `zonescope demo` (bin/zonescope.mjs) both start it this way. Resolves
 * once the server is loaded; it then keeps this process running.
 * @param {string} server
 * @param {import('./start.d.mts').StartPlan} plan
 * @param {string} [readyNote]
 * @returns {Promise<void>}
 */
export async function serveStandalone(server, plan, readyNote = '') {
  applyEnvironment(plan.env);
  let running = true;
  process.once('exit', () => {
    running = false;
  });
  const isRunning = () => running;
  void (async () => {
    // A slow host may take longer than the first wait: say so, and go on waiting for as long as the server runs.
    let ready = await waitForServer(plan.url, isRunning);
    if (!ready && running) {
      console.error(`zonescope: the server has not answered on ${plan.url} within ${FIRST_WAIT_MS / 1000} s; still waiting`);
      ready = await waitForServer(plan.url, isRunning, Number.POSITIVE_INFINITY);
    }
    if (ready) console.log(`zonescope is ready on ${plan.url}${readyNote}`);
  })();
  // The standalone server (CommonJS) starts listening as it loads and keeps this process running.
  await import(pathToFileURL(server).href);
}

/**
 * Plans, prepares the build, then loads its server here; resolves with the exit code to use when
 * the start failed before the server was loaded, else `null` (the server runs this process on).
 * @returns {Promise<number | null>}
 */
async function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  /** @type {import('./start.d.mts').StartPlan} */
  let plan;
  /** @type {string} */
  let server;
  try {
    plan = startPlan(process.argv.slice(2), process.env, process.cwd());
    server = prepareStandalone(root, distDir(root, process.env));
  } catch (error) {
    console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof StartUsageError ? 2 : 1;
  }
  // Checks of the configuration that must run before the server is loaded go here (print the
  // message, return the exit code); the server checks its settings itself when it boots.
  await serveStandalone(server, plan);
  return null;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => {
      if (code !== null) process.exit(code);
    },
    (error) => {
      console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

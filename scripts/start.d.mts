/** Types of scripts/start.mjs (`npm start`), for the TypeScript that imports it (tests, scripts/demo.ts). */

/** The default bind address of `npm start` and `npm run demo`. */
export declare const DEFAULT_HOST: string;
/** The default port. */
export declare const DEFAULT_PORT: number;
/** Idle keep-alive of the server's connections, milliseconds (`KEEP_ALIVE_TIMEOUT`). */
export declare const DEFAULT_KEEP_ALIVE_MS: number;

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
export declare class StartUsageError extends Error {}

/** The address a browser on this machine opens for a server bound to `host`. */
export declare function browseUrl(host: string, port: number): string;

/**
 * The plan for `argv` (`-p`/`--port`, `-H`/`--hostname`, also as `--port=N`; given again, the last
 * counts) and `env`; throws {@link StartUsageError} for anything else, a missing value or a bad port.
 */
export declare function startPlan(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): StartPlan;

/** The build folder (`ZONESCOPE_DIST_DIR`, default `.next`), as next.config.js has it. */
export declare function distDir(root: string, env: Readonly<Record<string, string | undefined>>): string;

/**
 * The standalone server of the build in `dist`, with the static files it serves put next to it.
 * Throws when there is no standalone build.
 */
export declare function prepareStandalone(root: string, dist: string): string;

/** Polls `url` until the server answers (any status) while `isRunning()`; `false` after `timeoutMs`. */
export declare function waitForServer(url: string, isRunning: () => boolean, timeoutMs?: number): Promise<boolean>;

/**
 * Runs the standalone `server` in this process with `plan`'s environment and prints
 * `zonescope is ready on URL` plus `readyNote` once it answers; resolves once the server is loaded.
 */
export declare function serveStandalone(server: string, plan: StartPlan, readyNote?: string): Promise<void>;

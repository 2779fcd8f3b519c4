/**
 * V8 flags of every process that lists a cluster: the dashboard's server (`npm start`, `npm run
 * demo`, the container image, the benchmark) and `npm run analyze`.
 *
 * `--max-semi-space-size=32` (MiB; V8's default young generation is smaller): a cold sync parses
 * list pages of tens of MB whose objects mostly die young (only the fields the analysis reads are
 * kept). With a young generation that holds a page's garbage, fewer of them are copied to the old
 * generation before they die. Measured on the realistic L cluster (150k pods, ~820 MB of JSON),
 * in-process list+watch to synced, five default and four flagged runs interleaved on this 2-core
 * machine: peak RSS 631–700 MiB by default, 528–607 MiB with 32 (heap after sync 417–493 against
 * 310–365 MiB); sync time unchanged within the noise (14.3–17.5 s against 15.2–19.0 s). The
 * server's RSS once requests have triggered a full collection is within 25 MiB of the default's.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/**
 * The flags to put before the script on a `node` command line: {@link SERVER_NODE_FLAGS}, less any
 * the user already set in `NODE_OPTIONS` (theirs wins: Node reads NODE_OPTIONS first, and a flag on
 * the command line would override it).
 */
export function serverNodeArgs(env: Readonly<Record<string, string | undefined>>): string[] {
  const options = env.NODE_OPTIONS ?? '';
  return SERVER_NODE_FLAGS.filter((flag) => !options.includes(flag.split('=')[0] as string));
}

/**
 * Environment of the same processes, read by the C library when the process starts (so it is set
 * where the process is started: package.json's `start` and `analyze`, the image's `ENV`, and the
 * scripts that start the server as `npm start` does).
 *
 * `MALLOC_ARENA_MAX=2`: glibc's malloc gives each thread that allocates its own arena, up to 8 per
 * core on 64-bit systems (`NARENAS_FROM_NCORES` in glibc's malloc/malloc.c; the default and its
 * cost are discussed on libc-alpha, "Document the M_ARENA_* mallopt parameters", October 2016, and
 * "malloc: Reduce maximum arenas", June 2026). Node's threads (libuv's pool: zlib for compressed
 * list pages, file reads; V8's GC helpers) each fill one, and memory freed in an arena mostly stays
 * resident. Measured on the realistic L cluster, `npm start` after a warm-up of page views (30 per
 * page, 8 clients for 30 s), two runs each, the same V8 heap (~360 MiB): steady RSS 505 and 474 MiB
 * by default, 462 and 459 with 2 arenas; peak 827 and 731 against 702 and 686 MiB. macOS and musl
 * ignore the variable.
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/** The variables of {@link SERVER_ENV} that `env` does not set (the user's value wins), to add to a child's environment. */
export function serverEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(SERVER_ENV)) if (env[name] === undefined || env[name] === '') added[name] = value;
  return added;
}

/** {@link SERVER_ENV} as package.json's scripts put it before `node`: each variable kept when already set (`NAME=${NAME:-value}`). */
export function serverEnvPrefix(): string {
  return Object.entries(SERVER_ENV)
    .map(([name, value]) => `${name}=\${${name}:-${value}}`)
    .join(' ');
}

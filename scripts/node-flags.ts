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

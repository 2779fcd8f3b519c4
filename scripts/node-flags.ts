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
export const IMAGE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/**
 * {@link IMAGE_NODE_FLAGS} and a heap cap, `--max-old-space-size=1536` (MiB), for the processes
 * started on a workstation (`npm start`, `npm run analyze`, `npm run demo`, the benchmark).
 *
 * Why a cap changes more than the limit: V8 lets the old generation grow to a multiple of what the
 * last full collection kept before it collects again, and that multiple is 4 when the heap may
 * reach 2 GiB or more (the default here: a quarter of the machine's memory, up to 4 GiB) and
 * between 1.3 and 2 below (heap-controller.cc, `MaxGrowingFactor`). The pages a page view of a
 * large cluster builds (a 1.2 MB Services page, its RSC payload and their copies) land in the
 * large-object space, which only a full collection frees, so the multiple decides the peak.
 * Realistic L, the production build, synced and then a warm-up of API and page requests with
 * 8 concurrent clients (one server each): peak RSS 753–859 MiB in 9 runs without a cap, 692–752
 * with 1024, 727–756 with 1536, 831 with 2048 (the multiple is 4 again); resident after the sync
 * ~500 MiB with 1024 or 1536 against 600–680 without. At L the heap in use peaks near 500 MB, so
 * 1536 leaves three times that. In the container the image leaves the cap to `NODE_OPTIONS`, which
 * the Kubernetes manifest sets (`--max-old-space-size=768` under a 1 GiB limit).
 */
export const SERVER_NODE_FLAGS: readonly string[] = [...IMAGE_NODE_FLAGS, '--max-old-space-size=1536'];

/**
 * The flags to put before the script on a `node` command line: {@link SERVER_NODE_FLAGS}, less any
 * the user already set in `NODE_OPTIONS` (theirs wins: Node reads NODE_OPTIONS first, and a flag on
 * the command line would override it).
 */
export function serverNodeArgs(env: Readonly<Record<string, string | undefined>>): string[] {
  const options = env.NODE_OPTIONS ?? '';
  return SERVER_NODE_FLAGS.filter((flag) => !options.includes(flag.split('=')[0] as string));
}

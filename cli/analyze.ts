/** `npm run analyze -- ...`: see cli/analyze-cli.ts for the options. */
import { main } from './analyze-cli';

/**
 * Exits with `code` once everything written to stdout and stderr has been handed to the OS.
 * `process.exit()` right after a large `write()` to a pipe drops what is still queued (a reader
 * such as `| jq` then gets the first 64 KiB only), so the exit waits for both streams' write
 * callbacks, which run in order after every earlier write.
 */
function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = (): void => {
    pending--;
    if (pending === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.destroyed || !stream.writable) done();
    else stream.write('', done);
  }
}

// A reader that goes away early (`| head`) is not an error of ours: stop writing quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }).then(
  (code) => exitWhenFlushed(code),
  (error: unknown) => {
    process.stderr.write(`analyze: ${error instanceof Error ? error.message : String(error)}\n`);
    exitWhenFlushed(3);
  },
);

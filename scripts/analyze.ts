/** `npm run analyze -- ...`: see scripts/analyze-cli.ts for the options. */
import { main } from './analyze-cli';

main(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`analyze: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(3);
  },
);

/**
 * The command line of `npm run test:e2e` (scripts/e2e.ts): the suite's own options (`--rebuild`,
 * `--no-prometheus`, `--shards N`, also `--shards=N`), read by `parseArgs` from `node:util`;
 * everything else is Playwright's and passes on unchanged, in its order. Pure, so it is unit-tested.
 */
import { parseArgs } from 'node:util';

import { checkedOptions, wholeNumber } from '../lib/shared/command-line';
import type { OptionSpecs } from '../lib/shared/command-line';

/** What the command line asks of the suite. */
export interface E2eArgs {
  /** Build even when the build folder holds a build of the current sources. */
  readonly rebuild: boolean;
  /** Start a Prometheus per shard (`--no-prometheus`: none). */
  readonly withPrometheus: boolean;
  /** `--shards N` (1–4); `null` when not given. */
  readonly shards: number | null;
  /** The arguments for `playwright test`: the command line without the suite's own options. */
  readonly playwright: readonly string[];
}

/** The suite's own options, as `parseArgs` takes them. */
const OPTIONS = {
  rebuild: { type: 'boolean' },
  'no-prometheus': { type: 'boolean' },
  shards: { type: 'string' },
} as const satisfies OptionSpecs;

/**
 * Reads the suite's options out of `argv` (up to a `--`; after it everything is Playwright's);
 * a message for a bad one (`--shards` without 1–4, `--rebuild=…`).
 */
export function parseE2eArgs(argv: readonly string[]): E2eArgs | string {
  // Lenient: an option the suite does not know is Playwright's (with its value, a positional here).
  const { values, tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const ours = tokens.filter((token) => token.kind === 'option' && Object.hasOwn(OPTIONS, token.name));
  const checked = checkedOptions(argv, { values, tokens: ours }, OPTIONS);
  if (typeof checked === 'string') return checked;
  const shards = checked.shards === undefined ? null : wholeNumber('--shards', checked.shards, { min: 1, max: 4 });
  if (typeof shards === 'string') return shards;
  // An option's own argument, and `--shards`' value when it is the next argument.
  const taken = new Set(ours.flatMap((token) => (token.kind === 'option' && token.inlineValue === false ? [token.index, token.index + 1] : [token.index])));
  return { rebuild: checked.rebuild ?? false, withPrometheus: !checked['no-prometheus'], shards, playwright: argv.filter((_, index) => !taken.has(index)) };
}

import { describe, expect, it } from 'vitest';
import { parseE2eArgs } from './e2e-args';

describe('npm run test:e2e arguments', () => {
  it("takes the suite's own options out and passes Playwright's on unchanged, in order", () => {
    expect(parseE2eArgs(['--rebuild', 'e2e/fleet.spec.ts', '--grep', 'a title', '--shards', '2', '--headed', '-g', 'x', '--workers=1', '--no-prometheus'])).toEqual({
      rebuild: true,
      withPrometheus: false,
      shards: 2,
      playwright: ['e2e/fleet.spec.ts', '--grep', 'a title', '--headed', '-g', 'x', '--workers=1'],
    });
    expect(parseE2eArgs([])).toEqual({ rebuild: false, withPrometheus: true, shards: null, playwright: [] });
    // Playwright's own --shard is not the suite's --shards.
    expect(parseE2eArgs(['--shard=1/2', '--shard', '2/2'])).toMatchObject({ shards: null, playwright: ['--shard=1/2', '--shard', '2/2'] });
  });

  it('reads --shards=N as --shards N; given twice, the last counts', () => {
    expect(parseE2eArgs(['--shards=3', '--list'])).toMatchObject({ shards: 3, playwright: ['--list'] });
    expect(parseE2eArgs(['--shards', '1', '--shards=4'])).toMatchObject({ shards: 4, playwright: [] });
  });

  it('leaves what follows a -- to Playwright, even an option of the suite', () => {
    expect(parseE2eArgs(['--rebuild', '--', '--rebuild'])).toEqual({ rebuild: true, withPrometheus: true, shards: null, playwright: ['--', '--rebuild'] });
  });

  it.each([
    [['--shards'], '--shards needs a value'],
    [['--shards', '--headed'], '--shards needs a value'],
    [['--shards='], '--shards needs a value'],
    [['--shards', '5'], '--shards must be an integer from 1 to 4, got "5"'],
    [['--shards', 'two'], '--shards must be an integer from 1 to 4, got "two"'],
    [['--rebuild=yes'], '--rebuild takes no value'],
  ])('refuses %j: %s', (argv, message) => {
    expect(parseE2eArgs(argv)).toBe(message);
  });
});

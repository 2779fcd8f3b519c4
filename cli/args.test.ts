import { describe, expect, it } from 'vitest';
import type { Args } from './args';
import { parseArgs } from './args';

const parsed = (...argv: string[]): Args => {
  const args = parseArgs(argv);
  if (typeof args === 'string') throw new Error(args);
  return args;
};

describe('npm run analyze: the command line', () => {
  it('reads --name=value as --name value', () => {
    expect(parsed('--snapshot=fixtures/eks-demo.yaml', '--format=json', '--service=shop/cart', '--gb-per-endpoint=100', '--fail-on=cross-zone>0.3')).toMatchObject({
      snapshots: ['fixtures/eks-demo.yaml'],
      format: 'json',
      service: { namespace: 'shop', name: 'cart' },
      options: { gbPerEndpoint: 100 },
      failOn: [{ kind: 'cross-zone', threshold: 0.3 }],
    });
  });

  it('adds up --snapshot and --fail-on given again; another option given again counts at its last value', () => {
    const args = parsed('--snapshot', 'a.yaml', '--snapshot=b', '--fail-on', 'hints-off', '--fail-on', 'attention>2', '--format', 'json', '--format', 'markdown', '--timeout', '5', '--timeout', '9');
    expect(args.snapshots).toEqual(['a.yaml', 'b']);
    expect(args.failOn).toEqual([{ kind: 'hints-off' }, { kind: 'attention', threshold: 2 }]);
    expect(args.format).toBe('markdown');
    expect(args.timeoutSeconds).toBe(9);
  });

  it('skips a -- (as npm passes arguments on) and takes a value that begins with one dash', () => {
    expect(parsed('--', '--context', 'prod')).toMatchObject({ context: 'prod' });
    expect(parseArgs(['--gb-per-month', '-5'])).toBe('--gb-per-month needs a non-negative number, got "-5"');
  });

  it.each([
    [['--bogus'], 'unknown argument "--bogus"'],
    [['--bogus=1'], 'unknown argument "--bogus=1"'],
    [['-x'], 'unknown argument "-x"'],
    [['report.yaml'], 'unknown argument "report.yaml"'],
    [['--timeout'], '--timeout needs a value'],
    [['--format='], '--format needs a value'],
    [['--service', '--format', 'json'], '--service needs a value'],
    [['--all-contexts=yes'], '--all-contexts takes no value'],
    [['--format', 'xml'], '--format must be one of text, json, markdown, got "xml"'],
    [['--timeout', 'soon'], '--timeout needs a non-negative number, got "soon"'],
  ])('refuses %j: %s', (argv, message) => {
    expect(parseArgs(argv)).toBe(message);
  });
});

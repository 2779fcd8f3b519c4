import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { OptionSpecs } from './command-line';
import { checkedOptions, nonNegativeNumber, oneOf, wholeNumber } from './command-line';

const OPTIONS = {
  name: { type: 'string', short: 'n' },
  tag: { type: 'string', multiple: true },
  verbose: { type: 'boolean', short: 'v' },
  flags: { type: 'string' },
} as const satisfies OptionSpecs;

const check = (args: string[], rules?: Parameters<typeof checkedOptions>[3]) => checkedOptions(args, parseArgs({ args, options: OPTIONS, strict: false, tokens: true }), OPTIONS, rules);

describe('checked command lines', () => {
  it('gives the values parseArgs read: --x value, --x=value, -x value, repeatable lists, switches', () => {
    expect(check(['--name', 'a', '--tag=x', '-v', '--tag', 'y', '-nb'])).toEqual({ name: 'b', tag: ['x', 'y'], verbose: true });
    expect(check([])).toEqual({});
  });

  it('names the first problem in argument order', () => {
    expect(check(['--nope', '--name'])).toBe('unknown argument "--nope"');
    expect(check(['-vq'])).toBe('unknown argument "-vq"');
    expect(check(['stray'])).toBe('unknown argument "stray"');
    expect(check(['--', '--name', 'a'])).toBe('unknown argument "--"');
    expect(check(['--name'])).toBe('--name needs a value');
    expect(check(['-n', '--verbose'])).toBe('-n needs a value');
    expect(check(['--name='])).toBe('--name needs a value');
    expect(check(['--verbose=no'])).toBe('--verbose takes no value');
  });

  it('takes a value that begins with one dash, or with two when written --x=--y or allowed for the option', () => {
    expect(check(['--name', '-1'])).toEqual({ name: '-1' });
    expect(check(['--flags=--fast'])).toEqual({ flags: '--fast' });
    expect(check(['--flags', '--fast'])).toBe('--flags needs a value');
    expect(check(['--flags', '--fast'], { dashValues: ['flags'] })).toEqual({ flags: '--fast' });
  });

  it('refuses an option given twice only when asked to, and never a repeatable one', () => {
    expect(check(['--name', 'a', '--name', 'b'])).toEqual({ name: 'b' });
    expect(check(['--name', 'a', '-n', 'b'], { once: true })).toBe('-n given twice');
    expect(check(['-v', '--verbose'], { once: true })).toBe('--verbose given twice');
    expect(check(['--tag', 'a', '--tag', 'b'], { once: true })).toEqual({ tag: ['a', 'b'] });
  });
});

describe('value rules', () => {
  it('whole numbers: decimal digits within the range, else the range and the value', () => {
    expect(wholeNumber('--n', '0')).toBe(0);
    expect(wholeNumber('--n', '4', { min: 1, max: 4 })).toBe(4);
    expect(wholeNumber('--n', '5', { min: 1, max: 4 })).toBe('--n must be an integer from 1 to 4, got "5"');
    expect(wholeNumber('--n', '0', { min: 1 })).toBe('--n must be an integer of at least 1, got "0"');
    for (const text of ['1.5', '-1', '1e3', ' 2', '', '0x10']) expect(wholeNumber('--n', text)).toBe(`--n must be a non-negative integer, got "${text}"`);
  });

  it('non-negative numbers: decimals up to the limit', () => {
    expect(nonNegativeNumber('--x', '0.25')).toBe(0.25);
    expect(nonNegativeNumber('--x', '100', 100)).toBe(100);
    expect(nonNegativeNumber('--x', '100.5', 100)).toBe('--x takes a number from 0 to 100, got 100.5');
    for (const text of ['-1', 'lots', '', ' ', 'Infinity']) expect(nonNegativeNumber('--x', text)).toBe(`--x needs a non-negative number, got "${text}"`);
  });

  it('choices: one of the list, else the list and the value', () => {
    expect(oneOf('--mode', 'b', ['a', 'b'])).toEqual({ value: 'b' });
    expect(oneOf('--mode', 'B', ['a', 'b'])).toBe('--mode must be one of a, b, got "B"');
  });
});

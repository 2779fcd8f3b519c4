/**
 * What the project's command lines (`npm run analyze`, `npm run sim`, `npm run bench`,
 * `npm run test:e2e`) share on top of `parseArgs` from `node:util`: the checks of what it read, and
 * the rules for numbers and choices, each in one wording.
 *
 * The caller runs `parseArgs({ args, options, strict: false, tokens: true })` and hands the result
 * to {@link checkedOptions}. Lenient parsing, then these checks, rather than `strict: true`: its
 * errors do not say which argument was unknown in a form a message can use, and it refuses a value
 * that begins with a dash (`--gb-per-endpoint -1` would be "ambiguous" instead of reaching the
 * number check, which names the value). Pure and free of Node imports (this layer runs in the
 * browser too): the caller owns the `parseArgs` call.
 */

/** One option, as `parseArgs` takes it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The values of a checked command line: a string, a list (`multiple`), or `true` for a switch; absent when not given. */
export type OptionValues<O extends OptionSpecs> = {
  readonly [K in keyof O]?: O[K]['type'] extends 'string' ? (O[K]['multiple'] extends true ? readonly string[] : string) : true;
};

/** What the checks read of `parseArgs`' tokens (node:util's `Token`, restated here). */
export type ArgToken =
  | { readonly kind: 'option'; readonly index: number; readonly name: string; readonly rawName: string; readonly value?: string | undefined; readonly inlineValue?: boolean | undefined }
  | { readonly kind: 'positional'; readonly index: number; readonly value: string }
  | { readonly kind: 'option-terminator'; readonly index: number };

/** What `parseArgs(… strict: false, tokens: true)` returns, as far as the checks go. */
export interface LenientParse {
  readonly values: Readonly<Record<string, unknown>>;
  readonly tokens: readonly ArgToken[];
}

export interface CheckRules {
  /** Each option at most once (`multiple` ones aside): `--x given twice`. Without it the last one counts. */
  readonly once?: boolean;
  /** Options whose value may itself begin with `--` (`--server-node-options "--max-old-space-size=640"`). */
  readonly dashValues?: readonly string[];
}

/**
 * The values `parseArgs` read from `args`, typed by `options`, once the command line holds nothing
 * else; or the first problem, in argument order:
 * - `unknown argument "ARG"`: an option not in `options`, a positional argument, or `--`;
 * - `--x needs a value`: a string option last, with an empty value, or followed by another `--option`;
 * - `--x takes no value`: a switch given as `--x=…`;
 * - `--x given twice` (with {@link CheckRules.once}).
 */
export function checkedOptions<O extends OptionSpecs>(args: readonly string[], parsed: LenientParse, options: O, rules: CheckRules = {}): OptionValues<O> | string {
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') return `unknown argument "${args[token.index] ?? ''}"`;
    const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (spec === undefined) return `unknown argument "${args[token.index] ?? token.rawName}"`;
    const { value } = token;
    if (spec.type === 'boolean' && value !== undefined) return `${token.rawName} takes no value`;
    if (spec.type === 'string' && (value === undefined || value === '' || (!token.inlineValue && value.startsWith('--') && !rules.dashValues?.includes(token.name)))) {
      return `${token.rawName} needs a value`;
    }
    if (rules.once && !spec.multiple && seen.has(token.name)) return `${token.rawName} given twice`;
    seen.add(token.name);
  }
  // Checked above: every value has its option's type.
  return parsed.values as OptionValues<O>;
}

/**
 * An integer from `min` (default 0) to `max` (default none) written in decimal digits, or why not:
 * `--x must be an integer from 1 to 4, got "…"` (or `of at least 1`, or `a non-negative integer`).
 */
export function wholeNumber(flag: string, text: string, { min = 0, max }: { readonly min?: number; readonly max?: number } = {}): number | string {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (n >= min && (max === undefined || n <= max)) return n;
  const range = max !== undefined ? `an integer from ${min} to ${max}` : min === 0 ? 'a non-negative integer' : `an integer of at least ${min}`;
  return `${flag} must be ${range}, got "${text}"`;
}

/**
 * A finite number from 0 to `max` (default none), or why not: `--x needs a non-negative number,
 * got "…"`, `--x takes a number from 0 to 100, got 101`.
 */
export function nonNegativeNumber(flag: string, text: string, max = Number.POSITIVE_INFINITY): number | string {
  const n = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(n) || n < 0) return `${flag} needs a non-negative number, got "${text}"`;
  return n <= max ? n : `${flag} takes a number from 0 to ${max}, got ${text}`;
}

/** `{ value: text }` when it is one of `choices`, else `--x must be one of a, b, got "…"`. */
export function oneOf<const C extends string>(flag: string, text: string, choices: readonly C[]): { readonly value: C } | string {
  const choice = choices.find((c) => c === text);
  return choice !== undefined ? { value: choice } : `${flag} must be one of ${choices.join(', ')}, got "${text}"`;
}

/**
 * The shared steps and value syntaxes of the `/api/v1` query parsers (./requests.ts): unknown
 * parameters, and repeated ones where a route checks them all first, are refused before any value
 * is read ({@link queryValues}); then a zod schema reads the values, its fields in the order the
 * checks run, its first problem being the 400's message ({@link parseWith}). The value syntaxes
 * the schemas share: enums, plain decimals, whole numbers, switches, and the price what-if (`price`
 * read as `ZONESCOPE_CROSS_ZONE_PRICE` is, by lib/config; or the older `pricePerGb`).
 */
import { z } from 'zod';

import { price as priceKind } from '../config/kinds';
import type { PriceSetting } from '../topology/model/cloud-pricing';
import { pricePerGbSetting } from '../topology/model/cloud-pricing';
import { MAX_PRICE_PER_GB } from '../topology/model/analysis-options';
import type { ApiSurface, Parsed } from './http';
import { fail, truncate } from './http';

/**
 * A query's values: one text per parameter, or the texts of a parameter given more than once that
 * {@link queryValues} did not refuse (its field refuses it in its turn, see {@link once}).
 */
export type QueryValues = Readonly<Record<string, string | readonly string[]>>;

/** What a route's query string may hold, and how it words a refusal. */
export interface QueryShape {
  readonly known: (key: string) => boolean;
  /** The known parameters as a refusal of an unknown one lists them. */
  readonly knownText: string;
  /**
   * The repeated parameters refused before any value is read: these, in this order; `sent`: any,
   * the first one given a second time.
   */
  readonly refuseRepeated: readonly string[] | 'sent';
  /** The refusal of a repeated parameter (default: {@link repeatedMessage}). */
  readonly repeated?: (key: string) => string;
}

/** `The query parameter "<key>" is given more than once.` */
export function repeatedMessage(key: string): string {
  return `The query parameter "${truncate(key)}" is given more than once.`;
}

/**
 * The query's values: the first unknown parameter (as sent), then the first repeated one the shape
 * refuses, are 400 `bad-request:<surface>`.
 */
export function queryValues(params: URLSearchParams, shape: QueryShape, surface: ApiSurface): Parsed<QueryValues> {
  for (const key of params.keys()) {
    if (!shape.known(key)) return fail(400, 'bad-request', surface, `Unknown query parameter "${truncate(key)}"; known: ${shape.knownText}.`);
  }
  const refuse = (key: string) => fail(400, 'bad-request', surface, (shape.repeated ?? repeatedMessage)(key));
  if (shape.refuseRepeated === 'sent') {
    const seen = new Set<string>();
    for (const key of params.keys()) {
      if (seen.has(key)) return refuse(key);
      seen.add(key);
    }
  } else {
    for (const key of shape.refuseRepeated) if (params.getAll(key).length > 1) return refuse(key);
  }
  // No prototype: a parameter named `__proto__` is a value like any other.
  const values = Object.create(null) as Record<string, string | string[]>;
  for (const [key, text] of params) {
    const held = values[key];
    values[key] = held === undefined ? text : [...(typeof held === 'string' ? [held] : held), text];
  }
  return { ok: true, value: values };
}

/** A parameter that may still be repeated (see {@link QueryValues}): refused as such in its field's turn, else read with `schema`. */
export function once<T extends z.ZodType<unknown, string>>(key: string, schema: T) {
  return z.string({ error: repeatedMessage(key) }).pipe(schema);
}

/** Drops the keys a schema left `undefined` (a parameter not given is absent from the value, not `undefined`). */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Reads `input` with `schema`; its first problem is the 400 `bad-request:<surface>`'s message. */
export function parseWith<T extends object>(schema: z.ZodType<T>, input: unknown, surface: ApiSurface): Parsed<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) return fail(400, 'bad-request', surface, parsed.error.issues[0]?.message ?? 'The request is not valid.');
  return { ok: true, value: defined(parsed.data) };
}

/** A parameter given empty (`?sort=`) counts as not given. */
export function unlessEmpty<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
}

/** One of `values`, else `<key> must be one of <values>.` */
export function oneOf<const T extends readonly [string, ...string[]]>(key: string, values: T) {
  return z.enum(values, { error: `${key} must be one of ${values.join(', ')}.` });
}

const INTEGER = /^-?\d{1,12}$/;
const DECIMAL = /^(\d{1,15}(\.\d{1,12})?|\.\d{1,12})$/;

/** A plain decimal number (no sign, exponent, `Infinity` or `NaN`) from 0 to `max`, else `null`. */
export function decimal(text: string, max: number): number | null {
  return DECIMAL.test(text) && Number(text) <= max ? Number(text) : null;
}

/** A plain decimal from 0 to `max`, else `message(text)`. */
export function decimalParam(max: number, message: (text: string) => string) {
  return z
    .string()
    .refine((text) => decimal(text, max) !== null, { error: (issue) => message(String(issue.input)) })
    .transform(Number);
}

/** A whole number (at most 12 digits, a sign allowed), else `message`. */
export function integerParam(message: string) {
  return z.string().regex(INTEGER, { error: message }).transform(Number);
}

/** `true`/`1` or `false`/`0`, else `message`. */
export function switchParam(message: string) {
  return z.enum(['true', '1', 'false', '0'], { error: message }).transform((text) => text === 'true' || text === '1');
}

/** The price syntax of `ZONESCOPE_CROSS_ZONE_PRICE`. */
const PRICE = priceKind();

/** `price`: a price setting read as `ZONESCOPE_CROSS_ZONE_PRICE` is (lib/config), named after the parameter. */
const priceParam = z.string().transform((text, ctx): PriceSetting => {
  const read = PRICE.read(text, 'price');
  if (read.ok && read.value !== null) return read.value;
  ctx.issues.push({ code: 'custom', message: read.ok ? 'price must be a price setting.' : read.message, input: text });
  return z.NEVER;
});

/** `pricePerGb`: the older price parameter, USD per cross-zone GB in each of two directions. */
const legacyPriceParam = decimalParam(
  MAX_PRICE_PER_GB,
  (text) => `pricePerGb must be a plain decimal number from 0 to ${MAX_PRICE_PER_GB} (USD per cross-zone GB in each direction); got "${truncate(text, 32)}".`,
).transform(pricePerGbSetting);

const priceWhatIfSchema = z.object({ price: once('price', priceParam).optional(), pricePerGb: once('pricePerGb', legacyPriceParam).optional() });

/**
 * The price what-if of a query: `price` (a price setting: `aws`, `gcp`, `azure` or `0.01/GB x2`)
 * or the legacy `pricePerGb` (0–100, USD per GB in each of two directions), not both; `null` when
 * neither is given.
 */
export function parsePriceWhatIf(values: QueryValues, surface: ApiSurface): Parsed<PriceSetting | null> {
  if (values.price !== undefined && values.pricePerGb !== undefined) {
    return fail(400, 'bad-request', surface, 'Give price or pricePerGb, not both: pricePerGb is the same as price=<USD>/GB x2.');
  }
  const parsed = parseWith(priceWhatIfSchema, values, surface);
  return parsed.ok ? { ok: true, value: parsed.value.price ?? parsed.value.pricePerGb ?? null } : parsed;
}

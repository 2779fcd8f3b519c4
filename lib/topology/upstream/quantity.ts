/**
 * Kubernetes resource quantities, as far as the topology cache needs them: exact decimal
 * values (in nano units, like `resource.Quantity`'s smallest scale) and `MilliValue()`, which
 * rounds sub-milli fractions up.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
 */

const QUANTITY_PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

const DECIMAL_SUFFIX_EXPONENT: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX_POWER: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator !== 0n && numerator > 0n ? quotient + 1n : quotient;
}

/**
 * Parsed quantities by text. A cluster's Nodes spell their allocatable CPU in a handful of ways
 * (one per instance type), and every analysis reads each Node's quantity two or three times: parsed
 * once, a quantity is a lookup (5,000 Nodes parsed afresh cost ~10 MB of strings and BigInts per
 * analysis). Emptied when full, so odd texts cannot grow it without bound.
 */
const PARSED = new Map<string, ParsedQuantity | null>();
const MAX_PARSED = 4096;

interface ParsedQuantity {
  readonly nano: bigint;
  /** `MilliValue()`, as a number. */
  readonly milli: number;
}

function parsed(text: string): ParsedQuantity | null {
  let known = PARSED.get(text);
  if (known === undefined) {
    const nano = parseQuantityText(text);
    known = nano === null ? null : { nano, milli: Number(nanoToMilli(nano)) };
    if (PARSED.size >= MAX_PARSED) PARSED.clear();
    PARSED.set(text, known);
  }
  return known;
}

/**
 * Parses a quantity into nano units (10⁻⁹), rounding finer fractions up as Kubernetes does.
 * Returns `null` for text that is not a quantity.
 */
export function parseQuantityNano(text: string): bigint | null {
  return parsed(text)?.nano ?? null;
}

function parseQuantityText(text: string): bigint | null {
  const match = QUANTITY_PATTERN.exec(text.trim());
  if (!match) return null;
  const [, sign = '', number = '0', suffix, exponentText] = match;
  const [whole = '', fraction = ''] = number.split('.');
  const digits = BigInt(`${whole}${fraction}` || '0');
  let exponent = -fraction.length + 9;
  let multiplier = 1n;
  if (suffix !== undefined) {
    if (suffix in BINARY_SUFFIX_POWER) multiplier = 1n << BigInt(BINARY_SUFFIX_POWER[suffix] ?? 0);
    else exponent += DECIMAL_SUFFIX_EXPONENT[suffix] ?? 0;
  } else if (exponentText !== undefined) {
    exponent += Number.parseInt(exponentText, 10);
  }
  if (Math.abs(exponent) > 400) return null;
  const scaled = digits * multiplier;
  const nano = exponent >= 0 ? scaled * 10n ** BigInt(exponent) : ceilDiv(scaled, 10n ** BigInt(-exponent));
  return sign === '-' ? -nano : nano;
}

/** `Quantity.MilliValue()` of a nano-unit amount: milli units, rounded up. */
export function nanoToMilli(nano: bigint): bigint {
  return ceilDiv(nano, 1_000_000n);
}

/**
 * `MilliValue()` of a quantity string as a number (e.g. `"1500m"` → 1500, `"2"` → 2000,
 * `"0.0001"` → 1). Returns `null` when the text is not a quantity.
 */
export function quantityToMilli(text: string): number | null {
  return parsed(text)?.milli ?? null;
}

/**
 * `JSON.stringify({ ...base, ...overrides })` from pieces of `base` serialised once: what the
 * Service API sends is its (memoised) analysis detail with a few fields replaced or added per
 * request (the traffic figures at the current volume, the resourceVersion…), and serialising a
 * 5,000-endpoint detail (4.6 MB) on every request is most of that request's time.
 */

/** One own enumerable property of `base` with its value's JSON (`undefined` when JSON leaves it out). */
export type JsonPiece = readonly [key: string, json: string | undefined];

/** The pieces of `base`, in its key order (what {@link spreadJson} takes). */
export function jsonPieces(base: object): readonly JsonPiece[] {
  return Object.entries(base).map(([key, value]): JsonPiece => [key, JSON.stringify(value) as string | undefined]);
}

/**
 * The JSON text of `{ ...base, ...overrides }`, `base` given as its {@link jsonPieces}: an
 * override of a key of `base` keeps that key's place, the others follow in their order; keys
 * whose value JSON leaves out (`undefined`, functions) are left out, as `JSON.stringify` does.
 */
export function spreadJson(pieces: readonly JsonPiece[], overrides: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  const seen = new Set<string>();
  const push = (key: string, json: string | undefined) => {
    if (json !== undefined) parts.push(`${JSON.stringify(key)}:${json}`);
  };
  for (const [key, json] of pieces) {
    if (Object.prototype.hasOwnProperty.call(overrides, key)) {
      seen.add(key);
      push(key, JSON.stringify(overrides[key]) as string | undefined);
    } else push(key, json);
  }
  for (const [key, value] of Object.entries(overrides)) if (!seen.has(key)) push(key, JSON.stringify(value) as string | undefined);
  return `{${parts.join(',')}}`;
}

/** Stable, key-sorted JSON for comparing and printing values in vector diffs. */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** Appends `"<label>: expected X, got Y"` to `diffs` unless the two values are deeply equal. */
export function expectEqual(diffs: string[], label: string, expected: unknown, actual: unknown): void {
  const e = canonical(expected);
  const a = canonical(actual);
  if (e !== a) diffs.push(`${label}: expected ${e}, got ${a}`);
}

/** Like {@link expectEqual} for lists whose order does not matter (compared as sorted sets). */
export function expectSameSet(diffs: string[], label: string, expected: readonly string[] | null, actual: readonly string[] | null): void {
  const norm = (list: readonly string[] | null) => (list === null ? null : [...list].sort());
  expectEqual(diffs, label, norm(expected), norm(actual));
}

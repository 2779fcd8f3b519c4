/**
 * Equality of slim records: an object whose record did not change keeps the record the cache
 * holds, so a re-list or an update that touches nothing the record keeps (status heartbeats,
 * managed fields) does not look like a change.
 */

/** Structural equality of two slim records (plain data: objects, arrays, primitives). */
export function sameRecord(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameRecord(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i] as string;
    if (key !== keysB[i] || !sameRecord((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

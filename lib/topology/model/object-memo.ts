/**
 * A value computed once per object and kept for as long as the object lives: the engine's records
 * and results are immutable, so what is derived from one (its JSON, a key) never goes stale.
 */

/** `compute(key)`, kept in `cache` by `key` (computed again only when it gave `undefined`). */
export function memoOnObject<K extends object, V>(cache: WeakMap<K, V>, key: K, compute: (key: K) => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute(key);
    cache.set(key, value);
  }
  return value;
}

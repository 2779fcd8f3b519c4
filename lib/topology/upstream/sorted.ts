/**
 * Sorting helpers for the small key lists analyses sort over and over (zone names, mostly already
 * in order): the same result as `Array.prototype.sort()` without its allocations when the list is
 * sorted already.
 */
import type { ValueByZone } from './types';

/** `keys` sorted in default (code unit) order, in place; a list already in order is returned untouched. */
export function sortStrings(keys: string[]): string[] {
  let i = 1;
  while (i < keys.length && (keys[i - 1] as string) <= (keys[i] as string)) i++;
  if (i >= keys.length) return keys;
  if (keys.length > 16) return keys.sort();
  // Insertion sort: no allocation, and the same order as sort() (strings compare totally).
  for (; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** The keys of `object` in default sort order (`Object.keys(object).sort()`). */
export function sortedKeys(object: object): string[] {
  return sortStrings(Object.keys(object));
}

/**
 * {@link sortedKeys} of a record that is never changed (CPU ratios, allocation tables), read-only:
 * one list per record, which callers share (a pass asks for those of a few hundred records thousands of times).
 */
export function sortedKeysOf(record: object): readonly string[] {
  let keys = SORTED_KEYS.get(record);
  if (keys === undefined) {
    keys = sortedKeys(record);
    SORTED_KEYS.set(record, keys);
  }
  return keys;
}

const SORTED_KEYS = new WeakMap<object, readonly string[]>();

/** The entries as a record with its keys in default sort order (entries already in order are not sorted again). */
export function sortedRecord<T>(entries: Iterable<[string, T]>): ValueByZone<T> {
  const list = [...entries];
  let ordered = true;
  for (let i = 1; i < list.length && ordered; i++) ordered = (list[i - 1] as [string, T])[0] < (list[i] as [string, T])[0];
  if (!ordered) list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: ValueByZone<T> = {};
  for (const [key, value] of list) out[key] = value;
  return out;
}

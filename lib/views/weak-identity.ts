/**
 * Identity checks against objects a memo must not keep alive: a cache keyed by a long-lived object
 * (a Service's detail, a cluster source) records what it was computed from weakly, so a superseded
 * preparation, measurement or analysis can go while the entry stays.
 */

/** A weak reference to `value`, `null` for `null`. */
export function weakly<T extends object>(value: T | null): WeakRef<T> | null {
  return value === null ? null : new WeakRef(value);
}

/** Whether `ref` still refers to `value` (`null` refers to `null`; a collected target to nothing). */
export function refersTo<T extends object>(ref: WeakRef<T> | null, value: T | null): boolean {
  return ref === null ? value === null : value !== null && ref.deref() === value;
}

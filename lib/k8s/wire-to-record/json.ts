/**
 * Reading plain JSON as served over the wire (or printed by `kubectl -o json|yaml`, or stored by the
 * simulator): narrowing helpers that turn a field of the wrong type into a default (`null`, `{}`,
 * `[]`) instead of an exception. Every projection (./node, ./service, …) reads objects with them.
 */

/** A JSON object as read from the wire. */
export type Json = Record<string, unknown>;

/** Narrows to a plain object. */
export function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a plain object, else an empty object. */
export function obj(value: unknown): Json {
  return isJsonObject(value) ? value : {};
}

/** `value` when it is a string, else `null`. */
export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** `value` when it is a finite number, else `null`. */
export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** `value` when it is a boolean, else `null`. */
export function bool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** `value` when it is an array, else an empty array. */
export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string map (labels, annotations, selectors); non-string values are dropped. */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isJsonObject(value)) return out;
  for (const [key, entry] of Object.entries(value)) if (typeof entry === 'string') out[key] = entry;
  return out;
}

/** Accepts Date objects (client-node deserialises timestamps) and strings. */
export function timestamp(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The strings of a list (other entries dropped). */
export function stringList(value: unknown): string[] {
  return arr(value).map(str).filter((s): s is string => s !== null);
}

/**
 * `JSON.stringify(value, null, 2) + '\n'`, written in pieces. A report of a 5,000-node cluster is
 * ~200 MB of JSON: as one string it is built, copied into one more buffer of the same size to be
 * written, and close to the longest string V8 allows (2^29 − 24 characters), so a larger cluster
 * would fail with "Invalid string length". Here the outer objects and arrays (the report, its
 * `services`, the sections of several clusters) are walked, everything deeper is stringified one
 * value at a time, and the text goes out in chunks of about 1 MiB. The bytes are the same as the
 * single string's (json-stream.test.ts).
 */

/**
 * Objects and arrays down to this depth are walked by default; deeper values are stringified
 * whole. 5 reaches every Service of the several-cluster output (`clusters[].report.services[]`).
 */
const WALK_DEPTH = 5;

/** The depth of a single report's Services (report → `services` → each): they are stringified one by one. */
export const REPORT_SERVICE_DEPTH = 2;

/** Text collected before it is handed to `out`. */
const CHUNK_CHARS = 1 << 20;

/**
 * `JSON.stringify(item, null, 2)` with every line after the first indented by `levels` levels, as
 * the text of a value at that depth (`'null'` for what it leaves out): the value is stringified as
 * the innermost element of `levels` nested arrays and the arrays' own text is cut off. Stringifying
 * it alone and indenting its lines afterwards made each Service's ~20 KB twice.
 *
 * `[[v]]` at levels 2 is `[\n  [\n    v…\n  ]\n]`: each level k before it writes `[\n` after 2k
 * spaces, and the value's first line is indented 2·levels; after it, each level writes `\n`, its
 * 2k spaces and `]`. So the value is what lies between the first levels² + 3·levels characters and
 * the last levels² + levels.
 */
function nestedText(item: unknown, levels: number): string {
  let wrapped: unknown = item;
  for (let level = 0; level < levels; level++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2) as string | undefined;
  if (text === undefined) return 'null';
  return text.slice(levels * levels + 3 * levels, text.length - (levels * levels + levels));
}

/** What `JSON.stringify` does to a value before serialising it: `toJSON(key)` when it has one. */
function jsonValue(holderKey: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON: (key: string) => unknown }).toJSON(holderKey);
  }
  return value;
}

/** Whether `JSON.stringify` leaves a property with this value out (an array writes `null` instead). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * Writes `JSON.stringify(value, null, 2)` followed by a newline to `out`, in pieces. Values deeper
 * than `walkDepth` are stringified whole: each walked key and bracket is one more small piece, so
 * the output is fastest when the walk stops where the pieces are small enough anyway. One Service's
 * report is ~20 KB of text; a single report stringifies each Service whole at depth 2, which took
 * ~1.3 s instead of ~1.75 s at depth 5 for realistic L's 9,913 Services (200 MB).
 */
export function writeJson(value: unknown, out: (text: string) => void, walkDepth = WALK_DEPTH): void {
  let pending: string[] = [];
  let pendingChars = 0;
  const emit = (text: string): void => {
    pending.push(text);
    pendingChars += text.length;
    if (pendingChars >= CHUNK_CHARS) {
      out(pending.join(''));
      pending = [];
      pendingChars = 0;
    }
  };
  // Every walked level indents by two spaces more (`inner` below), so `indent` is 2·depth spaces.
  const whole = (item: unknown, indent: string): string => nestedText(item, indent.length / 2);
  const walk = (item: unknown, indent: string, depth: number): void => {
    if (item === null || typeof item !== 'object' || depth >= walkDepth) {
      emit(whole(item, indent));
      return;
    }
    const inner = `${indent}  `;
    if (Array.isArray(item)) {
      if (item.length === 0) {
        emit('[]');
        return;
      }
      emit('[');
      for (let i = 0; i < item.length; i++) {
        emit(i === 0 ? `\n${inner}` : `,\n${inner}`);
        const element = jsonValue(String(i), item[i]);
        if (omitted(element)) emit('null');
        else walk(element, inner, depth + 1);
      }
      emit(`\n${indent}]`);
      return;
    }
    let first = true;
    for (const key of Object.keys(item)) {
      const property = jsonValue(key, (item as Record<string, unknown>)[key]);
      if (omitted(property)) continue;
      emit(`${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `);
      first = false;
      walk(property, inner, depth + 1);
    }
    emit(first ? '{}' : `\n${indent}}`);
  };
  const top = jsonValue('', value);
  if (omitted(top)) throw new TypeError('writeJson: nothing to write (the value serialises to undefined)');
  walk(top, '', 0);
  emit('\n');
  if (pending.length > 0) out(pending.join(''));
}

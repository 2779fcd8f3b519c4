/**
 * What is wrong with a piece of JSON, said the way a user can act on: a duplicate key as a dotted
 * path (`spec.ports[1].name`), a syntax error's line and column without the parser's echo of the
 * input, and the object it concerns (`Kind namespace/name`).
 */
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COMMA, NEWLINE, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes';

/** Counts the keys of every object in a parsed JSON value (iteratively: any depth). */
export function countKeys(value: unknown): number {
  let keys = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const element of v) if (element !== null && typeof element === 'object') stack.push(element);
    } else {
      for (const key in v) {
        keys++;
        const element = (v as Record<string, unknown>)[key];
        if (element !== null && typeof element === 'object') stack.push(element);
      }
    }
  }
  return keys;
}

/**
 * The first duplicate key of JSON text known to be valid, as a dotted path (`metadata.labels.app`,
 * `spec.ports[1].name`); `null` when there is none. Slow; only run once a duplicate is known.
 */
export function findDuplicateJsonKey(text: string): string | null {
  interface Frame {
    readonly keys: Set<string> | null;
    readonly path: string;
    index: number;
    key: string | null;
  }
  const stack: Frame[] = [];
  let expectKey = false;
  const childPath = (): string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return '';
    if (top.keys === null) return `${top.path}[${top.index}]`;
    return top.path === '' ? (top.key ?? '') : `${top.path}.${top.key ?? ''}`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== QUOTE) j += text.charCodeAt(j) === BACKSLASH ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top !== undefined && top.keys !== null) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return top.path === '' ? key : `${top.path}.${key}`;
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const path = childPath();
      stack.push({ keys: c === OPEN_BRACE ? new Set() : null, path, index: 0, key: null });
      expectKey = c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      stack.pop();
      expectKey = false;
    } else if (c === COMMA) {
      const top = stack[stack.length - 1];
      if (top !== undefined) {
        if (top.keys === null) top.index++;
        else expectKey = true;
      }
    }
  }
  return null;
}

/** `Kind namespace/name` of a parsed object, `null` when it names neither. */
export function objectLabelOf(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { kind, metadata } = value as { kind?: unknown; metadata?: unknown };
  const meta = metadata !== null && typeof metadata === 'object' ? (metadata as { name?: unknown; namespace?: unknown }) : {};
  const name = typeof meta.name === 'string' ? meta.name : null;
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? `${meta.namespace}/` : '';
  if (typeof kind !== 'string' && name === null) return null;
  return `${typeof kind === 'string' ? kind : 'object'}${name !== null ? ` ${namespace}${name}` : ''}`;
}

/** `JSON.parse`'s error position (V8: "… at position N"), as 1-based line and column in `text`. */
export function jsonErrorPosition(message: string, text: string): { line: number; column: number } | null {
  const match = /at position (\d+)/.exec(message);
  if (!match) {
    if (/end of JSON input/i.test(message)) return positionOf(text, text.length);
    return null;
  }
  return positionOf(text, Number(match[1]));
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === NEWLINE) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** The parser's message without V8's position suffix and echo of the input. */
export function cleanJsonMessage(message: string): string {
  return message
    .replace(/,? ?"(?:[^"\\]|\\.)*"(?:\.\.\.)? is not valid JSON$/, '')
    .replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?$/, '')
    .trim();
}

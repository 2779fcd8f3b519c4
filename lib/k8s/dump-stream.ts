/**
 * Reading a kubectl dump piece by piece, so that a dump larger than memory (or than the ~512 MB a
 * V8 string can hold) loads: `kubectl get pods -A -o json` at 150,000 pods is several hundred MB.
 *
 * Two splitters, both fed with byte chunks ({@link DumpSplitter.push}) and closed with
 * {@link DumpSplitter.end}; each calls `emit` with {@link DumpEvent}s in file order:
 * - {@link JsonDumpSplitter}: a sequence of JSON values (`kubectl get … -o json`, several of them
 *   appended to one file, `kubectl get --raw`). A top-level object's `items` array is split
 *   element by element; every element (and the rest of the object, its "header", with
 *   `"items": []`) is parsed on its own with `JSON.parse`. Duplicate keys, which `JSON.parse`
 *   silently resolves to the last value, are an error naming the key.
 * - {@link YamlDumpSplitter}: YAML split at document markers (`---`, `...` at column 0) and, inside
 *   a document whose root mapping has a block-sequence `items:` at column 0 (what `kubectl -o yaml`
 *   prints for a List), item by item; each piece goes to the `yaml` parser (unique keys).
 *
 * Item events of a document come before its `document` event (kubectl prints `items` before
 * `kind`); the reader decides what the items were once it sees the document's kind.
 *
 * Guards, so that no input crashes the process: a piece larger than {@link MAX_PIECE_BYTES}
 * (a single Kubernetes object is at most ~1.5 MiB, the etcd limit) and nesting deeper than
 * {@link MAX_NESTING} are errors with the way out in the message. Pure: no I/O.
 */
import { StringDecoder } from 'node:string_decoder';
import type { YamlDocumentError } from './kubectl-dump';
import { readYamlDocuments } from './kubectl-dump';

/** Largest piece (one List item, or one document that is not split) read, in bytes. */
export const MAX_PIECE_BYTES = 64 * 1024 * 1024;

/** Deepest nesting of JSON arrays/objects or YAML flow collections read. */
export const MAX_NESTING = 500;

/** What a splitter found. */
export type DumpEvent =
  | { readonly type: 'item'; readonly document: number; readonly item: number; readonly value: unknown }
  | {
      readonly type: 'document';
      readonly document: number;
      /** The document; when its `items` were split off, `items` is `[]` here and `splitItems` counts them. */
      readonly value: unknown;
      readonly splitItems: number | null;
    }
  | {
      readonly type: 'error';
      readonly document?: number;
      readonly item?: number;
      readonly line?: number;
      readonly column?: number;
      /** `Kind namespace/name` of the object, when known. */
      readonly object?: string;
      readonly message: string;
    };

/** A streaming splitter of dump text. */
export interface DumpSplitter {
  push(chunk: Uint8Array): void;
  end(): void;
  /** Documents started so far. */
  readonly documents: number;
}

const tooLarge = (what: string): string =>
  `${what} is larger than ${MAX_PIECE_BYTES / 1024 / 1024} MiB, more than any Kubernetes object; zonescope reads a List item by item, ` +
  'so dump with `kubectl get TYPE -A -o json` (or -o yaml), or split the dump by type into files of a folder (--snapshot FOLDER)';

// ---------------------------------------------------------------------------------------------
// JSON

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const NEWLINE = 0x0a;

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Counts the keys of every object in a parsed JSON value (iteratively: any depth). */
function countKeys(value: unknown): number {
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
function objectLabelOf(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { kind, metadata } = value as { kind?: unknown; metadata?: unknown };
  const meta = metadata !== null && typeof metadata === 'object' ? (metadata as { name?: unknown; namespace?: unknown }) : {};
  const name = typeof meta.name === 'string' ? meta.name : null;
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? `${meta.namespace}/` : '';
  if (typeof kind !== 'string' && name === null) return null;
  return `${typeof kind === 'string' ? kind : 'object'}${name !== null ? ` ${namespace}${name}` : ''}`;
}

/** `JSON.parse`'s error position (V8: "… at position N"), as 1-based line and column in `text`. */
function jsonErrorPosition(message: string, text: string): { line: number; column: number } | null {
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
function cleanJsonMessage(message: string): string {
  return message
    .replace(/,? ?"(?:[^"\\]|\\.)*"(?:\.\.\.)? is not valid JSON$/, '')
    .replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?$/, '')
    .trim();
}

/** A copy of `chunk[start, end)` (a Buffer's own `slice` is a view, and callers reuse chunks). */
function copyOf(chunk: Uint8Array, start: number, end: number): Uint8Array {
  return Uint8Array.prototype.slice.call(chunk, start, end);
}

/** Bytes captured across chunks. */
class Capture {
  private parts: Uint8Array[] = [];
  private size = 0;
  /** Start of the capture in the current chunk, `-1` when not capturing. */
  start = -1;
  /** `:` bytes outside strings seen while capturing (one per object key). */
  colons = 0;
  /** Line and column (1-based) where the capture started. */
  line = 1;
  column = 1;
  overflow = false;

  begin(at: number, line: number, column: number): void {
    this.parts = [];
    this.size = 0;
    this.start = at;
    this.colons = 0;
    this.line = line;
    this.column = column;
    this.overflow = false;
  }

  get active(): boolean {
    return this.start >= 0;
  }

  /** Keeps `chunk[start, end)` (at the end of a chunk, or when pausing/finishing). */
  take(chunk: Uint8Array, end: number): void {
    if (this.start < 0) return;
    if (!this.overflow && end > this.start) {
      this.size += end - this.start;
      if (this.size > MAX_PIECE_BYTES) {
        this.overflow = true;
        this.parts = [];
      } else {
        this.parts.push(copyOf(chunk, this.start, end));
      }
    }
    this.start = 0;
  }

  /** Adds literal bytes (the `]` closing a split `items`). */
  append(bytes: Uint8Array): void {
    if (!this.overflow) {
      this.parts.push(bytes);
      this.size += bytes.length;
    }
  }

  pause(): void {
    this.start = -1;
  }

  resume(at: number): void {
    this.start = at;
  }

  /** The captured text (after {@link take} of the last part); ends the capture. */
  finish(): string {
    this.start = -1;
    const text = Buffer.concat(this.parts, this.size).toString('utf8');
    this.parts = [];
    this.size = 0;
    return text;
  }
}

const CLOSING_BRACKET = new Uint8Array([CLOSE_BRACKET]);

/**
 * Splits a sequence of JSON values, each top-level object's `items` array element by element.
 * See the module comment.
 */
export class JsonDumpSplitter implements DumpSplitter {
  documents = 0;
  /** Container kinds of the open brackets (`{` or `[`), `depth` of them. */
  private readonly stack = new Uint8Array(MAX_NESTING + 1);
  private depth = 0;
  private inString = false;
  /** Backslashes just before the end of the previous chunk, inside a string. */
  private backslashes = 0;
  private line = 1;
  private column = 0;
  private failed = false;
  private first = true;
  /** Inside the top-level object: the next string is a key. */
  private expectKey = false;
  /** The last key of the top-level object, while it is short. */
  private keyParts: Uint8Array[] | null = null;
  private lastKey = '';
  /** Splitting the top-level object's `items`: the next element's index. */
  private inItems = false;
  private itemIndex = 0;
  private readonly header = new Capture();
  private readonly item = new Capture();
  /** Inside the split `items`: 0 expects an element or `]`, 1 an element is open, 2 expects `,` or `]`, 3 expects an element. */
  private itemState = 0;

  constructor(private readonly emit: (event: DumpEvent) => void) {}

  private fail(message: string, extra: { document?: number; item?: number } = {}): void {
    this.failed = true;
    this.emit({ type: 'error', ...extra, line: this.line, column: this.column, message });
  }

  private emitPiece(capture: Capture, text: string, item: number | null): void {
    const where = item === null ? { document: this.documents } : { document: this.documents, item };
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const pos = jsonErrorPosition(message, text);
      this.emit({
        type: 'error',
        ...where,
        ...(pos ? { line: capture.line + pos.line - 1, column: pos.line === 1 ? capture.column + pos.column - 1 : pos.column } : {}),
        message: `JSON syntax error: ${cleanJsonMessage(message)}`,
      });
      return;
    }
    if (countKeys(value) !== capture.colons) {
      const key = findDuplicateJsonKey(text);
      if (key !== null) {
        const label = objectLabelOf(value);
        this.emit({
          type: 'error',
          ...where,
          ...(label !== null ? { object: label } : {}),
          message: `duplicate key "${key}": JSON would silently keep only its last value, and Kubernetes refuses such an object`,
        });
        return;
      }
    }
    if (item === null) this.emit({ type: 'document', document: this.documents, value, splitItems: this.splitItems });
    else this.emit({ type: 'item', document: this.documents, item, value });
  }

  private splitItems: number | null = null;

  push(chunk: Uint8Array): void {
    if (this.failed) return;
    let i = 0;
    const n = chunk.length;
    if (this.first) {
      this.first = false;
      if (n >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3; // BOM
    }
    while (i < n) {
      if (this.inString) {
        const q = chunk.indexOf(QUOTE, i);
        const stop = q < 0 ? n : q;
        let run = 0;
        let k = stop - 1;
        while (k >= i && chunk[k] === BACKSLASH) {
          run++;
          k--;
        }
        if (k < i) run += this.backslashes;
        if (this.keyParts !== null) {
          this.keyParts.push(copyOf(chunk, i, q < 0 ? n : q));
          if (this.keyParts.length > 64) {
            // A key this long (spanning many chunks) is not `items`: stop collecting it.
            this.keyParts = null;
            this.lastKey = '';
          }
        }
        this.column += stop - i;
        if (q < 0) {
          this.backslashes = run;
          break;
        }
        this.backslashes = 0;
        i = q + 1;
        this.column++;
        if (run % 2 === 0) {
          this.inString = false;
          if (this.keyParts !== null) {
            this.lastKey = this.keyParts.length === 1 && this.keyParts[0] !== undefined ? Buffer.from(this.keyParts[0]).toString('utf8') : Buffer.concat(this.keyParts).toString('utf8');
            this.keyParts = null;
          }
        } else if (this.keyParts !== null) {
          this.keyParts.push(copyOf(chunk, q, q + 1));
        }
        continue;
      }
      const c = chunk[i] as number;
      if (c === NEWLINE) {
        this.line++;
        this.column = 0;
        i++;
        continue;
      }
      this.column++;
      if (isJsonSpace(c)) {
        i++;
        continue;
      }
      if (this.depth === 0) {
        this.documents++;
        if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
          this.fail(`expected a Kubernetes object or List (a JSON object), found ${JSON.stringify(Buffer.from(chunk.slice(i, i + 20)).toString('utf8'))}…`, { document: this.documents });
          return;
        }
        this.splitItems = null;
        this.inItems = false;
        this.header.begin(i, this.line, this.column);
      }
      if (this.inItems && this.depth === 2) {
        if (c === COMMA || c === CLOSE_BRACKET) {
          if (this.itemState === 3 || (c === COMMA && this.itemState === 0)) {
            this.fail(`JSON syntax error: unexpected ${String.fromCharCode(c)} in items`, { document: this.documents, item: this.itemIndex });
            return;
          }
        } else if (!this.item.active) {
          if (this.itemState === 2) {
            this.fail(`JSON syntax error: expected , or ] after items[${this.itemIndex - 1}]`, { document: this.documents, item: this.itemIndex });
            return;
          }
          this.item.begin(i, this.line, this.column);
          this.itemState = 1;
        }
      }
      switch (c) {
        case QUOTE:
          this.inString = true;
          this.backslashes = 0;
          if (this.depth === 1 && this.expectKey && this.stack[1] === OPEN_BRACE) {
            this.keyParts = [];
            this.expectKey = false;
          }
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
          if (this.depth >= MAX_NESTING) {
            this.fail(`nesting deeper than ${MAX_NESTING} levels of [ and {: not a Kubernetes dump (unbalanced brackets?)`, { document: this.documents });
            return;
          }
          if (c === OPEN_BRACKET && this.depth === 1 && this.stack[1] === OPEN_BRACE && this.lastKey === 'items' && !this.expectKey && this.splitItems === null) {
            // `"items": [` of the top-level object: split it.
            this.header.take(chunk, i + 1);
            this.header.pause();
            this.inItems = true;
            this.itemIndex = 0;
            this.itemState = 0;
            this.depth++;
            this.stack[this.depth] = c;
            i++;
            continue;
          }
          this.depth++;
          this.stack[this.depth] = c;
          if (this.depth === 1) this.expectKey = c === OPEN_BRACE;
          this.lastKey = this.depth === 1 ? '' : this.lastKey;
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET: {
          const open = this.stack[this.depth];
          if (this.depth === 0 || (c === CLOSE_BRACE) !== (open === OPEN_BRACE)) {
            this.fail(`unexpected ${String.fromCharCode(c)}${this.depth === 0 ? ' outside any object or list' : ` closing a ${open === OPEN_BRACE ? '{' : '['}`}`, { document: this.documents });
            return;
          }
          if (this.inItems && this.depth === 2) {
            // `]` closing the split `items`.
            if (this.item.active) this.finishItem(chunk, i);
            this.inItems = false;
            this.splitItems = this.itemIndex;
            this.depth--;
            this.header.append(CLOSING_BRACKET);
            this.header.resume(i + 1);
            i++;
            continue;
          }
          this.depth--;
          if (this.inItems && this.depth === 2 && this.item.active) {
            this.finishItem(chunk, i + 1);
            i++;
            continue;
          }
          if (this.depth === 0) {
            this.header.take(chunk, i + 1);
            const text = this.header.finish();
            if (this.header.overflow) this.emit({ type: 'error', document: this.documents, message: tooLarge(`document ${this.documents}`) });
            else this.emitPiece(this.header, text, null);
            this.header.colons = 0;
            i++;
            continue;
          }
          break;
        }
        case COMMA:
          if (this.depth === 1) this.expectKey = this.stack[1] === OPEN_BRACE;
          if (this.inItems && this.depth === 2) {
            if (this.item.active) this.finishItem(chunk, i);
            this.itemState = 3;
            i++;
            continue;
          }
          break;
        case COLON:
          if (this.item.active) this.item.colons++;
          else if (this.header.active) this.header.colons++;
          break;
        default:
          break;
      }
      i++;
    }
    this.header.take(chunk, n);
    this.item.take(chunk, n);
  }

  private finishItem(chunk: Uint8Array, end: number): void {
    this.item.take(chunk, end);
    const text = this.item.finish();
    const index = this.itemIndex++;
    this.itemState = 2;
    if (this.item.overflow) this.emit({ type: 'error', document: this.documents, item: index, message: tooLarge(`items[${index}]`) });
    else this.emitPiece(this.item, text, index);
  }

  end(): void {
    if (this.failed) return;
    if (this.inString || this.depth > 0) {
      this.fail(`unexpected end of the file: ${this.inString ? 'a string and ' : ''}${this.depth} bracket(s) not closed`, { document: this.documents });
      return;
    }
    if (this.documents === 0) this.emit({ type: 'error', message: 'the file is empty' });
  }
}

// ---------------------------------------------------------------------------------------------
// YAML

const DOCUMENT_START = /^---(?:[ \t]|$)/;
const DOCUMENT_END = /^\.\.\.(?:[ \t]|$)/;
const ITEMS_KEY = /^items:[ \t]*(?:#.*)?$/;
const BLANK_OR_COMMENT = /^[ \t]*(?:#.*)?$/;

/**
 * How deep `[`/`{` flow collections nest in YAML text, counting brackets that start a token
 * (after a line start, blank, `[`, `{`, `,` or `:`); quotes are not tracked, so this is an upper
 * bound good enough to refuse text the parser would choke on.
 */
export function flowNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let previous = 0x0a;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (previous === 0x0a || previous === 0x20 || previous === 0x09 || previous === 0x5b || previous === 0x7b || previous === 0x2c || previous === 0x3a) {
        depth++;
        if (depth > max) max = depth;
      }
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth--;
    }
    previous = c;
  }
  return max;
}

interface YamlPiece {
  lines: string[];
  bytes: number;
  /** Where runs of the piece's lines are in the file: from piece line `at` (0-based) on, file line `file` (1-based). */
  runs: { at: number; file: number }[];
  overflow: boolean;
}

/** The file line (1-based) of a piece's line (1-based). */
function fileLine(piece: YamlPiece, line: number): number {
  let run = piece.runs[0] ?? { at: 0, file: 1 };
  for (const r of piece.runs) if (r.at <= line - 1) run = r;
  return run.file + (line - 1 - run.at);
}

/** Splits YAML text into documents and List items. See the module comment. */
export class YamlDumpSplitter implements DumpSplitter {
  documents = 0;
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';
  private line = 0;
  /** Lines before the first content of a document (comments, directives, blank). */
  private prelude: string[] = [];
  private preludeLine = 1;
  private header: YamlPiece | null = null;
  private item: YamlPiece | null = null;
  private inItems = false;
  /** Column of the `-` of the items' block sequence, once seen. */
  private itemIndent = -1;
  private itemIndex = 0;
  private splitItems: number | null = null;
  private first = true;

  constructor(
    private readonly emit: (event: DumpEvent) => void,
    private readonly maxAliasCount: number,
  ) {}

  push(chunk: Uint8Array): void {
    let text = this.decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    text = this.rest + text;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      this.onLine(text.slice(start, nl + 1));
      start = nl + 1;
    }
    this.rest = text.slice(start);
    if (this.rest.length > MAX_PIECE_BYTES) {
      // One line longer than any piece may be: read it into the current piece, which overflows.
      this.onLine(this.rest);
      this.rest = '';
    }
  }

  end(): void {
    const tail = this.rest + this.decoder.end();
    this.rest = '';
    if (tail !== '') this.onLine(tail);
    this.closeDocument();
  }

  private newPiece(): YamlPiece {
    return { lines: [], bytes: 0, runs: [], overflow: false };
  }

  /** Adds one line (read as file line `line`, default the current one) to the piece. */
  private add(piece: YamlPiece, text: string, line = this.line): void {
    if (piece.overflow) return;
    piece.bytes += text.length;
    if (piece.bytes > MAX_PIECE_BYTES) {
      piece.overflow = true;
      piece.lines = [];
      return;
    }
    const last = piece.runs[piece.runs.length - 1];
    if (last === undefined || last.file + (piece.lines.length - last.at) !== line) piece.runs.push({ at: piece.lines.length, file: line });
    piece.lines.push(text);
  }

  private onLine(text: string): void {
    this.line++;
    const body = text.endsWith('\n') ? text.slice(0, text.endsWith('\r\n') ? -2 : -1) : text;
    if (DOCUMENT_START.test(body)) {
      this.closeDocument();
      this.startDocument();
      this.add(this.header as YamlPiece, text);
      return;
    }
    if (DOCUMENT_END.test(body)) {
      if (this.header !== null) this.add(this.header, text);
      this.closeDocument();
      return;
    }
    if (this.header === null) {
      if (BLANK_OR_COMMENT.test(body) || body.startsWith('%')) {
        if (this.prelude.length === 0) this.preludeLine = this.line;
        this.prelude.push(text);
        return;
      }
      this.startDocument();
    }
    const header = this.header as YamlPiece;
    if (this.inItems) {
      const blank = BLANK_OR_COMMENT.test(body);
      if (this.itemIndent < 0 && !blank) {
        const dash = /^( *)-(?:[ \t]|$)/.exec(body);
        if (dash === null) {
          this.endItems();
        } else {
          this.itemIndent = dash[1]?.length ?? 0;
        }
      }
      if (this.inItems) {
        const indent = body.length - body.trimStart().length;
        if (!blank && indent === this.itemIndent && body.charAt(indent) === '-' && /^-(?:[ \t]|$)/.test(body.slice(indent))) {
          this.finishItem();
          this.item = this.newPiece();
          // Columns stay as they are: the `-` becomes a blank, so the item is the root mapping.
          this.add(this.item, `${text.slice(0, indent)} ${text.slice(indent + 1)}`);
          return;
        }
        if (blank || indent > this.itemIndent) {
          if (this.item !== null) this.add(this.item, text);
          return;
        }
        this.endItems();
      }
    }
    if (ITEMS_KEY.test(body) && this.splitItems === null) {
      this.add(header, 'items: []\n');
      this.inItems = true;
      this.itemIndent = -1;
      this.itemIndex = 0;
      return;
    }
    this.add(header, text);
  }

  private startDocument(): void {
    this.documents++;
    this.header = this.newPiece();
    this.prelude.forEach((l, i) => this.add(this.header as YamlPiece, l, this.preludeLine + i));
    this.prelude = [];
    this.inItems = false;
    this.item = null;
    this.splitItems = null;
  }

  private endItems(): void {
    this.finishItem();
    this.inItems = false;
    this.splitItems = this.itemIndex;
  }

  private finishItem(): void {
    const piece = this.item;
    if (piece === null) return;
    this.item = null;
    const index = this.itemIndex++;
    this.parse(piece, index);
  }

  private closeDocument(): void {
    if (this.header === null) {
      this.prelude = [];
      return;
    }
    if (this.inItems) this.endItems();
    const piece = this.header;
    this.header = null;
    this.parse(piece, null);
  }

  private parse(piece: YamlPiece, item: number | null): void {
    const document = this.documents;
    const where = item === null ? { document } : { document, item };
    if (piece.overflow) {
      this.emit({ type: 'error', ...where, message: tooLarge(item === null ? `document ${document}` : `items[${item}]`) });
      return;
    }
    const text = piece.lines.join('');
    if (flowNestingDepth(text) > MAX_NESTING) {
      this.emit({ type: 'error', ...where, line: fileLine(piece, 1), message: `[ and { nested deeper than ${MAX_NESTING} levels: not a Kubernetes dump (unbalanced brackets?)` });
      return;
    }
    let parsed;
    try {
      parsed = readYamlDocuments(text, this.maxAliasCount);
    } catch (error) {
      this.emit({ type: 'error', ...where, message: `YAML could not be parsed: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    // A piece is one document; a document marker line with nothing else yields an empty one.
    const [first] = parsed;
    if (first === undefined) {
      if (item === null) this.emit({ type: 'document', document, value: null, splitItems: this.splitItems });
      return;
    }
    if (!first.ok) {
      const [problem] = first.errors;
      if (problem !== undefined) this.emit({ type: 'error', ...where, ...this.errorPosition(problem, piece), message: yamlMessage(problem) });
      return;
    }
    if (item === null) this.emit({ type: 'document', document, value: first.value, splitItems: this.splitItems });
    else this.emit({ type: 'item', document, item, value: first.value });
  }

  private errorPosition(problem: YamlDocumentError, piece: YamlPiece): { line?: number; column?: number } {
    if (problem.line === undefined || problem.column === undefined) return {};
    return { line: fileLine(piece, problem.line), column: problem.column };
  }
}

function yamlMessage(problem: YamlDocumentError): string {
  if (problem.type === 'conversion') return `YAML could not be converted: ${problem.message}`;
  return `YAML syntax error: ${problem.message.replace(/ at line \d+, column \d+:?$/, '')}`;
}

/** Feeds a whole text to a splitter (tests, uploads, small files). */
export function splitText(splitter: DumpSplitter, text: string): void {
  splitter.push(Buffer.from(text, 'utf8'));
  splitter.end();
}

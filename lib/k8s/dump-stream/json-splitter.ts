/**
 * The JSON dump splitter: a sequence of JSON values (`kubectl get … -o json`, several of them
 * appended to one file, `kubectl get --raw`), each top-level object's `items` array split element
 * by element. Every element, and the rest of the object (its "header", with `"items": []`), is
 * parsed on its own with `JSON.parse`; duplicate keys, which `JSON.parse` silently resolves to the
 * last value, are an error naming the key. See ./dump-events for the events and limits.
 */
import type { DumpEvent, DumpSplitter } from './dump-events';
import { MAX_NESTING, tooLarge } from './dump-events';
import { BACKSLASH, Capture, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, copyOf, isJsonSpace, NEWLINE, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes';
import { cleanJsonMessage, countKeys, findDuplicateJsonKey, jsonErrorPosition, objectLabelOf } from './json-problems';

const CLOSING_BRACKET = new Uint8Array([CLOSE_BRACKET]);

/** Splits a sequence of JSON values, each top-level object's `items` array element by element. */
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

/**
 * The YAML dump splitter: text split at document markers (`---`, `...` at column 0) and, inside a
 * document whose root mapping has a block-sequence `items:` at column 0 (what `kubectl -o yaml`
 * prints for a List), item by item; each piece goes to the `yaml` parser (unique keys), and its
 * problems name file lines. See ./dump-events for the events and limits.
 */
import { StringDecoder } from 'node:string_decoder';
import type { YamlDocumentError } from '../kubectl-dump';
import { readYamlDocuments } from '../kubectl-dump';
import type { DumpEvent, DumpSplitter } from './dump-events';
import { MAX_NESTING, MAX_PIECE_BYTES, tooLarge } from './dump-events';

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

/** Whether JSON carries the value as it is: strings, finite numbers (not -0), booleans, null, arrays and plain objects. */
function isJsonSafe(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isJsonSafe);
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      for (const key in value) if (!isJsonSafe((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

/**
 * The parsed value with strings of its own. The `yaml` parser's scalars are slices of the text it
 * parsed, and V8 keeps a slice's whole parent string alive: every name or label a record keeps
 * would hold its object's text (a few KiB per Pod of a kubectl dump, so the whole dump over a
 * load). A JSON round trip copies every string; a value JSON would change (NaN, ±Infinity, -0, a
 * YAML 1.1 timestamp's Date) is kept as it is.
 */
export function detachFromText(value: unknown): unknown {
  return value !== null && typeof value === 'object' && isJsonSafe(value) ? (JSON.parse(JSON.stringify(value)) as unknown) : value;
}

/** Splits YAML text into documents and List items (see the module comment). */
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
    const value = detachFromText(first.value);
    if (item === null) this.emit({ type: 'document', document, value, splitItems: this.splitItems });
    else this.emit({ type: 'item', document, item, value });
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

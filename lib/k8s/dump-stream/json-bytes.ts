/**
 * JSON at the byte level, for the streaming splitter: the bytes of its syntax, and the capture of
 * one piece's bytes (a List item, or a document without its items) across the chunks it spans,
 * bounded by the piece limit.
 */
import { MAX_PIECE_BYTES } from './dump-events';

/* The bytes of JSON's syntax the splitter looks for. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const NEWLINE = 0x0a;

/** Whether a byte is JSON whitespace. */
export function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A copy of `chunk[start, end)` (a Buffer's own `slice` is a view, and callers reuse chunks). */
export function copyOf(chunk: Uint8Array, start: number, end: number): Uint8Array {
  return Uint8Array.prototype.slice.call(chunk, start, end);
}

/** Bytes captured across chunks. */
export class Capture {
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

/**
 * Reading a kubectl dump piece by piece, so that a dump larger than memory (or than the ~512 MB a
 * V8 string can hold) loads: `kubectl get pods -A -o json` at 150,000 pods is several hundred MB.
 *
 * Two splitters, both fed with byte chunks ({@link DumpSplitter.push}) and closed with
 * {@link DumpSplitter.end}; each calls `emit` with {@link DumpEvent}s in file order:
 * - `JsonDumpSplitter` (./json-splitter): a sequence of JSON values (`kubectl get … -o json`,
 *   several of them appended to one file, `kubectl get --raw`). A top-level object's `items` array
 *   is split element by element; every element (and the rest of the object, its "header", with
 *   `"items": []`) is parsed on its own with `JSON.parse`. Duplicate keys, which `JSON.parse`
 *   silently resolves to the last value, are an error naming the key.
 * - `YamlDumpSplitter` (./yaml-splitter): YAML split at document markers (`---`, `...` at column
 *   0) and, inside a document whose root mapping has a block-sequence `items:` at column 0 (what
 *   `kubectl -o yaml` prints for a List), item by item; each piece goes to the `yaml` parser
 *   (unique keys).
 *
 * Item events of a document come before its `document` event (kubectl prints `items` before
 * `kind`); the reader decides what the items were once it sees the document's kind.
 *
 * Guards, so that no input crashes the process: a piece larger than {@link MAX_PIECE_BYTES}
 * (a single Kubernetes object is at most ~1.5 MiB, the etcd limit) and nesting deeper than
 * {@link MAX_NESTING} are errors with the way out in the message. Pure: no I/O. This module is
 * what both splitters share: the events, the limits, and feeding a whole text.
 */

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

export const tooLarge = (what: string): string =>
  `${what} is larger than ${MAX_PIECE_BYTES / 1024 / 1024} MiB, more than any Kubernetes object; zonescope reads a List item by item, ` +
  'so dump with `kubectl get TYPE -A -o json` (or -o yaml), or split the dump by type into files of a folder (--snapshot FOLDER)';

/** Feeds a whole text to a splitter (tests, uploads, small files). */
export function splitText(splitter: DumpSplitter, text: string): void {
  splitter.push(Buffer.from(text, 'utf8'));
  splitter.end();
}

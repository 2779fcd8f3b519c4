/**
 * The format of a kubectl dump, as both readers of one see it: the dashboard's offline snapshot
 * (`./snapshot`) and the simulator's scenario loader (`sim/scenario.ts`).
 *
 * A dump is YAML (one or more documents) or JSON text, as `kubectl get … -o yaml|json` prints
 * it. Each document is a single object, a `List` or a typed list such as `PodList` (objects in
 * `items`), or a document naming the server version: zonescope's own
 * `{apiVersion: zonescope.dev/v1, kind: ServerVersion, gitVersion: v1.31.4}`, the output of
 * `kubectl get --raw /version`, or that of `kubectl version -o json|yaml` as support bundles hold
 * it (`clientVersion`, `kustomizeVersion`, and `serverVersion` unless the server was out of reach).
 *
 * This module reads the text into documents and recognises those shapes; what to accept and how
 * to word a problem is each reader's own. Pure: no client-node, no I/O.
 */
import { parseAllDocuments } from 'yaml';
import type { Json } from './wire-to-record/json';
import { isJsonObject, str } from './wire-to-record/json';

/** `apiVersion` of zonescope's {@link SERVER_VERSION_KIND} document. */
export const SERVER_VERSION_API_VERSION = 'zonescope.dev/v1';

/** `kind` of zonescope's document naming the Kubernetes version (`gitVersion`) of a dump. */
export const SERVER_VERSION_KIND = 'ServerVersion';

/** Where something is in a dump. */
export interface DumpLocation {
  readonly file: string;
  /** 1-based document number inside the file. */
  readonly document: number;
  /** 0-based index in the document's `items`, when the document is a List. */
  readonly item?: number;
}

/** Whether the file is named as JSON (`*.json`, any case). */
export function isJsonFileName(file: string): boolean {
  return file.toLowerCase().endsWith('.json');
}

/** Whether the text is to be read as JSON: a JSON file, or text starting with `{` or `[`. */
export function isJsonText(text: string, file: string): boolean {
  const trimmed = text.trimStart();
  return isJsonFileName(file) || trimmed.startsWith('{') || trimmed.startsWith('[');
}

/** Why a YAML document could not be read. */
export interface YamlDocumentError {
  /** `syntax`: not valid YAML; `conversion`: valid, but not convertible to plain data (too many aliases). */
  readonly type: 'syntax' | 'conversion';
  /**
   * The parser's message. For a syntax error its first line, which ends with
   * ` at line L, column C:` when the parser located the error.
   */
  readonly message: string;
  /** Position of a syntax error (1-based), when known. */
  readonly line?: number;
  readonly column?: number;
}

/** One document of YAML text: its plain-data value (`null` when empty), or why it is unreadable. */
export type YamlDocument =
  | { readonly ok: true; readonly document: number; readonly value: unknown }
  | { readonly ok: false; readonly document: number; readonly errors: readonly YamlDocumentError[] };

/**
 * Reads YAML text (keys must be unique) into its documents, numbered from 1. A syntax error fails
 * only its own document.
 *
 * @param maxAliasCount how many alias expansions a document may need (a guard against
 *   "billion laughs" documents); more is a `conversion` error.
 */
export function readYamlDocuments(text: string, maxAliasCount: number): YamlDocument[] {
  const parsed = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true });
  const list = Array.isArray(parsed) ? parsed : [];
  return list.map((doc, index): YamlDocument => {
    const document = index + 1;
    if (doc.errors.length > 0) {
      const errors = doc.errors.map((error): YamlDocumentError => {
        const pos = error.linePos?.[0];
        return { type: 'syntax', message: error.message.split('\n')[0] ?? '', ...(pos ? { line: pos.line, column: pos.col } : {}) };
      });
      return { ok: false, document, errors };
    }
    try {
      return { ok: true, document, value: doc.toJS({ maxAliasCount }) as unknown };
    } catch (error) {
      return { ok: false, document, errors: [{ type: 'conversion', message: error instanceof Error ? error.message : String(error) }] };
    }
  });
}

/** A list document: a `List` (any kinds) or a typed list such as `PodList`. */
export interface ListDocument {
  readonly kind: string;
  /** `items` as written (a list, when well-formed). */
  readonly items: unknown;
  /** A typed list's item kind (`Pod` for a `PodList`; its items may omit `kind`); `undefined` for a `List`. */
  readonly itemKind: string | undefined;
  /** A typed list's `apiVersion`, which its items share; `undefined` for a `List`. */
  readonly itemApiVersion: string | undefined;
}

/** The document as a list: a `kind` ending in `List`, with an `items` field. `null` otherwise. */
export function listDocument(document: Json): ListDocument | null {
  const kind = str(document.kind);
  if (kind === null || !kind.endsWith('List') || !('items' in document)) return null;
  if (kind === 'List') return { kind, items: document.items, itemKind: undefined, itemApiVersion: undefined };
  return { kind, items: document.items, itemKind: kind.slice(0, -'List'.length), itemApiVersion: str(document.apiVersion) ?? undefined };
}

/** zonescope's `ServerVersion` document, as recognised (its `gitVersion` still to be checked). */
export type ServerVersionDocument = Json & { readonly apiVersion: typeof SERVER_VERSION_API_VERSION; readonly kind: typeof SERVER_VERSION_KIND };

/** Whether the value is zonescope's `ServerVersion` document (its `gitVersion` is not checked). */
export function isServerVersionDocument(value: unknown): value is ServerVersionDocument {
  return isJsonObject(value) && value.apiVersion === SERVER_VERSION_API_VERSION && value.kind === SERVER_VERSION_KIND;
}

/** zonescope's `ServerVersion` document naming `gitVersion` (e.g. `v1.31.4`). */
export function serverVersionDocument(gitVersion: string): Json {
  return { apiVersion: SERVER_VERSION_API_VERSION, kind: SERVER_VERSION_KIND, gitVersion };
}

/** What a document without `kind` says of the server version ({@link versionDocumentOf}). */
export type VersionDocument =
  /** `kubectl get --raw /version`: the server's own `/version` answer. */
  | { readonly source: 'raw'; readonly version: Json }
  /**
   * `kubectl version -o json|yaml`: its `serverVersion`, `null` when it has none (the server could
   * not be reached: only `clientVersion` and `kustomizeVersion` were printed).
   */
  | { readonly source: 'kubectl-version'; readonly version: Json | null };

/** The top-level fields `kubectl version -o json|yaml` prints (`kustomizeVersion` since kubectl 1.24). */
const KUBECTL_VERSION_FIELDS = new Set(['clientVersion', 'kustomizeVersion', 'serverVersion']);

/**
 * The server version a document without `kind` gives: the output of `kubectl get --raw /version`
 * (`{major, minor, gitVersion, …}`) or of `kubectl version -o json|yaml` (`{clientVersion,
 * kustomizeVersion, serverVersion}`, nothing else). `null` when the document is neither.
 */
export function versionDocumentOf(document: Json): VersionDocument | null {
  const keys = Object.keys(document);
  if ((isJsonObject(document.clientVersion) || isJsonObject(document.serverVersion)) && keys.every((key) => KUBECTL_VERSION_FIELDS.has(key))) {
    return { source: 'kubectl-version', version: isJsonObject(document.serverVersion) ? document.serverVersion : null };
  }
  if (typeof document.gitVersion === 'string' || (typeof document.major === 'string' && typeof document.minor === 'string')) return { source: 'raw', version: document };
  return null;
}

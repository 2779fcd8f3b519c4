/**
 * What reading a snapshot gives: the snapshot and a summary of what was read and skipped, or the
 * problems, each naming the file, document (1-based), item (`items[i]`, 0-based), position and
 * object it concerns ({@link formatProblem} writes one per line).
 */
import type { ClusterSnapshot } from '../../topology/model/cluster-model';
import type { DumpLocation } from '../kubectl-dump';
import type { ResourceId } from '../resources';
import type { Json } from '../wire-to-record/json';

/** Where an object or problem was found. */
export type SnapshotLocation = DumpLocation;

/** One problem with the input. */
export interface SnapshotProblem extends Partial<SnapshotLocation> {
  readonly file: string;
  /** Position of a syntax error (1-based). */
  readonly line?: number;
  readonly column?: number;
  /** `Kind namespace/name` of the object, when known. */
  readonly object?: string;
  /** What is wrong. */
  readonly message: string;
}

/** An object read from a snapshot, with where it came from. */
export interface SnapshotObject {
  readonly kind: string;
  readonly apiVersion: string;
  /** The object as parsed (for a typed List item without `kind`, the kind is filled in). */
  readonly object: Json;
  readonly location: SnapshotLocation;
}

/** A server version document. */
export interface SnapshotVersion {
  /** `/version` content (`major`, `minor`, `gitVersion`, …). */
  readonly version: Json;
  readonly location: SnapshotLocation;
  /**
   * From `kubectl version` output (a support bundle's): counts only when no other document
   * names the version (a `ServerVersion` document or `kubectl get --raw /version` wins over it).
   */
  readonly fallback?: boolean;
}

/** Result of {@link parseSnapshotDocuments}. */
export type ParseDocumentsResult =
  | { readonly ok: true; readonly objects: readonly SnapshotObject[]; readonly versions: readonly SnapshotVersion[]; readonly documents: number }
  | { readonly ok: false; readonly errors: readonly SnapshotProblem[] };

/** What a load read and skipped. */
export interface SnapshotSummary {
  readonly files: readonly string[];
  readonly documents: number;
  /** Records kept per resource type. */
  readonly records: Readonly<Record<ResourceId, number>>;
  /** Objects of kinds zonescope does not read, per kind. */
  readonly ignoredKinds: Readonly<Record<string, number>>;
  /** Objects of read kinds dropped as irrelevant (Events not about Services, other ConfigMaps…). */
  readonly dropped: Readonly<Record<string, number>>;
  /** Where the server version came from, `null` when unknown. */
  readonly versionSource: string | null;
}

/** Result of {@link buildSnapshot} and {@link loadSnapshot}. */
export type SnapshotResult =
  | { readonly ok: true; readonly snapshot: ClusterSnapshot; readonly summary: SnapshotSummary }
  | { readonly ok: false; readonly errors: readonly SnapshotProblem[] };

/** One line per problem: `file, document 2, items[3] (Kind ns/name): message`. */
export function formatProblem(problem: SnapshotProblem): string {
  let where = problem.file;
  if (problem.document !== undefined) where += `, document ${problem.document}`;
  if (problem.item !== undefined) where += `, items[${problem.item}]`;
  if (problem.line !== undefined) where += ` (line ${problem.line}${problem.column !== undefined ? `, column ${problem.column}` : ''})`;
  if (problem.object !== undefined) where += ` (${problem.object})`;
  return `${where}: ${problem.message}`;
}

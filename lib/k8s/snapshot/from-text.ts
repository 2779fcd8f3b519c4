/**
 * Snapshots from text already in memory (tests, uploads, the simulator's scenarios) and from objects
 * already parsed: the same checks, projections and problems as files loaded by ./load.
 */
import { SnapshotCollector } from './collector';
import { readText } from './file-reader';
import type { ParseDocumentsResult, SnapshotObject, SnapshotResult, SnapshotVersion } from './results';

/**
 * Parses one file's text (YAML, multi-document YAML or JSON) into Kubernetes objects and version
 * documents, flattening Lists. Objects of every kind are returned (the simulator serves them);
 * objects of the kinds zonescope reads are shape-checked. Any problem fails the whole file.
 *
 * @param fileName used in problems only.
 */
export function parseSnapshotDocuments(text: string, fileName: string): ParseDocumentsResult {
  const collector = new SnapshotCollector(true);
  readText(collector, text, fileName);
  if (collector.errors.length > 0) return { ok: false, errors: collector.allErrors() };
  return { ok: true, objects: collector.objects, versions: collector.versions, documents: collector.documents };
}

/**
 * Projects parsed objects onto a `ClusterSnapshot`. An object given twice (same kind,
 * namespace and name) is an error naming both places.
 */
export function buildSnapshot(
  objects: readonly SnapshotObject[],
  versions: readonly SnapshotVersion[] = [],
  meta: { readonly files?: readonly string[]; readonly documents?: number } = {},
): SnapshotResult {
  const collector = new SnapshotCollector(false);
  for (const { kind, object, location } of objects) collector.add({ kind, object, location });
  for (const version of versions) collector.versions.push(version);
  collector.documents = meta.documents ?? 0;
  return collector.result(meta.files ?? [...new Set(objects.map((o) => o.location.file))]);
}

/** {@link parseSnapshotDocuments} then {@link buildSnapshot} for one text (tests, uploads). */
export function snapshotFromText(text: string, fileName: string): SnapshotResult {
  const collector = new SnapshotCollector(false);
  readText(collector, text, fileName);
  return collector.result([fileName]);
}

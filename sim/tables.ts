/**
 * Server-side printing: the `meta.k8s.io/v1 Table` responses `kubectl get` asks for (rows of
 * cells, each with the object, its metadata or nothing per `includeObject`) and the
 * metadata-only form (`as=PartialObjectMetadata[List]`). The columns per kind are
 * sim/tables/printers.ts.
 */
import type { ApiResource } from './resources';
import { columnsFor } from './tables/printers';
import type { KubeObject } from './types';

/** What `includeObject` asks to embed in each row. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Options of {@link toTable}. */
export interface TableOptions {
  includeObject: IncludeObject;
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as the client asked. */
  apiVersion: string;
  now: Date;
  /** List metadata (resourceVersion, continue, remainingItemCount). */
  listMeta?: Record<string, unknown>;
  /** Omit column definitions (watch events after the first, as upstream does to save bandwidth). */
  noHeaders?: boolean;
}

function rowObject(object: KubeObject, include: IncludeObject): Record<string, unknown> | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return object;
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: object.metadata,
  };
}

/**
 * Renders objects (already in the endpoint's wire form) as a `meta.k8s.io` Table.
 * Rows carry `object` per `includeObject` (default upstream: `Metadata`, a PartialObjectMetadata
 * that kubectl reads for `-L`, `--show-labels` and the NAMESPACE column).
 */
export function toTable(resource: ApiResource, objects: readonly KubeObject[], options: TableOptions): Record<string, unknown> {
  const columns = columnsFor(resource);
  const rows = objects.map((object) => {
    const row: Record<string, unknown> = { cells: columns.map((c) => c.value(object, options.now)) };
    const embedded = rowObject(object, options.includeObject);
    if (embedded !== undefined) row.object = embedded;
    return row;
  });
  const table: Record<string, unknown> = {
    kind: 'Table',
    apiVersion: options.apiVersion,
    metadata: options.listMeta ?? {},
    columnDefinitions: options.noHeaders ? [] : columns.map((c) => c.definition),
    rows,
  };
  return table;
}

/** Metadata-only form of an object (`as=PartialObjectMetadata`). */
export function toPartialObjectMetadata(object: KubeObject, apiVersion = 'meta.k8s.io/v1'): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: object.metadata };
}

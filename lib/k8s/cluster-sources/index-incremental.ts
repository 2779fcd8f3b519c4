/**
 * The lookups of a {@link ClusterIndex} rebuilt incrementally: a lookup whose resource type did not
 * change is kept, one where only a few records were replaced in place is patched, and grouped
 * lists whose records did not change keep their identity, so consumers can tell what changed.
 */
import type { ClusterIndex, ClusterSnapshot } from '../../topology/model/cluster-model';
import { EMPTY_SNAPSHOT, INDEX_KEYS, indexCluster } from '../../topology/model/cluster-model';


/** Which snapshot array each index lookup is built from. */
const INDEX_SOURCES = {
  nodesByName: 'nodes',
  servicesByKey: 'services',
  slicesByService: 'endpointSlices',
  podsByNamespace: 'pods',
  deploymentsByKey: 'deployments',
  replicaSetsByKey: 'replicaSets',
  hpasByTarget: 'hpas',
  eventsByService: 'events',
} as const satisfies Record<Exclude<keyof ClusterIndex, 'snapshot'>, keyof ClusterSnapshot>;

type IndexField = keyof typeof INDEX_SOURCES;

/** Lookups that group records into lists (by Service or namespace). */
const GROUPED_FIELDS: ReadonlySet<IndexField> = new Set<IndexField>(['slicesByService', 'podsByNamespace', 'eventsByService']);

/** The key each lookup files a record under, as {@link indexCluster} files it. */
const LOOKUP_KEYS: { readonly [F in IndexField]: (record: never) => string | null } = INDEX_KEYS;

/** At most this many replaced records are patched into a lookup; more, and it is rebuilt. */
const PATCH_LIMIT = 64;

function sameItems<T>(a: readonly T[] | undefined, b: readonly T[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The lookup `field` for `after`, from its lookup `before` over `prior` when `after` only replaced a
 * few records of `prior` in place (same positions, same keys: informers replace a modified record
 * where it was). Only the affected keys are recomputed; everything else, lists included, is kept.
 * `null` when that does not hold (the caller rebuilds the lookup).
 */
function patchLookup(field: IndexField, before: ReadonlyMap<string, unknown>, prior: readonly unknown[], after: readonly unknown[]): Map<string, unknown> | null {
  if (prior.length !== after.length) return null;
  const keyOf = LOOKUP_KEYS[field] as (record: unknown) => string | null;
  const affected = new Set<string>();
  let changed = 0;
  for (let i = 0; i < after.length; i++) {
    if (prior[i] === after[i]) continue;
    if (++changed > PATCH_LIMIT) return null;
    const key = keyOf(after[i]);
    if (key !== keyOf(prior[i])) return null;
    if (key !== null) affected.add(key);
  }
  const patched = new Map(before);
  const grouped = GROUPED_FIELDS.has(field);
  for (const key of affected) {
    if (grouped) {
      // The group's records in list order, as a fresh grouping would list them.
      const list: unknown[] = [];
      for (const record of after) if (keyOf(record) === key) list.push(record);
      patched.set(key, list);
    } else {
      // A fresh map keeps the last record with the key.
      for (let i = after.length - 1; i >= 0; i--) {
        if (keyOf(after[i]) === key) {
          patched.set(key, after[i]);
          break;
        }
      }
    }
  }
  return patched;
}

/**
 * {@link indexCluster}, reusing the lookups of `previous` whose source array is the same object
 * (unchanged resource type), and patching those where only a few records were replaced in place.
 * Equal to `indexCluster(snapshot)` in content. In grouped lookups (slices by Service, pods by
 * namespace, events by Service) a group whose records are the same objects as before keeps its
 * previous list, so list identity tells consumers what changed.
 */
export function indexIncrementally(snapshot: ClusterSnapshot, previous: ClusterIndex | null): ClusterIndex {
  const pick = <F extends IndexField>(field: F): ClusterIndex[F] => {
    const source = INDEX_SOURCES[field];
    if (previous !== null && previous.snapshot[source] === snapshot[source]) return previous[field];
    if (previous !== null) {
      const patched = patchLookup(field, previous[field] as ReadonlyMap<string, unknown>, previous.snapshot[source] as readonly unknown[], snapshot[source] as readonly unknown[]);
      if (patched !== null) return patched as unknown as ClusterIndex[F];
    }
    const fresh = indexCluster({ ...EMPTY_SNAPSHOT, [source]: snapshot[source] })[field];
    if (previous === null || !GROUPED_FIELDS.has(field)) return fresh;
    const before = previous[field] as ReadonlyMap<string, readonly unknown[]>;
    const stable = new Map<string, readonly unknown[]>();
    for (const [key, list] of fresh as ReadonlyMap<string, readonly unknown[]>) {
      const old = before.get(key);
      stable.set(key, old !== undefined && sameItems(old, list) ? old : list);
    }
    return stable as unknown as ClusterIndex[F];
  };
  return {
    snapshot,
    nodesByName: pick('nodesByName'),
    servicesByKey: pick('servicesByKey'),
    slicesByService: pick('slicesByService'),
    podsByNamespace: pick('podsByNamespace'),
    deploymentsByKey: pick('deploymentsByKey'),
    replicaSetsByKey: pick('replicaSetsByKey'),
    hpasByTarget: pick('hpasByTarget'),
    eventsByService: pick('eventsByService'),
  };
}

/**
 * Per-Service analysis results kept from one cluster generation to the next, so that a change
 * re-analyses only the Services it affects (issue "Scale to Kubernetes' published limits").
 *
 * A Service's report reads, besides cluster-wide facts, only:
 * - its own record and its EndpointSlices;
 * - the pods, ReplicaSets, Deployments and HPAs of its own namespace (to find its workload).
 *
 * So an entry stays valid while the cluster-wide inputs (nodes, server version, dataplane, options)
 * are the same, its record and slices are the same objects, and its namespace's workload objects
 * did not change. Records are compared by identity: sources replace a record object when the
 * object changes (informers) and keep it otherwise, so identity is a cheap and safe change test —
 * a source that rebuilds every record simply gets no reuse.
 *
 * The cache is plain data owned by one long-lived caller (the dashboard's data layer); it is not
 * shared between analyses with different options. Its cluster-pass reports sit in the records'
 * memos ({@link ReportEntry}), each marked with the cache and generation it is valid for: two
 * caches over the same records (two analyses of one snapshot) never take each other's.
 */
import type { ClusterContext } from '../model/cluster-context';
import type { ClusterIndex, EndpointSliceRecord, EventRecord, NodeRecord, PodRecord, ServiceRecord } from '../model/cluster-model';
import type { ServiceRecordMemo } from '../model/record-memo';

/** Figures of the last cluster pass (diagnostics, benchmarks). */
export interface AnalysisCacheRun {
  /** Services in the cluster. */
  readonly services: number;
  /** Services analysed again in this pass. */
  readonly computed: number;
  /** Services whose previous result was reused. */
  readonly reused: number;
  /** Whether cluster-wide inputs changed (or this was the first pass), so nothing could be reused. */
  readonly full: boolean;
}

interface Entry<T> {
  readonly service: ServiceRecord;
  readonly slices: readonly EndpointSliceRecord[];
  readonly namespaceVersion: number;
  readonly events: readonly EventRecord[] | undefined;
  readonly value: T;
}

/**
 * A cluster pass's report of a Service, kept in the record's memo (model/record-memo.ts) rather
 * than in a map by key: a pass after a Node change stores ~10,000 of them, and refilling a map
 * emptied by the change (its key hashes read from records all over the heap, its table grown
 * again) cost more than the rest of the bookkeeping. Valid for the cache that stored it, in the
 * generation it was stored in (see {@link AnalysisCache.sync}); a deleted Service's goes with its record.
 */
interface ReportEntry {
  readonly cache: AnalysisCache;
  readonly generation: number;
  readonly slices: readonly EndpointSliceRecord[];
  readonly namespaceVersion: number;
  readonly value: unknown;
}

type NamespacedRecord = { readonly namespace: string };

/** Grouping of one namespaced resource type by namespace, with the array it was built from. */
interface Grouping {
  readonly source: readonly NamespacedRecord[];
  readonly byNamespace: ReadonlyMap<string, readonly NamespacedRecord[]>;
}

const NO_SLICES: readonly EndpointSliceRecord[] = [];

/** Whether two lists hold the same objects in the same order. */
export function sameItems<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function groupByNamespace(items: readonly NamespacedRecord[]): Map<string, NamespacedRecord[]> {
  const map = new Map<string, NamespacedRecord[]>();
  for (const item of items) {
    const list = map.get(item.namespace);
    if (list) list.push(item);
    else map.set(item.namespace, [item]);
  }
  return map;
}

/** Maximum number of Service details (the full Service view) kept. */
export const DETAIL_CACHE_SIZE = 32;

/** Per-Service results of earlier analyses and the inputs they were computed from. */
export class AnalysisCache {
  private clusterKey: string | null = null;
  private nodes: readonly NodeRecord[] | null = null;
  private synced: ClusterIndex | null = null;
  /** The options of the context last synced: new options over the same index (unreadable types changed) re-key the cache. */
  private syncedOptions: ClusterContext['options'] | null = null;
  private podsByNamespace: ClusterIndex['podsByNamespace'] | null = null;
  private readonly groupings = new Map<'replicaSets' | 'deployments' | 'hpas', Grouping>();
  private readonly namespaceVersions = new Map<string, number>();
  private epoch = 0;
  /** Bumped when cluster-wide inputs change: reports stored before are no longer valid. */
  private generation = 0;
  /** Reports stored in this generation (a pass over a new generation has none to look up). */
  private storedInGeneration = 0;
  private readonly details = new Map<string, Entry<unknown>>();
  private fullPass = true;
  private shapes: { readonly nodes: readonly NodeRecord[]; readonly key: string; readonly memo: unknown } | null = null;
  /** The last cluster pass. */
  lastRun: AnalysisCacheRun | null = null;

  /**
   * Brings the dependency bookkeeping up to `context`'s index (idempotent per index and options): drops
   * everything when cluster-wide inputs changed, otherwise marks namespaces whose pods,
   * ReplicaSets, Deployments or HPAs changed.
   */
  sync(context: ClusterContext): void {
    const index = context.index;
    if (this.synced === index && this.syncedOptions === context.options) return;
    this.syncedOptions = context.options;
    const { snapshot } = index;
    const key = JSON.stringify([snapshot.version, snapshot.proxy, snapshot.cni, context.options, context.release, context.gates]);
    if (key !== this.clusterKey || snapshot.nodes !== this.nodes) {
      this.clusterKey = key;
      this.nodes = snapshot.nodes;
      this.generation++;
      this.storedInGeneration = 0;
      this.details.clear();
      this.namespaceVersions.clear();
      // The groupings by namespace stay: they follow their own lists (a Node change leaves the
      // ReplicaSets, Deployments and HPAs as they were, and grouping ~30,000 of them again cost a
      // few ms a pass), and what they would bump went with the reports just made invalid.
      this.fullPass = true;
    } else {
      this.fullPass = false;
    }
    // 1. Pods: the index groups them by namespace already.
    if (this.podsByNamespace !== index.podsByNamespace) {
      const previous = this.podsByNamespace;
      if (previous !== null) {
        for (const [namespace, pods] of index.podsByNamespace) if (!sameItems<PodRecord>(previous.get(namespace), pods)) this.bump(namespace);
        for (const namespace of previous.keys()) if (!index.podsByNamespace.has(namespace)) this.bump(namespace);
      }
      this.podsByNamespace = index.podsByNamespace;
    }
    // 2. ReplicaSets, Deployments, HPAs: grouped here when their list changed.
    this.syncGrouping('replicaSets', snapshot.replicaSets);
    this.syncGrouping('deployments', snapshot.deployments);
    this.syncGrouping('hpas', snapshot.hpas);
    this.synced = index;
  }

  private syncGrouping(kind: 'replicaSets' | 'deployments' | 'hpas', source: readonly NamespacedRecord[]): void {
    const previous = this.groupings.get(kind);
    if (previous?.source === source) return;
    const byNamespace = groupByNamespace(source);
    if (previous) {
      for (const [namespace, items] of byNamespace) if (!sameItems(previous.byNamespace.get(namespace), items)) this.bump(namespace);
      for (const namespace of previous.byNamespace.keys()) if (!byNamespace.has(namespace)) this.bump(namespace);
    }
    this.groupings.set(kind, { source, byNamespace });
  }

  private bump(namespace: string): void {
    this.namespaceVersions.set(namespace, ++this.epoch);
  }

  private namespaceVersion(namespace: string): number {
    return this.namespaceVersions.get(namespace) ?? 0;
  }

  /**
   * The Service-shape results kept for passes over `nodes` (the same array) with the same
   * cluster-wide inputs `key` (see `PreparedAnalysis.shapeInputsKey`): `create`d anew when either
   * changed. A pass after a new traffic measurement re-prices every Service but finds each shape's
   * hints and traffic figures here.
   */
  shapesFor<T>(nodes: readonly NodeRecord[], key: string, create: () => T): T {
    if (this.shapes === null || this.shapes.nodes !== nodes || this.shapes.key !== key) this.shapes = { nodes, key, memo: create() };
    return this.shapes.memo as T;
  }

  /** Whether the last {@link sync} dropped everything (first pass, or cluster-wide inputs changed). */
  get isFullPass(): boolean {
    return this.fullPass;
  }

  private valid(entry: Entry<unknown> | undefined, service: ServiceRecord, slices: readonly EndpointSliceRecord[]): boolean {
    return entry !== undefined && entry.service === service && entry.namespaceVersion === this.namespaceVersion(service.namespace) && sameItems(entry.slices, slices);
  }

  private entry<T>(service: ServiceRecord, slices: readonly EndpointSliceRecord[] | undefined, value: T, events?: readonly EventRecord[]): Entry<T> {
    return { service, slices: slices ?? NO_SLICES, namespaceVersion: this.namespaceVersion(service.namespace), events, value };
  }

  /**
   * Whether any report was stored since cluster-wide inputs last changed: a pass that follows such a
   * change (a Node change) finds none, and need not read 10,000 memos' old entries to learn it.
   */
  get hasReports(): boolean {
    return this.storedInGeneration > 0;
  }

  /** The report of `service` (whose memo is `memo`) computed from the same inputs by this cache, if any. */
  report<T>(memo: ServiceRecordMemo, service: ServiceRecord, slices: readonly EndpointSliceRecord[] | undefined): T | undefined {
    const entry = memo.report as ReportEntry | undefined;
    if (entry === undefined || entry.cache !== this || entry.generation !== this.generation) return undefined;
    if (entry.namespaceVersion !== this.namespaceVersion(service.namespace) || !sameItems(entry.slices, slices ?? NO_SLICES)) return undefined;
    return entry.value as T;
  }

  /** Stores the report of `service` (whose memo is `memo`). */
  storeReport<T>(memo: ServiceRecordMemo, service: ServiceRecord, slices: readonly EndpointSliceRecord[] | undefined, value: T): void {
    memo.report = { cache: this, generation: this.generation, slices: slices ?? NO_SLICES, namespaceVersion: this.namespaceVersion(service.namespace), value } satisfies ReportEntry;
    this.storedInGeneration++;
  }

  /** The detail of `service` computed from the same inputs (events included), if any. */
  detail<T>(key: string, service: ServiceRecord, slices: readonly EndpointSliceRecord[] | undefined, events: readonly EventRecord[] | undefined): T | undefined {
    const entry = this.details.get(key);
    if (!this.valid(entry, service, slices ?? NO_SLICES) || !sameItems(entry?.events, events)) return undefined;
    // Most recently used last.
    this.details.delete(key);
    this.details.set(key, entry as Entry<unknown>);
    return entry?.value as T;
  }

  /** Stores the detail of `service`, evicting the least recently used beyond {@link DETAIL_CACHE_SIZE}. */
  storeDetail<T>(key: string, service: ServiceRecord, slices: readonly EndpointSliceRecord[] | undefined, events: readonly EventRecord[] | undefined, value: T): void {
    this.details.delete(key);
    this.details.set(key, this.entry(service, slices, value, events));
    while (this.details.size > DETAIL_CACHE_SIZE) {
      const oldest = this.details.keys().next().value;
      if (oldest === undefined) break;
      this.details.delete(oldest);
    }
  }
}

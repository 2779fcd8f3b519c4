/**
 * Values that many Services of one analysis share, computed once and handed out as the same
 * (read-only) object: the mechanism of a set of topology annotations, the topology-mode toggle's edit, the
 * allocation table for an endpoint count, the monthly cost of a cross-zone fraction and volume. At 10,000
 * Services most of them repeat, so sharing saves both the work and the memory of the reports.
 *
 * Mechanisms and toggle edits read only the release and a Service's annotations: they are kept
 * per release (its gates object, one per release and gate values: model/cluster-context.ts), so a
 * context built after a Node change finds them. The other stores belong to a cluster context's
 * per-cluster memo (the same across generations with the same nodes, release and options).
 * Entries keyed by record objects (annotation maps, which the cluster sources share between equal
 * records) go away with those objects.
 */
import type { CrossZonePricing } from '../model/cloud-pricing';
import type { ClusterContext } from '../model/cluster-context';
import type { ServiceRecord } from '../model/cluster-model';
import type { MechanismAnalysis, TopologyAnnotationChange } from './service-mechanism';
import { determineMechanism, topologyAnnotationChange } from './service-mechanism';
import type { Allocation } from '../upstream/topology-cache';
import { computeAllocationTable } from '../upstream/topology-cache';
import type { CrossZoneCost } from './cross-zone-cost';
import { crossZoneCost } from './cross-zone-cost';
import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from '../upstream/constants';
import type { ValueByZone } from '../upstream/types';
import type { FeatureGates, KubeMinor } from '../upstream/version';
import { serviceMemo, type ServiceRecordMemo } from '../model/record-memo';

/** Entries of a keyed table before it starts over. */
const LIMIT = 5_000;

interface Store {
  allocations: Map<number, { allocations: ValueByZone<Allocation>; minimumTotal: number }>;
  /** The pricing the costs were computed at (a context's preparations share one). */
  costPricing: CrossZonePricing | null;
  /** By GB per month, then cross-zone fraction. */
  costs: Map<number, Map<number, CrossZoneCost>>;
  costCount: number;
}

const STORES = new WeakMap<ClusterContext['memo'], Store>();

function store(context: ClusterContext): Store {
  let found = STORES.get(context.memo);
  if (!found) {
    found = { allocations: new Map(), costPricing: null, costs: new Map(), costCount: 0 };
    STORES.set(context.memo, found);
  }
  return found;
}

function own(annotations: Readonly<Record<string, string>>, key: string): string | null {
  return Object.prototype.hasOwnProperty.call(annotations, key) ? (annotations[key] as string) : null;
}

/**
 * What {@link determineMechanism} reads of a Service besides the release: the two topology keys
 * (present or not, and their values; upstream/annotations.ts) and trafficDistribution. Helm,
 * last-applied and load-balancer annotations do not enter it, so Services that differ only in
 * those share one result.
 */
function mechanismKey(service: ServiceRecord): string {
  return JSON.stringify([own(service.annotations, ANNOTATION_TOPOLOGY_MODE), own(service.annotations, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS), service.trafficDistribution]);
}

/**
 * Mechanisms by the gates object of a release, then by minor, topology cache and
 * {@link mechanismKey}: what {@link determineMechanism} reads.
 */
const MECHANISMS = new WeakMap<FeatureGates, Map<string, MechanismAnalysis>>();

/** The mechanism last found for a Service record, with what it was found under (a pass after a Node change asks again with the same gates object). */
interface KeptMechanism {
  readonly gates: FeatureGates;
  readonly minor: KubeMinor;
  readonly topologyCacheEnabled: boolean;
  readonly mechanism: MechanismAnalysis;
}

/** {@link determineMechanism} for the context's release, shared by Services with the same topology annotations and trafficDistribution. */
export function sharedMechanism(context: ClusterContext, service: ServiceRecord, memo: ServiceRecordMemo = serviceMemo(service)): MechanismAnalysis {
  const kept = memo.mechanism as KeptMechanism | undefined;
  if (kept !== undefined && kept.gates === context.gates && kept.minor === context.release.minor && kept.topologyCacheEnabled === context.topologyCacheEnabled) return kept.mechanism;
  const mechanism = mechanismOf(context, service);
  memo.mechanism = { gates: context.gates, minor: context.release.minor, topologyCacheEnabled: context.topologyCacheEnabled, mechanism } satisfies KeptMechanism;
  return mechanism;
}

function mechanismOf(context: ClusterContext, service: ServiceRecord): MechanismAnalysis {
  let mechanisms = MECHANISMS.get(context.gates);
  if (mechanisms === undefined || mechanisms.size >= LIMIT) {
    mechanisms = new Map();
    MECHANISMS.set(context.gates, mechanisms);
  }
  const key = `${context.release.minor}|${context.topologyCacheEnabled ? 1 : 0}|${mechanismKey(service)}`;
  let mechanism = mechanisms.get(key);
  if (!mechanism) {
    mechanism = determineMechanism(service, context.release.minor, context.gates, context.topologyCacheEnabled);
    mechanisms.set(key, mechanism);
  }
  return mechanism;
}

/** Toggle edits by release, then by annotation map (see {@link sharedEnableChange}). */
const CHANGES = new Map<KubeMinor, WeakMap<object, TopologyAnnotationChange>>();

/** `topologyAnnotationChange(annotations, minor, true)`, shared by Services with the same annotation map. */
export function sharedEnableChange(context: ClusterContext, annotations: Readonly<Record<string, string>>): TopologyAnnotationChange {
  const { minor } = context.release;
  let changes = CHANGES.get(minor);
  if (changes === undefined) {
    changes = new WeakMap();
    CHANGES.set(minor, changes);
  }
  let change = changes.get(annotations);
  if (!change) {
    change = topologyAnnotationChange(annotations, minor, true);
    changes.set(annotations, change);
  }
  return change;
}

/** `computeAllocationTable(context.cpuRatiosByZone, endpoints)`, once per endpoint count. */
export function sharedAllocationTable(context: ClusterContext, ratios: Readonly<ValueByZone<number>>, endpoints: number): { allocations: ValueByZone<Allocation>; minimumTotal: number } {
  if (ratios !== context.cpuRatiosByZone) return computeAllocationTable(ratios, endpoints);
  const s = store(context);
  let table = s.allocations.get(endpoints);
  if (!table) {
    table = computeAllocationTable(ratios, endpoints);
    if (s.allocations.size >= LIMIT) s.allocations = new Map();
    s.allocations.set(endpoints, table);
  }
  return table;
}

/**
 * `crossZoneCost(fraction, gbPerMonth, pricing)`, once per fraction and volume (Services of one
 * shape share the fraction, and volumes repeat: per-endpoint volumes differ only by count).
 */
export function sharedCrossZoneCost(context: ClusterContext, pricing: CrossZonePricing, fraction: number, gbPerMonth: number): CrossZoneCost {
  const s = store(context);
  if (s.costPricing !== pricing) {
    s.costPricing = pricing;
    s.costs = new Map();
    s.costCount = 0;
  }
  let byFraction = s.costs.get(gbPerMonth);
  let cost = byFraction?.get(fraction);
  if (!cost) {
    cost = crossZoneCost(fraction, gbPerMonth, pricing);
    if (s.costCount >= LIMIT) {
      s.costs = new Map();
      s.costCount = 0;
      byFraction = undefined;
    }
    if (!byFraction) {
      byFraction = new Map();
      s.costs.set(gbPerMonth, byFraction);
    }
    byFraction.set(fraction, cost);
    s.costCount++;
  }
  return cost;
}

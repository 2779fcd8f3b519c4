/**
 * The EndpointSlice controller's topology cache, release by release: how SetNodes turns the nodes
 * into CPU ratios per zone, the per-zone allocation of a Service's ready endpoints
 * (`getAllocations`), and the `Auto` heuristic itself (`AddHints`) with the hint counts and
 * "populated" marks the cache keeps per Service. The helpers AddHints calls (validation of existing
 * hints, giving and receiving zones, redistribution, the overload re-check) are
 * topology-cache-utils.ts, as upstream keeps them in utils.go.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go
 */
import {
  EXCLUDED_NODE_LABELS,
  MESSAGE_INSUFFICIENT_NODE_INFO,
  MESSAGE_INSUFFICIENT_NUMBER_OF_ENDPOINTS,
  MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD,
  MESSAGE_NO_ALLOCATED_HINTS_FOR_ZONES,
  MESSAGE_NO_ZONE_SPECIFIED,
  MESSAGE_NODES_READY_IN_ONE_ZONE_ONLY,
  MESSAGE_TOPOLOGY_AWARE_HINTS_ENABLED,
  MINIMUM_FACTOR,
  REASON_HINTS_DISABLED,
  REASON_HINTS_ENABLED,
} from './constants';
import { nanoToMilli, parseQuantityNano } from './quantity';
import type { MutableSliceInfo, SliceInfo } from './slice-info';
import { cloneSlice, cloneSliceInfoForWrite, getTotalReadyEndpoints, isEndpointReady, removeHintsFromSlices, zoneHints } from './slice-info';
import { sortedKeys, sortedRecord } from './sorted';
import { formatWithAddressType, getGivingAndReceivingZones, getHintsByZone, isServiceOverloaded, redistributeHints } from './topology-cache-utils';
import type { AddressType, MutableEndpointSlice, TopologyEvent, TopologyNode, ValueByZone } from './types';
import type { KubeMinor } from './version';

/* -------------------------------------------------------------------------------------------- */
/* Nodes → CPU ratios                                                                           */
/* -------------------------------------------------------------------------------------------- */

/**
 * How the topology cache treats one node (SetNodes, in node-list order):
 * - `excluded-control-plane`: has a control-plane/master label (1.23+) → skipped;
 * - `not-ready`: no `Ready=True` condition → skipped;
 * - `missing-zone` / `missing-cpu`: a ready worker without a zone label (or an empty one), or with
 *   zero / no allocatable CPU → aborts the walk: hints are off for **every** Service;
 * - `counted`: its CPU adds to its zone.
 */
export type NodeTopologyStatus = 'counted' | 'excluded-control-plane' | 'not-ready' | 'missing-zone' | 'missing-cpu';

/**
 * Classifies a node the way SetNodes does at release `minor`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (SetNodes)
 */
export function classifyNode(node: TopologyNode, minor: KubeMinor): NodeTopologyStatus {
  if (minor >= 23 && hasExcludedLabels(node.labels)) return 'excluded-control-plane';
  if (node.ready !== true) return 'not-ready';
  if (node.zone === null || node.zone === '') return 'missing-zone';
  const nano = node.allocatableCpu === null ? null : parseQuantityNano(node.allocatableCpu);
  if (nano === null || nano === 0n) return 'missing-cpu';
  return 'counted';
}

/** True when the node carries a label that excludes it from the topology cache (any value). */
export function hasExcludedLabels(labels: Readonly<Record<string, string>>): boolean {
  return EXCLUDED_NODE_LABELS.some((key) => Object.prototype.hasOwnProperty.call(labels, key));
}

/** Why SetNodes found the node information insufficient. */
export type InsufficientNodeInfoCause = 'no-counted-nodes' | 'node-missing-zone' | 'node-missing-cpu' | 'single-zone';

/** Result of {@link setNodes}: the cache's CPU state, plus why it is insufficient when it is. */
export interface NodeTopology {
  readonly sufficientNodeInfo: boolean;
  /** Allocatable milli-CPU per zone (sorted by zone), `null` when insufficient. */
  readonly cpuMilliByZone: ValueByZone<number> | null;
  /** Zone CPU / total CPU as doubles (sorted by zone), `null` when insufficient. */
  readonly cpuRatiosByZone: ValueByZone<number> | null;
  /** `null` when sufficient. */
  readonly insufficientCause: InsufficientNodeInfoCause | null;
  /** The node whose missing zone or CPU aborted the walk (the first one in list order). */
  readonly offendingNode: string | null;
}

/**
 * SetNodes: walks the nodes in list order, skipping control-plane and not-ready nodes, aborting
 * on a ready worker without zone or CPU, and summing allocatable CPU per zone exactly (quantities
 * add exactly; `MilliValue()` rounds the sum up). Fewer than two zones, zero total CPU or an abort
 * yield `null` ratios. `ratio[z] = milli[z] / totalMilli` in doubles.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (SetNodes)
 */
export function setNodes(nodes: readonly TopologyNode[], minor: KubeMinor): NodeTopology {
  const nanoByZone = new Map<string, bigint>();
  let totalNano = 0n;
  // 1. Walk nodes in order; the first ready worker without zone or CPU aborts.
  for (const node of nodes) {
    const status = classifyNode(node, minor);
    if (status === 'excluded-control-plane' || status === 'not-ready') continue;
    if (status === 'missing-zone' || status === 'missing-cpu') {
      return insufficient(status === 'missing-zone' ? 'node-missing-zone' : 'node-missing-cpu', node.name);
    }
    const nano = parseQuantityNano(node.allocatableCpu ?? '0') ?? 0n;
    const zone = node.zone ?? '';
    nanoByZone.set(zone, (nanoByZone.get(zone) ?? 0n) + nano);
    totalNano += nano;
  }
  // 2. Zero CPU or fewer than two zones: insufficient.
  if (totalNano === 0n) return insufficient('no-counted-nodes', null);
  if (nanoByZone.size < 2) return insufficient('single-zone', null);
  // 3. Ratios from milli values.
  const totalMilli = Number(nanoToMilli(totalNano));
  const cpuMilliByZone = sortedRecord([...nanoByZone].map(([zone, nano]) => [zone, Number(nanoToMilli(nano))] as [string, number]));
  const cpuRatiosByZone = sortedRecord(Object.entries(cpuMilliByZone).map(([zone, milli]) => [zone, milli / totalMilli] as [string, number]));
  return { sufficientNodeInfo: true, cpuMilliByZone, cpuRatiosByZone, insufficientCause: null, offendingNode: null };
}

function insufficient(cause: InsufficientNodeInfoCause, offendingNode: string | null): NodeTopology {
  return { sufficientNodeInfo: false, cpuMilliByZone: null, cpuRatiosByZone: null, insufficientCause: cause, offendingNode };
}

/* -------------------------------------------------------------------------------------------- */
/* Allocations                                                                                  */
/* -------------------------------------------------------------------------------------------- */

/**
 * Per-zone allocation of a Service's ready endpoints (upstream `allocation`):
 * `minimum = ceil(ratio × n × (1/1.2))`, `desired = max(ratio × n, minimum)`,
 * `maximum = minimum + (n − Σ minimum)`.
 */
export interface Allocation {
  readonly minimum: number;
  readonly desired: number;
  readonly maximum: number;
}

/** `minimum` per zone, in the exact double operation order upstream uses. */
export function minimumForRatio(ratio: number, numEndpoints: number): number {
  const desired = ratio * numEndpoints;
  return Math.ceil(desired * MINIMUM_FACTOR);
}

/** Result of {@link computeAllocationTable}. */
export interface AllocationTable {
  readonly allocations: ValueByZone<Allocation>;
  readonly minimumTotal: number;
}

/**
 * The allocation table whatever the outcome: for every zone the minimum, desired and maximum, and
 * the sum of minimums. Used to show what did not fit when allocation fails. Zones sorted by name.
 */
export function computeAllocationTable(cpuRatiosByZone: Readonly<ValueByZone<number>>, numEndpoints: number): AllocationTable {
  const zones = sortedKeys(cpuRatiosByZone);
  let minimumTotal = 0;
  const partial: { zone: string; minimum: number; desired: number }[] = [];
  for (const zone of zones) {
    const desired = (cpuRatiosByZone[zone] ?? 0) * numEndpoints;
    const minimum = Math.ceil(desired * MINIMUM_FACTOR);
    partial.push({ zone, minimum, desired: Math.max(desired, minimum) });
    minimumTotal += minimum;
  }
  const allocations: ValueByZone<Allocation> = {};
  for (const { zone, minimum, desired } of partial) {
    allocations[zone] = { minimum, desired, maximum: minimum + numEndpoints - minimumTotal };
  }
  return { allocations, minimumTotal };
}

/** Outcome of {@link getAllocations}: allocations, or the disabling event (message without suffix). */
export type AllocationResult =
  | { readonly ok: true; readonly allocations: ValueByZone<Allocation> }
  | { readonly ok: false; readonly event: TopologyEvent };

/** The disabling outcome of {@link getAllocations} (a function of its own: it is called very often). */
function disabled(message: string): AllocationResult {
  return { ok: false, event: { type: 'Warning', reason: REASON_HINTS_DISABLED, message } };
}

/**
 * getAllocations: checks, in order, null ratios, fewer than two zones, fewer ready endpoints than
 * zones, and Σ minimum > n; the first failing check yields its Warning event. Otherwise returns the
 * allocation per zone.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
export function getAllocations(
  cpuRatiosByZone: Readonly<ValueByZone<number>> | null,
  numEndpoints: number,
  /** `computeAllocationTable(cpuRatiosByZone, numEndpoints)` when the caller has it already. */
  table?: AllocationTable,
): AllocationResult {
  if (cpuRatiosByZone === null) return disabled(MESSAGE_INSUFFICIENT_NODE_INFO);
  // The outcome is a function of the ratios and the count: kept per ratios object (a cluster's
  // are one object per preparation, and a pass asks for the same few counts thousands of times).
  let byCount = ALLOCATIONS.get(cpuRatiosByZone);
  if (byCount === undefined) {
    byCount = new Map();
    ALLOCATIONS.set(cpuRatiosByZone, byCount);
  }
  let result = byCount.get(numEndpoints);
  if (result === undefined) {
    result = allocationsOf(cpuRatiosByZone, numEndpoints, table);
    if (byCount.size >= ALLOCATIONS_PER_RATIOS) byCount.clear();
    byCount.set(numEndpoints, result);
  }
  return result;
}

/** {@link getAllocations}' outcomes by ratios object, then by endpoint count (read-only: callers share them). */
const ALLOCATIONS = new WeakMap<Readonly<ValueByZone<number>>, Map<number, AllocationResult>>();

/** Counts {@link ALLOCATIONS} keeps per ratios object before it starts over. */
const ALLOCATIONS_PER_RATIOS = 4_096;

/** {@link getAllocations} worked out. */
function allocationsOf(cpuRatiosByZone: Readonly<ValueByZone<number>>, numEndpoints: number, table: AllocationTable | undefined): AllocationResult {
  const zoneCount = Object.keys(cpuRatiosByZone).length;
  if (zoneCount < 2) return disabled(MESSAGE_NODES_READY_IN_ONE_ZONE_ONLY);
  if (zoneCount > numEndpoints) {
    return disabled(`${MESSAGE_INSUFFICIENT_NUMBER_OF_ENDPOINTS} (${numEndpoints} endpoints, ${zoneCount} zones)`);
  }
  const { allocations, minimumTotal } = table ?? computeAllocationTable(cpuRatiosByZone, numEndpoints);
  if (minimumTotal > numEndpoints) {
    return disabled(`${MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD} (${numEndpoints} endpoints, ${zoneCount} zones)`);
  }
  return { ok: true, allocations };
}

/* -------------------------------------------------------------------------------------------- */
/* The cache                                                                                    */
/* -------------------------------------------------------------------------------------------- */

/** Result of {@link TopologyCache.addHints}: the slices to write and the events to record. */
export interface AddHintsResult {
  readonly outcome: 'enabled' | 'disabled';
  readonly toCreate: MutableEndpointSlice[];
  readonly toUpdate: MutableEndpointSlice[];
  /** Existing slices that still need no write. */
  readonly unchanged: MutableEndpointSlice[];
  /** Events with the address-type suffix (none before 1.26, when events did not exist). */
  readonly events: TopologyEvent[];
  /** The allocation the decision was made with (`null` when allocation failed). */
  readonly allocations: ValueByZone<Allocation> | null;
  /** Hinted endpoints per zone after the call (the cache entry), `null` when disabled. */
  readonly endpointsByZone: ValueByZone<number> | null;
}

/**
 * The EndpointSlice controller's topology cache: CPU ratios from the nodes, the hint counts per
 * Service and address type, and which Services had hints populated. A fresh cache holds an empty
 * (non-null) ratio map, so AddHints before any SetNodes reports "Nodes only ready in one zone".
 * Deterministic: ties upstream leaves to Go map order are broken by sorted zone name.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go
 */
export class TopologyCache {
  /** Release whose behaviour is reproduced. */
  readonly minor: KubeMinor;
  private nodeTopology: NodeTopology | null = null;
  private ratios: ValueByZone<number> | null = {};
  private readonly endpointsByService = new Map<string, Map<AddressType, ValueByZone<number>>>();
  private readonly hintsPopulatedByService = new Set<string>();

  constructor(minor: KubeMinor) {
    this.minor = minor;
  }

  /** Current CPU ratios (`{}` on a fresh cache, `null` when node information is insufficient). */
  get cpuRatiosByZone(): Readonly<ValueByZone<number>> | null {
    return this.ratios;
  }

  /** The last SetNodes result, `null` before the first call. */
  get nodes(): NodeTopology | null {
    return this.nodeTopology;
  }

  /** Replaces the CPU state directly (as upstream tests do); `{}` behaves like a fresh cache. */
  setCpuRatiosByZone(ratios: Readonly<ValueByZone<number>> | null): void {
    this.ratios = ratios === null ? null : { ...ratios };
  }

  /** SetNodes: recomputes the CPU ratios from the node list. */
  setNodes(nodes: readonly TopologyNode[]): NodeTopology {
    this.nodeTopology = setNodes(nodes, this.minor);
    this.ratios = this.nodeTopology.cpuRatiosByZone;
    return this.nodeTopology;
  }

  /** Whether the Service currently counts as having hints populated by the `Auto` path. */
  hasPopulatedHints(serviceKey: string): boolean {
    return this.hintsPopulatedByService.has(serviceKey);
  }

  /** Marks the Service as not populated (tests and restored state). */
  setPopulated(serviceKey: string, populated: boolean): void {
    if (populated) this.hintsPopulatedByService.add(serviceKey);
    else this.hintsPopulatedByService.delete(serviceKey);
  }

  /** The cached hint counts for a Service and address type, `null` when there is no entry. */
  getEndpointsByZone(serviceKey: string, addressType: AddressType): ValueByZone<number> | null {
    const entry = this.endpointsByService.get(serviceKey)?.get(addressType);
    return entry ? { ...entry } : null;
  }

  /** SetHints: stores the counts and marks the Service populated. */
  setHints(serviceKey: string, addressType: AddressType, allocatedHintsByZone: ValueByZone<number>): void {
    let byType = this.endpointsByService.get(serviceKey);
    if (!byType) {
      byType = new Map();
      this.endpointsByService.set(serviceKey, byType);
    }
    byType.set(addressType, { ...allocatedHintsByZone });
    this.hintsPopulatedByService.add(serviceKey);
  }

  /** RemoveHints: drops the entry for the address type and the populated mark (per Service). */
  removeHints(serviceKey: string, addressType: AddressType): void {
    const byType = this.endpointsByService.get(serviceKey);
    if (byType) {
      byType.delete(addressType);
      if (byType.size === 0) this.endpointsByService.delete(serviceKey);
    }
    this.hintsPopulatedByService.delete(serviceKey);
  }

  /**
   * GetOverloadedServices: keys (sorted) of Services whose cached counts are overloaded under the
   * current ratios for any address type. The controller re-queues them after a node change.
   */
  getOverloadedServices(): string[] {
    const keys: string[] = [];
    for (const [serviceKey, byType] of this.endpointsByService) {
      for (const counts of byType.values()) {
        if (isServiceOverloaded(counts, this.ratios)) {
          keys.push(serviceKey);
          break;
        }
      }
    }
    return keys.sort();
  }

  /**
   * AddHints: the `Auto` heuristic for one Service and address type (topology-semantics §6).
   * Works on a deep copy of `info`; the input is never mutated.
   */
  addHints(info: SliceInfo): AddHintsResult {
    // Unchanged slices are only read (validated, or copied onto the update list), never written.
    const si = cloneSliceInfoForWrite(info);
    const withEvents = this.minor >= 26;
    const events: TopologyEvent[] = [];
    const disable = (message: string, allocations: ValueByZone<Allocation> | null): AddHintsResult => {
      if (withEvents) events.push({ type: 'Warning', reason: REASON_HINTS_DISABLED, message: formatWithAddressType(message, si.addressType) });
      this.removeHints(si.serviceKey, si.addressType);
      const { toCreate, toUpdate } = removeHintsFromSlices(si);
      return { outcome: 'disabled', toCreate, toUpdate, unchanged: si.unchanged, events, allocations, endpointsByZone: null };
    };

    // 1. Allocations for the ready endpoints of all three lists.
    const { totalReadyEndpoints } = getTotalReadyEndpoints(si, this.minor);
    const allocation = getAllocations(this.ratios, totalReadyEndpoints);
    if (!allocation.ok) return disable(allocation.event.message, null);
    const { allocations } = allocation;

    // 2. Keep unchanged slices whose hints still fit; move the others (copied) to the update list.
    const allocatedHintsByZone = this.getAllocatedHintsByZone(si, allocations);

    // 3. Same-zone hints for every ready endpoint of the slices being written.
    const allocatableSlices = [...si.toCreate, ...si.toUpdate];
    for (const slice of allocatableSlices) {
      for (const endpoint of slice.endpoints) {
        // Upstream clears an unready endpoint's hints on a loop copy, so they are kept (§13.2).
        if (!isEndpointReady(endpoint, this.minor)) continue;
        if (endpoint.zone === null || endpoint.zone === '') return disable(MESSAGE_NO_ZONE_SPECIFIED, allocations);
        allocatedHintsByZone.set(endpoint.zone, (allocatedHintsByZone.get(endpoint.zone) ?? 0) + 1);
        endpoint.hints = zoneHints(endpoint.zone);
      }
    }

    // 4. Which zones give and which receive whole endpoints.
    const { givingZones, receivingZones } = getGivingAndReceivingZones(allocations, Object.fromEntries(allocatedHintsByZone));

    // 5. Re-hint endpoints of giving zones to receiving zones.
    const redistributions = redistributeHints(allocatableSlices, givingZones, receivingZones, this.minor);
    for (const [zone, diff] of Object.entries(redistributions)) {
      allocatedHintsByZone.set(zone, (allocatedHintsByZone.get(zone) ?? 0) + diff);
    }

    // 6. Nothing allocated at all (1.26+ check).
    if (withEvents && allocatedHintsByZone.size === 0) return disable(MESSAGE_NO_ALLOCATED_HINTS_FOR_ZONES, allocations);

    // 7. Store the counts; announce the transition to enabled.
    const wasPopulated = this.hasPopulatedHints(si.serviceKey);
    const endpointsByZone = sortedRecord(allocatedHintsByZone);
    this.setHints(si.serviceKey, si.addressType, endpointsByZone);
    if (withEvents && !wasPopulated) {
      events.push({ type: 'Normal', reason: REASON_HINTS_ENABLED, message: formatWithAddressType(MESSAGE_TOPOLOGY_AWARE_HINTS_ENABLED, si.addressType) });
    }
    return { outcome: 'enabled', toCreate: si.toCreate, toUpdate: si.toUpdate, unchanged: si.unchanged, events, allocations, endpointsByZone };
  }

  /** getAllocatedHintsByZone: validates unchanged slices in order against the running counts. */
  private getAllocatedHintsByZone(si: MutableSliceInfo, allocations: ValueByZone<Allocation>): Map<string, number> {
    const allocated = new Map<string, number>();
    const stillUnchanged: MutableEndpointSlice[] = [];
    for (const slice of si.unchanged) {
      const hintsByZone = getHintsByZone(slice, Object.fromEntries(allocated), allocations, this.minor);
      if (hintsByZone === null) {
        si.toUpdate.push(cloneSlice(slice));
      } else {
        stillUnchanged.push(slice);
        for (const [zone, count] of Object.entries(hintsByZone)) allocated.set(zone, (allocated.get(zone) ?? 0) + count);
      }
    }
    si.unchanged = stillUnchanged;
    return allocated;
  }
}

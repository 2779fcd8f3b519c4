import { hintsEnabled } from '../../../lib/topology/upstream/annotations';
import { checkNodeTopologyDistribution, nodeUpdateRequiresRecompute, reconcileTopologyHints } from '../../../lib/topology/upstream/reconciler';
import type { SliceInfo } from '../../../lib/topology/upstream/slice-info';
import { cloneSlice, getTotalReadyEndpoints } from '../../../lib/topology/upstream/slice-info';
import { TopologyCache, getAllocations, setNodes } from '../../../lib/topology/upstream/topology-cache';
import { getGivingAndReceivingZones, getHintsByZone, isServiceOverloaded, redistributeHints } from '../../../lib/topology/upstream/topology-cache-utils';
import { reconcileHints } from '../../../lib/topology/upstream/traffic-distribution';
import type { AddressType, Endpoint, EndpointSlice, TopologyEvent, TopologyNode, ValueByZone } from '../../../lib/topology/upstream/types';
import type { FeatureGates } from '../../../lib/topology/upstream/version';
import { canonical, expectEqual } from '../compare';
import type { CheckContext, Vector, VectorCheck } from '../types';

type SliceState = 'toCreate' | 'toUpdate' | 'unchanged';
interface VectorSlice extends EndpointSlice {
  state: SliceState;
}
interface ExpectedEvent {
  type: string;
  reason: string;
  messagePrefix?: string;
  message?: string;
}

function field<T>(vector: Vector, key: string): T {
  if (!(key in vector.input)) throw new Error(`input.${key} is missing`);
  return vector.input[key] as T;
}

/** Splits vector slices into the reconciler's three lists. */
function toSliceInfo(slices: readonly VectorSlice[], serviceKey: string, addressType: AddressType): SliceInfo {
  const pick = (state: SliceState) => slices.filter((slice) => slice.state === state).map(({ state: _state, ...slice }) => slice);
  for (const slice of slices) {
    if (!['toCreate', 'toUpdate', 'unchanged'].includes(slice.state)) throw new Error(`unknown slice state ${JSON.stringify(slice.state)}`);
  }
  return { serviceKey, addressType, toCreate: pick('toCreate'), toUpdate: pick('toUpdate'), unchanged: pick('unchanged') };
}

/** Slices as the vectors print them: endpoints only, positional. */
function outputSlices(slices: readonly EndpointSlice[]): { endpoints: Endpoint[] }[] {
  return slices.map((slice) => ({ endpoints: slice.endpoints.map((endpoint) => ({ ...endpoint })) }));
}

function compareEvents(diffs: string[], expected: readonly ExpectedEvent[], actual: readonly TopologyEvent[]): void {
  if (expected.length !== actual.length) {
    diffs.push(`events: expected ${canonical(expected.map((e) => e.message ?? e.messagePrefix))}, got ${canonical(actual.map((e) => e.message))}`);
    return;
  }
  expected.forEach((want, index) => {
    const got = actual[index];
    if (!got) return;
    expectEqual(diffs, `events[${index}].type`, want.type, got.type);
    expectEqual(diffs, `events[${index}].reason`, want.reason, got.reason);
    if (want.messagePrefix !== undefined && !got.message.startsWith(want.messagePrefix)) {
      diffs.push(`events[${index}].message: expected prefix ${JSON.stringify(want.messagePrefix)}, got ${JSON.stringify(got.message)}`);
    }
    if (want.message !== undefined) expectEqual(diffs, `events[${index}].message`, want.message, got.message);
  });
}

/** Counts endpoints per hinted zone over the given slices (each listed zone counts once). */
function hintCounts(slices: readonly EndpointSlice[]): ValueByZone<number> {
  const counts: ValueByZone<number> = {};
  for (const slice of slices) for (const endpoint of slice.endpoints) for (const zone of endpoint.hints?.forZones ?? []) counts[zone] = (counts[zone] ?? 0) + 1;
  return counts;
}

/** A cache prepared from `cpuRatiosByZone` (state set directly) or from `nodes` via SetNodes. */
function cacheFromInput(vector: Vector, context: CheckContext): TopologyCache {
  const cache = new TopologyCache(context.minor);
  if ('cpuRatiosByZone' in vector.input) cache.setCpuRatiosByZone(vector.input.cpuRatiosByZone as ValueByZone<number> | null);
  else cache.setNodes(field<TopologyNode[]>(vector, 'nodes'));
  return cache;
}

const checkSetNodes: VectorCheck = (vector, { minor }) => {
  const result = setNodes(field<TopologyNode[]>(vector, 'nodes'), minor);
  const diffs: string[] = [];
  expectEqual(diffs, 'sufficientNodeInfo', vector.expected.sufficientNodeInfo, result.sufficientNodeInfo);
  expectEqual(diffs, 'cpuMilliByZone', vector.expected.cpuMilliByZone, result.cpuMilliByZone);
  expectEqual(diffs, 'cpuRatiosByZone', vector.expected.cpuRatiosByZone, result.cpuRatiosByZone);
  return diffs;
};

const checkAddHints: VectorCheck = (vector, context) => {
  const service = field<{ key: string; addressType: AddressType }>(vector, 'service');
  const cache = cacheFromInput(vector, context);
  const populated = (vector.input.cache as { hintsPopulatedForService?: boolean } | undefined)?.hintsPopulatedForService ?? false;
  cache.setPopulated(service.key, populated);
  const info = toSliceInfo(field<VectorSlice[]>(vector, 'endpointSlices'), service.key, service.addressType);
  const result = cache.addHints(info);
  const expected = vector.expected;
  const diffs: string[] = [];
  expectEqual(diffs, 'outcome', expected.outcome, result.outcome);
  compareEvents(diffs, (expected.events as ExpectedEvent[] | undefined) ?? [], result.events);
  if ('endpointsByZone' in expected) expectEqual(diffs, 'endpointsByZone', expected.endpointsByZone, cache.getEndpointsByZone(service.key, service.addressType));
  if ('slicesToCreate' in expected) expectEqual(diffs, 'slicesToCreate', expected.slicesToCreate, outputSlices(result.toCreate));
  if ('slicesToUpdate' in expected) expectEqual(diffs, 'slicesToUpdate', expected.slicesToUpdate, outputSlices(result.toUpdate));
  if ('slicesUnchanged' in expected) expectEqual(diffs, 'slicesUnchanged', expected.slicesUnchanged, outputSlices(result.unchanged));
  if ('hintCountsByZone' in expected) {
    expectEqual(diffs, 'hintCountsByZone', expected.hintCountsByZone, hintCounts([...result.toCreate, ...result.toUpdate, ...result.unchanged]));
  }
  return diffs;
};

const checkGetAllocations: VectorCheck = (vector) => {
  const result = getAllocations(field<ValueByZone<number> | null>(vector, 'cpuRatiosByZone'), field<number>(vector, 'numReadyEndpoints'));
  const diffs: string[] = [];
  if ('allocations' in vector.expected) {
    expectEqual(diffs, 'allocations', vector.expected.allocations, result.ok ? result.allocations : { disabled: result.event.message });
  } else {
    expectEqual(diffs, 'disabled', vector.expected.disabled, result.ok ? { allocations: result.allocations } : { reason: result.event.reason, message: result.event.message });
  }
  return diffs;
};

const checkGivingReceiving: VectorCheck = (vector) => {
  const result = getGivingAndReceivingZones(
    field<ValueByZone<{ desired: number }>>(vector, 'allocations'),
    field<ValueByZone<number>>(vector, 'allocatedHintsByZone'),
  );
  const diffs: string[] = [];
  expectEqual(diffs, 'givingZones', vector.expected.givingZones, result.givingZones);
  expectEqual(diffs, 'receivingZones', vector.expected.receivingZones, result.receivingZones);
  return diffs;
};

const checkRedistribute: VectorCheck = (vector, { minor }) => {
  const slices = field<EndpointSlice[]>(vector, 'slices').map(cloneSlice);
  const result = redistributeHints(slices, { ...field<ValueByZone<number>>(vector, 'givingZones') }, { ...field<ValueByZone<number>>(vector, 'receivingZones') }, minor);
  const diffs: string[] = [];
  expectEqual(diffs, 'redistributions', vector.expected.redistributions, result);
  if ('endpointHints' in vector.expected) {
    const hints = slices.flatMap((slice) => slice.endpoints.map((endpoint) => (endpoint.hints === null ? null : [...(endpoint.hints.forZones ?? [])])));
    expectEqual(diffs, 'endpointHints', vector.expected.endpointHints, hints);
  }
  return diffs;
};

const checkGetHintsByZone: VectorCheck = (vector, { minor }) => {
  const result = getHintsByZone(
    field<EndpointSlice>(vector, 'slice'),
    field<ValueByZone<number>>(vector, 'allocatedHintsByZone'),
    field<ValueByZone<{ maximum: number }>>(vector, 'allocations'),
    minor,
  );
  const diffs: string[] = [];
  expectEqual(diffs, 'hintsByZone', vector.expected.hintsByZone, result);
  return diffs;
};

const checkTotalReadyEndpoints: VectorCheck = (vector, { minor }) => {
  const compact = field<{ state: SliceState; readyCount: number; unreadyCount: number }[]>(vector, 'endpointSlices');
  const slices: VectorSlice[] = compact.map(({ state, readyCount, unreadyCount }) => {
    const endpoints: Endpoint[] = [];
    for (let i = 0; i < readyCount + unreadyCount; i++) {
      endpoints.push({ addresses: [`10.1.2.${i}`], zone: null, nodeName: null, ready: i < readyCount, hints: null });
    }
    return { state, endpoints };
  });
  const result = getTotalReadyEndpoints(toSliceInfo(slices, 'ns/svc', 'IPv4'), minor);
  const diffs: string[] = [];
  expectEqual(diffs, 'totalReadyEndpoints', vector.expected.totalReadyEndpoints, result.totalReadyEndpoints);
  expectEqual(diffs, 'totalEndpoints', vector.expected.totalEndpoints, result.totalEndpoints);
  return diffs;
};

const checkServiceOverloaded: VectorCheck = (vector, { minor }) => {
  const diffs: string[] = [];
  if ('endpointsByZoneByService' in vector.input) {
    const cache = field<boolean>(vector, 'topologyCacheEnabled') ? new TopologyCache(minor) : null;
    const addressType = field<AddressType>(vector, 'addressType');
    for (const [serviceKey, counts] of Object.entries(field<Record<string, ValueByZone<number>>>(vector, 'endpointsByZoneByService'))) {
      cache?.setHints(serviceKey, addressType, counts);
    }
    const queued = checkNodeTopologyDistribution(cache, field<TopologyNode[]>(vector, 'nodes'));
    expectEqual(diffs, 'queuedServices', [...(vector.expected.queuedServices as string[])].sort(), queued);
  } else {
    const overloaded = isServiceOverloaded(field<ValueByZone<number>>(vector, 'endpointsByZone'), field<ValueByZone<number> | null>(vector, 'cpuRatiosByZone'));
    expectEqual(diffs, 'overloaded', vector.expected.overloaded, overloaded);
  }
  return diffs;
};

const checkHintsEnabled: VectorCheck = (vector, { minor }) => {
  const diffs: string[] = [];
  expectEqual(diffs, 'enabled', vector.expected.enabled, hintsEnabled(field<Record<string, string>>(vector, 'annotations'), minor));
  return diffs;
};

const checkTrafficDist: VectorCheck = (vector, { minor }) => {
  const info = toSliceInfo(field<VectorSlice[]>(vector, 'endpointSlices'), 'ns/svc', 'IPv4');
  const before = canonical(info);
  const result = reconcileHints(field<string | null>(vector, 'trafficDistribution'), info.toCreate, info.toUpdate, info.unchanged, minor);
  const diffs: string[] = [];
  expectEqual(diffs, 'slicesToCreate', vector.expected.slicesToCreate, outputSlices(result.toCreate));
  expectEqual(diffs, 'slicesToUpdate', vector.expected.slicesToUpdate, outputSlices(result.toUpdate));
  expectEqual(diffs, 'slicesUnchanged', vector.expected.slicesUnchanged, outputSlices(result.unchanged));
  if (vector.expected.inputSliceUnmodified === true && canonical(info) !== before) diffs.push('input slices were modified');
  return diffs;
};

interface ReconcileControllerInput {
  topologyCacheEnabled: boolean;
  trafficDistributionEnabled: boolean;
  preferSameTrafficDistribution?: boolean;
}

const checkReconcile: VectorCheck = (vector, context) => {
  const controller = field<ReconcileControllerInput>(vector, 'controller');
  const gates: FeatureGates = {
    ...context.gates,
    TopologyAwareHints: controller.topologyCacheEnabled,
    ServiceTrafficDistribution: controller.trafficDistributionEnabled,
    PreferSameTrafficDistribution: controller.preferSameTrafficDistribution ?? context.gates.PreferSameTrafficDistribution,
  };
  const service = field<{ key: string; annotations: Record<string, string>; trafficDistribution: string | null }>(vector, 'service');
  let cache: TopologyCache | null = null;
  if (gates.TopologyAwareHints) {
    cache = new TopologyCache(context.minor);
    cache.setNodes(field<TopologyNode[]>(vector, 'nodes'));
    if ((vector.input.cache as { hintsPopulatedForService?: boolean } | undefined)?.hintsPopulatedForService) cache.setPopulated(service.key, true);
  }
  const info = toSliceInfo(field<VectorSlice[]>(vector, 'endpointSlices'), service.key, 'IPv4');
  const result = reconcileTopologyHints(service, info, cache, context.minor, gates);
  const finalSlices = [...result.toCreate, ...result.toUpdate, ...result.unchanged];
  const hintsByZone: ValueByZone<number> = {};
  const hintsByNode: Record<string, number> = {};
  let crossZoneHints = 0;
  for (const endpoint of finalSlices.flatMap((slice) => slice.endpoints)) {
    const zoneHint = endpoint.hints?.forZones?.[0] ?? '';
    hintsByZone[zoneHint] = (hintsByZone[zoneHint] ?? 0) + 1;
    const nodeHint = endpoint.hints?.forNodes?.[0] ?? '';
    hintsByNode[nodeHint] = (hintsByNode[nodeHint] ?? 0) + 1;
    if (zoneHint !== '' && zoneHint !== endpoint.zone) crossZoneHints++;
  }
  const expected = vector.expected;
  const diffs: string[] = [];
  expectEqual(diffs, 'hintsByZone', expected.hintsByZone, hintsByZone);
  if ('hintsByNode' in expected) expectEqual(diffs, 'hintsByNode', expected.hintsByNode, hintsByNode);
  expectEqual(diffs, 'crossZoneHints', expected.crossZoneHints, crossZoneHints);
  expectEqual(diffs, 'slicesCreated', expected.slicesCreated, result.toCreate.length);
  expectEqual(diffs, 'slicesUpdated', expected.slicesUpdated, result.toUpdate.length);
  compareEvents(diffs, (expected.events as ExpectedEvent[] | undefined) ?? [], result.events);
  return diffs;
};

interface NodeStep {
  event: 'add' | 'update' | 'delete';
  old?: TopologyNode[];
  nodes: TopologyNode[];
}

const checkNodeUpdate: VectorCheck = (vector, context) => {
  const steps = field<NodeStep[]>(vector, 'steps');
  const expectedSteps = vector.expected.afterStep as { topologyRecomputed: boolean; addHintsEventMessageContains?: string }[];
  const service = vector.input.service as { key: string; addressType: AddressType } | undefined;
  const slices = vector.input.endpointSlices as VectorSlice[] | undefined;
  const cache = context.gates.TopologyAwareHints ? new TopologyCache(context.minor) : null;
  const diffs: string[] = [];
  if (expectedSteps.length !== steps.length) diffs.push(`afterStep: ${expectedSteps.length} expectations for ${steps.length} steps`);
  steps.forEach((step, index) => {
    const expected = expectedSteps[index];
    if (!expected) return;
    let recomputed = false;
    if (cache !== null) {
      if (step.event === 'update') {
        const oldByName = new Map((step.old ?? []).map((node) => [node.name, node]));
        recomputed = step.nodes.some((node) => {
          const old = oldByName.get(node.name);
          return old === undefined || nodeUpdateRequiresRecompute(old, node);
        });
      } else {
        recomputed = true;
      }
      if (recomputed) checkNodeTopologyDistribution(cache, step.nodes);
    }
    expectEqual(diffs, `afterStep[${index}].topologyRecomputed`, expected.topologyRecomputed, recomputed);
    if (expected.addHintsEventMessageContains !== undefined) {
      if (!cache || !service || !slices) {
        diffs.push(`afterStep[${index}]: no cache or service to run AddHints with`);
        return;
      }
      const result = cache.addHints(toSliceInfo(slices, service.key, service.addressType));
      if (!result.events.some((event) => event.message.includes(expected.addHintsEventMessageContains ?? ''))) {
        diffs.push(`afterStep[${index}]: expected an event containing ${JSON.stringify(expected.addHintsEventMessageContains)}, got ${canonical(result.events.map((e) => e.message))}`);
      }
    }
  });
  return diffs;
};

/** Checkers for the twelve `controller.*` vector categories. */
export const controllerChecks: Readonly<Record<string, VectorCheck>> = {
  'controller.setNodes': checkSetNodes,
  'controller.addHints': checkAddHints,
  'controller.getAllocations': checkGetAllocations,
  'controller.givingReceiving': checkGivingReceiving,
  'controller.redistribute': checkRedistribute,
  'controller.getHintsByZone': checkGetHintsByZone,
  'controller.totalReadyEndpoints': checkTotalReadyEndpoints,
  'controller.serviceOverloaded': checkServiceOverloaded,
  'controller.hintsEnabled': checkHintsEnabled,
  'controller.trafficDist': checkTrafficDist,
  'controller.reconcile': checkReconcile,
  'controller.nodeUpdate': checkNodeUpdate,
};

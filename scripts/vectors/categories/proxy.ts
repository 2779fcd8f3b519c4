/**
 * Vector checks for the kube-proxy categories (topology-semantics.md §1, §11):
 * `proxy.categorize` → `categorizeEndpoints`, `proxy.filterLegacy` → the 1.21–1.23 functions.
 */
import { filterEndpoints, filterEndpointsWithHints, filterLocalEndpoint } from '../../../lib/topology/upstream/proxy-legacy';
import { categorizeEndpoints } from '../../../lib/topology/upstream/proxy-topology';
import type { LegacyProxyFeatureGates, ProxyEndpoint, ProxyNode, ProxyRelease } from '../../../lib/topology/upstream/proxy-topology';
import type { ProxyServicePort, TrafficPolicy } from '../../../lib/topology/upstream/proxy-service-port';
import { expectEqual, expectSameSet } from '../compare';
import type { CheckContext, Vector, VectorCheck } from '../types';

// ---- input parsing (throws on malformed vectors; the runner reports the message) ----

function record(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${where}: expected an object`);
  return value as Record<string, unknown>;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where}: expected a string`);
  return value;
}

function flag(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`${where}: expected a boolean`);
  return value;
}

function names(value: unknown, where: string): string[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) throw new Error(`${where}: expected a list of names or null`);
  return value.map((item, i) => text(item, `${where}[${i}]`));
}

function endpointList(value: unknown, where: string): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) throw new Error(`${where}: expected a list of endpoints or null`);
  return value.map((item, i) => text(item, `${where}[${i}]`));
}

function trafficPolicy(value: unknown, where: string): TrafficPolicy {
  if (value !== 'Cluster' && value !== 'Local') throw new Error(`${where}: expected "Cluster" or "Local"`);
  return value;
}

function parseNode(value: unknown): ProxyNode {
  const node = record(value, 'input.node');
  const labels: Record<string, string> = {};
  for (const [key, label] of Object.entries(record(node.labels ?? {}, 'input.node.labels'))) {
    labels[key] = text(label, `input.node.labels.${key}`);
  }
  return { name: text(node.name, 'input.node.name'), labels };
}

/**
 * `externallyAccessible` absent (legacy vectors): upstream's 1.21–1.23 tests set
 * `nodeLocalExternal` straight from `externalTrafficPolicy: Local`, which validation only allows
 * on NodePort/LoadBalancer Services — so the Service counts as externally accessible.
 */
function parseService(value: unknown): ProxyServicePort {
  const svc = record(value, 'input.service');
  return {
    internalTrafficPolicy: trafficPolicy(svc.internalTrafficPolicy, 'input.service.internalTrafficPolicy'),
    externalTrafficPolicy: trafficPolicy(svc.externalTrafficPolicy, 'input.service.externalTrafficPolicy'),
    externallyAccessible: svc.externallyAccessible === undefined ? true : flag(svc.externallyAccessible, 'input.service.externallyAccessible'),
    hintsAnnotation: svc.hintsAnnotationValue === undefined ? '' : text(svc.hintsAnnotationValue, 'input.service.hintsAnnotationValue'),
  };
}

function parseEndpoints(value: unknown): ProxyEndpoint[] {
  if (!Array.isArray(value)) throw new Error('input.endpoints: expected a list');
  return value.map((item, i) => {
    const where = `input.endpoints[${i}]`;
    const ep = record(item, where);
    return {
      endpoint: text(ep.endpoint, `${where}.endpoint`),
      zoneHints: names(ep.zoneHints, `${where}.zoneHints`),
      nodeHints: names(ep.nodeHints, `${where}.nodeHints`),
      ready: flag(ep.ready, `${where}.ready`),
      serving: flag(ep.serving, `${where}.serving`),
      terminating: flag(ep.terminating, `${where}.terminating`),
      isLocal: flag(ep.isLocal, `${where}.isLocal`),
    };
  });
}

/** The release with the 1.21-only gates (unknown to `FeatureGates`) taken from the vector. */
function releaseFor(vector: Vector, context: CheckContext): ProxyRelease {
  const legacyGates: Partial<LegacyProxyFeatureGates> = {};
  const gates = vector.featureGates ?? {};
  if (typeof gates.EndpointSliceProxying === 'boolean') legacyGates.EndpointSliceProxying = gates.EndpointSliceProxying;
  if (typeof gates.ServiceTopology === 'boolean') legacyGates.ServiceTopology = gates.ServiceTopology;
  return { minor: context.minor, gates: context.gates, legacyGates };
}

const toStrings = (list: readonly ProxyEndpoint[] | null): string[] | null => (list === null ? null : list.map((ep) => ep.endpoint));

// ---- checks ----

/**
 * `proxy.categorize`: lists compared as sets. For an empty endpoint list, `null` and `[]` are
 * equivalent (§13 item 12: the newest source returns `null`, older tests expected `[]`).
 */
const checkCategorize: VectorCheck = (vector, context) => {
  const input = record(vector.input, 'input');
  const expected = record(vector.expected, 'expected');
  const endpoints = parseEndpoints(input.endpoints);
  const result = categorizeEndpoints(endpoints, parseService(input.service), parseNode(input.node), releaseFor(vector, context));

  const emptyInput = endpoints.length === 0;
  const normalise = (list: string[] | null): string[] | null => (emptyInput && list === null ? [] : list);
  const diffs: string[] = [];
  for (const key of ['clusterEndpoints', 'localEndpoints', 'allReachableEndpoints'] as const) {
    expectSameSet(diffs, key, normalise(endpointList(expected[key], `expected.${key}`)), normalise(toStrings(result[key])));
  }
  expectEqual(diffs, 'hasAnyEndpoints', flag(expected.hasAnyEndpoints, 'expected.hasAnyEndpoints'), result.hasAnyEndpoints);
  return diffs;
};

/** `proxy.filterLegacy`: `endpoints` is an ordered list. Unknown function names are a difference. */
const checkFilterLegacy: VectorCheck = (vector, context) => {
  const input = record(vector.input, 'input');
  const expected = record(vector.expected, 'expected');
  const endpoints = parseEndpoints(input.endpoints);
  const node = parseNode(input.node);
  const svcInfo = parseService(input.service);
  const fn = input.function;

  let actual: ProxyEndpoint[];
  switch (fn) {
    case 'FilterEndpoints':
      actual = filterEndpoints(endpoints, svcInfo, node, releaseFor(vector, context));
      break;
    case 'filterEndpointsWithHints':
      actual = filterEndpointsWithHints(endpoints, svcInfo.hintsAnnotation, node.labels, context.minor);
      break;
    case 'FilterLocalEndpoint':
      actual = filterLocalEndpoint(endpoints);
      break;
    default:
      return [`function: unknown legacy kube-proxy function ${JSON.stringify(fn)}`];
  }
  const diffs: string[] = [];
  expectEqual(diffs, 'endpoints', endpointList(expected.endpoints, 'expected.endpoints'), toStrings(actual));
  return diffs;
};

/** Vector checks of the kube-proxy categories, keyed by category name. */
export const proxyChecks: Record<string, VectorCheck> = {
  'proxy.categorize': checkCategorize,
  'proxy.filterLegacy': checkFilterLegacy,
};

/**
 * kube-proxy endpoint filtering of releases 1.21–1.23, before `CategorizeEndpoints` existed.
 *
 * In these releases every proxier called `FilterEndpoints` first and used its result for all of
 * a Service's chains; readiness was applied afterwards by the proxier. Generations:
 *
 * - 1.21: annotation must be exactly `auto`; 1.21-only gates EndpointSliceProxying (off → no
 *   filtering) and ServiceTopology (on → its `topologyKeys` filter wins over hints); the hint
 *   check looks at every endpoint, ready or not.
 * - 1.22: `Auto` or `auto`; still readiness-blind.
 * - 1.23: readiness-aware: unready endpoints are ignored when deciding and dropped from a
 *   filtered result, but when filtering is not possible the list comes back whole.
 *
 * The decision itself is shared with the 1.24+ engine ({@link topologyModeForService},
 * {@link topologyModeFromHints} in `proxy-topology.ts`); this file applies it as the old
 * functions did. Every function returns a new array and leaves its input untouched.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/release-1.23/pkg/proxy/topology.go
 * @see https://github.com/kubernetes/kubernetes/blob/release-1.21/pkg/proxy/topology.go
 */
import { topologyModeForService, topologyModeFromHints } from './proxy-topology';
import type { ProxyEndpoint, ProxyNode, ProxyRelease, TopologyModeDecision } from './proxy-topology';
import type { ProxyServicePort } from './proxy-service-port';
import { defaultFeatureGates, formatKubeMinor } from './version';
import type { KubeMinor } from './version';

/** First and last release whose kube-proxy used these functions. */
const FIRST_LEGACY_MINOR = 21;
const LAST_LEGACY_MINOR = 23;
/** From 1.23 unready endpoints are left out of a hint-filtered result. */
const SINCE_READINESS_AWARE_HINTS = 23;

function assertLegacyRelease(name: string, minor: KubeMinor): void {
  if (!Number.isInteger(minor) || minor < FIRST_LEGACY_MINOR || minor > LAST_LEGACY_MINOR) {
    throw new RangeError(
      `${name} models kube-proxy 1.21–1.23 only (got ${formatKubeMinor(minor)}); use categorizeEndpoints for later releases`,
    );
  }
}

/** Applies a hint decision: the zone's endpoints (ready ones from 1.23) when hints apply, else everything. */
function applyZoneDecision<E extends ProxyEndpoint>(endpoints: readonly E[], decision: TopologyModeDecision, minor: KubeMinor): E[] {
  if (decision.mode !== 'PreferSameZone') return [...endpoints];
  return endpoints.filter(
    (ep) => (minor < SINCE_READINESS_AWARE_HINTS || ep.ready) && ep.zoneHints !== null && ep.zoneHints.includes(decision.zone),
  );
}

/**
 * 1.21–1.23 `FilterEndpoints`: the endpoints every chain of the Service port uses on this node,
 * in input order.
 *
 * Steps (first matching one wins):
 * 1. `externalTrafficPolicy: Local` on an externally accessible Service → all endpoints
 *    (1.21 also: EndpointSliceProxying gate off → all endpoints).
 * 2. 1.21 with the ServiceTopology gate on → its `topologyKeys` filter; topologyKeys are not
 *    modelled, which is that filter's "no keys" case: all endpoints.
 * 3. `internalTrafficPolicy: Local` with the ServiceInternalTrafficPolicy gate → {@link filterLocalEndpoint}.
 * 4. TopologyAwareHints gate on → {@link filterEndpointsWithHints}.
 * 5. Otherwise all endpoints.
 *
 * @throws RangeError when `release.minor` is not 21–23.
 * @see https://github.com/kubernetes/kubernetes/blob/release-1.23/pkg/proxy/topology.go
 */
export function filterEndpoints<E extends ProxyEndpoint>(
  endpoints: readonly E[],
  svcInfo: ProxyServicePort,
  node: ProxyNode,
  release: ProxyRelease,
): E[] {
  assertLegacyRelease('filterEndpoints', release.minor);
  const decision = topologyModeForService(endpoints, svcInfo, node, release);
  if (decision.reason === 'internal-traffic-policy-local') return filterLocalEndpoint(endpoints);
  return applyZoneDecision(endpoints, decision, release.minor);
}

/**
 * 1.21–1.23 `filterEndpointsWithHints`: the endpoints hinted for this node's zone, or the whole
 * list when hints cannot be used — the annotation is not accepted (1.21: exactly `auto`;
 * 1.22–1.23: `Auto` or `auto`), the node has no (or an empty) zone label, an endpoint has no
 * zone hint, or no endpoint is hinted for the zone. From 1.23 only ready endpoints are
 * considered and returned when filtering; earlier releases ignore readiness.
 *
 * @param hintsAnnotation value of `service.kubernetes.io/topology-aware-hints` (`""` if absent).
 * @param nodeLabels labels of kube-proxy's node.
 * @throws RangeError when `minor` is not 21–23.
 * @see https://github.com/kubernetes/kubernetes/blob/release-1.23/pkg/proxy/topology.go
 */
export function filterEndpointsWithHints<E extends ProxyEndpoint>(
  endpoints: readonly E[],
  hintsAnnotation: string,
  nodeLabels: Readonly<Record<string, string>>,
  minor: KubeMinor,
): E[] {
  assertLegacyRelease('filterEndpointsWithHints', minor);
  const decision = topologyModeFromHints(endpoints, hintsAnnotation, { name: '', labels: nodeLabels }, { minor, gates: defaultFeatureGates(minor) });
  return applyZoneDecision(endpoints, decision, minor);
}

/**
 * 1.22–1.23 `FilterLocalEndpoint` (1.21: `filterEndpointsInternalTrafficPolicy` with policy
 * Local): the endpoints on this node, in input order, ready or not. Upstream returns a nil list
 * when none is local; this returns `[]`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/release-1.23/pkg/proxy/topology.go
 */
export function filterLocalEndpoint<E extends ProxyEndpoint>(endpoints: readonly E[]): E[] {
  return endpoints.filter((ep) => ep.isLocal);
}

/**
 * A Service port as kube-proxy holds it (upstream `ServicePort` / `BaseServicePortInfo`): its two
 * traffic policies, whether anything outside the cluster reaches it, the hints annotation it reads,
 * and from those whether it ever sends traffic by the Cluster policy, by the Local policy, or both
 * (`UsesClusterEndpoints`, `UsesLocalEndpoints`), release by release.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/serviceport.go
 */
import { effectiveTopologyAnnotation } from './annotations';
import type { ProxyRelease } from './proxy-topology';
import { MAX_MODELLED_MINOR } from './version';
import type { KubeMinor } from './version';

/** A Service's `internalTrafficPolicy` / `externalTrafficPolicy` value. */
export type TrafficPolicy = 'Cluster' | 'Local';

/** What kube-proxy knows about one Service port (upstream `ServicePort`). */
export interface ProxyServicePort {
  internalTrafficPolicy: TrafficPolicy;
  externalTrafficPolicy: TrafficPolicy;
  /** NodePort ≠ 0, load-balancer ingress IPs or external IPs. */
  externallyAccessible: boolean;
  /** Effective hints annotation value ({@link effectiveHintsAnnotation}); `""` when no key is set. */
  hintsAnnotation: string;
}

/** ServiceInternalTrafficPolicy GA (locked on) in 1.26. */
const SINCE_INTERNAL_TRAFFIC_POLICY_GA = 26;

/**
 * The hints annotation value kube-proxy sees for a Service: the deprecated
 * `service.kubernetes.io/topology-aware-hints` key whenever it is present (even with an empty
 * value), otherwise `service.kubernetes.io/topology-mode`. Releases before 1.27 know only the
 * deprecated key. Returns `""` when no applicable key is set (as upstream does).
 *
 * @param minor release to model; defaults to the newest modelled release (both keys known).
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/serviceport.go
 */
export function effectiveHintsAnnotation(
  annotations: Readonly<Record<string, string>> | null | undefined,
  minor: KubeMinor = MAX_MODELLED_MINOR,
): string {
  return effectiveTopologyAnnotation(annotations, minor)?.value ?? '';
}

/** `internalTrafficPolicy: Local` in effect (`InternalPolicyLocal`; the ServiceInternalTrafficPolicy gate mattered before 1.26). */
export function internalPolicyLocal(svcInfo: ProxyServicePort, release: ProxyRelease): boolean {
  if (svcInfo.internalTrafficPolicy !== 'Local') return false;
  return release.minor >= SINCE_INTERNAL_TRAFFIC_POLICY_GA || release.gates.ServiceInternalTrafficPolicy;
}

/** `externalTrafficPolicy: Local` in effect (`ExternalPolicyLocal`; only meaningful for externally accessible Services). */
export function externalPolicyLocal(svcInfo: ProxyServicePort): boolean {
  return svcInfo.externalTrafficPolicy === 'Local' && svcInfo.externallyAccessible;
}

/**
 * Whether the Service ever uses Cluster-policy endpoints on a node: unless internal traffic is
 * Local-only and nothing reaches it from outside. (With `externalTrafficPolicy: Local` the cluster
 * set is still needed for traffic that originates on the node.)
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/serviceport.go
 */
export function usesClusterEndpoints(svcInfo: ProxyServicePort, release: ProxyRelease): boolean {
  return !internalPolicyLocal(svcInfo, release) || svcInfo.externallyAccessible;
}

/**
 * Whether the Service ever uses Local-policy endpoints on a node: internal policy Local, or
 * external policy Local on an externally accessible Service.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/serviceport.go
 */
export function usesLocalEndpoints(svcInfo: ProxyServicePort, release: ProxyRelease): boolean {
  return internalPolicyLocal(svcInfo, release) || externalPolicyLocal(svcInfo);
}

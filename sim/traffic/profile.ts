/**
 * Which series the simulator exports per namespace and the deliberate differences from the
 * engine's prediction, per scenario. Coverage, for every scenario: nothing at all for namespace
 * `kube-system` (its Services stay "assumed"); only pod bytes for `platform` (Beyla is not
 * deployed there, so they fall back to pod bytes); flows and pod bytes for every other
 * namespace. Deviations, for the eks-demo scenario only (recognised by its Services, or named with
 * `scenarioName`): `shop/catalog` is keep-alive skewed — {@link KEEP_ALIVE_PINNED_SHARE} of each
 * client zone's requests stay on the endpoints of one other zone (the next zone by name), as
 * long-lived connections balanced once do — and `shop/storefront` moves
 * {@link STOREFRONT_VOLUME_FACTOR}× its modelled volume.
 */
import { KUBE_SYSTEM } from '../../lib/k8s/wire-to-record/dataplane';
import type { KubeObject } from '../types';

/** Share of each client zone's requests the keep-alive deviation pins to another zone's endpoints. */
export const KEEP_ALIVE_PINNED_SHARE = 0.8;
/** Volume factor of eks-demo's `shop/storefront`. */
export const STOREFRONT_VOLUME_FACTOR = 100;
/** `k8s_cluster_name` when the scenario has no name. */
export const DEFAULT_TRAFFIC_CLUSTER_NAME = 'zonescope-sim';
/** Namespaces without Beyla (pod bytes only). */
export const POD_BYTES_ONLY_NAMESPACES: readonly string[] = ['platform'];
/** Namespaces with no series at all. */
export const UNMEASURED_NAMESPACES: readonly string[] = [KUBE_SYSTEM];

/** A deliberate difference between the exported traffic and the engine's prediction. */
export type TrafficDeviation =
  | { readonly kind: 'keep-alive'; readonly pinnedShare: number; readonly description: string }
  | { readonly kind: 'volume'; readonly factor: number; readonly description: string };

/** Which series the simulator exports and which deviations it applies. */
export interface TrafficProfile {
  /** `k8s_cluster_name` of the Beyla series. */
  readonly clusterName: string;
  /** `namespace/name` → deviation. */
  readonly deviations: ReadonlyMap<string, TrafficDeviation>;
  readonly podBytesOnlyNamespaces: readonly string[];
  readonly unmeasuredNamespaces: readonly string[];
}

/** Services only the eks-demo scenario has (fixtures/eks-demo.yaml), all of them. */
const EKS_DEMO_SIGNATURE = ['shop/catalog', 'shop/storefront', 'payments/ledger', 'platform/config'];

const EKS_DEMO_DEVIATIONS: ReadonlyMap<string, TrafficDeviation> = new Map<string, TrafficDeviation>([
  [
    'shop/catalog',
    {
      kind: 'keep-alive',
      pinnedShare: KEEP_ALIVE_PINNED_SHARE,
      description: `keep-alive skew: ${KEEP_ALIVE_PINNED_SHARE * 100} % of each client zone's requests stay on the endpoints of one other zone (long-lived connections balanced once)`,
    },
  ],
  ['shop/storefront', { kind: 'volume', factor: STOREFRONT_VOLUME_FACTOR, description: `volume: ${STOREFRONT_VOLUME_FACTOR}× the modelled bytes` }],
]);

/**
 * The traffic profile of a scenario: eks-demo's deviations when `scenarioName` is `eks-demo`, or,
 * without a name, when the objects hold every Service of eks-demo's signature; none otherwise.
 * The coverage rules (no Beyla in `platform`, nothing for `kube-system`) hold for every scenario.
 */
export function trafficProfileFor(objects: readonly KubeObject[], scenarioName?: string): TrafficProfile {
  let eksDemo: boolean;
  if (scenarioName !== undefined) eksDemo = scenarioName === 'eks-demo';
  else {
    const services = new Set(objects.filter((o) => o.kind === 'Service').map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`));
    eksDemo = EKS_DEMO_SIGNATURE.every((key) => services.has(key));
  }
  return {
    clusterName: scenarioName ?? (eksDemo ? 'eks-demo' : DEFAULT_TRAFFIC_CLUSTER_NAME),
    deviations: eksDemo ? EKS_DEMO_DEVIATIONS : new Map(),
    podBytesOnlyNamespaces: POD_BYTES_ONLY_NAMESPACES,
    unmeasuredNamespaces: UNMEASURED_NAMESPACES,
  };
}

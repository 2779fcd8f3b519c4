/**
 * The engine's view of EndpointSlices and Nodes: only what the EndpointSlice controller's
 * topology code and kube-proxy read. Field absence is modelled as `null`, as in the vectors
 * of topology-semantics.md §1 (`ready: null` = the condition is not set).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/api/discovery/v1/types.go
 */

/** `discovery.k8s.io/v1` address type; hints are computed per address type. */
export type AddressType = 'IPv4' | 'IPv6' | 'FQDN';

/**
 * `endpoints[].hints`. Names only (the wire form is `[{name}]`). An absent list is `undefined`;
 * `{ forZones: [] }` is a hints object with an empty list, which differs from no hints at all.
 */
export interface EndpointHints {
  readonly forZones?: readonly string[];
  readonly forNodes?: readonly string[];
}

/** One endpoint of an EndpointSlice. */
export interface Endpoint {
  readonly addresses: readonly string[];
  /** `endpoints[].zone`; `null` when absent. */
  readonly zone: string | null;
  /** `endpoints[].nodeName`; `null` when absent. */
  readonly nodeName: string | null;
  /** `conditions.ready`; `null` when absent. */
  readonly ready: boolean | null;
  /** `conditions.serving`; `null`/absent when not set. */
  readonly serving?: boolean | null;
  /** `conditions.terminating`; `null`/absent when not set. */
  readonly terminating?: boolean | null;
  /** `null` = no hints object. */
  readonly hints: EndpointHints | null;
  /** Name of the Pod behind the endpoint (`targetRef.name`), when known. Not used by upstream logic. */
  readonly podName?: string | null;
}

/** An EndpointSlice as the topology code sees it. */
export interface EndpointSlice {
  readonly name?: string;
  readonly addressType?: AddressType;
  readonly endpoints: readonly Endpoint[];
}

/** A Node as the topology cache sees it. */
export interface TopologyNode {
  readonly name: string;
  /** `topology.kubernetes.io/zone` label: `null` = label absent, `""` = present but empty. */
  readonly zone: string | null;
  /** `status.allocatable.cpu` as a Kubernetes quantity (`"2"`, `"1500m"`), `null` = no entry. */
  readonly allocatableCpu: string | null;
  /** `Ready` condition: `true`/`false`, `null` = no Ready condition. */
  readonly ready: boolean | null;
  /** All other labels (the control-plane/master labels exclude a node). */
  readonly labels: Readonly<Record<string, string>>;
}

/** An event the controller records on the Service (type, reason, message). */
export interface TopologyEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** Zone name → value. */
export type ValueByZone<T> = Record<string, T>;

/** Mutable endpoint used inside algorithms that, like upstream, rewrite hints in place on copies. */
export type MutableEndpoint = { -readonly [K in keyof Endpoint]: Endpoint[K] };

/** Mutable slice (see {@link MutableEndpoint}). */
export interface MutableEndpointSlice {
  name?: string;
  addressType?: AddressType;
  endpoints: MutableEndpoint[];
}

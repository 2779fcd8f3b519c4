/**
 * Well-known keys, thresholds and event strings of Topology Aware Routing, as upstream
 * Kubernetes defines them.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/api/core/v1/annotation_key_constants.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/event.go
 */

/** Node label carrying the zone (`v1.LabelTopologyZone`). */
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';

/** Node labels that exclude a node from the topology cache, whatever their value (1.23+). */
export const EXCLUDED_NODE_LABELS: readonly string[] = [
  'node-role.kubernetes.io/control-plane',
  'node-role.kubernetes.io/master',
];

/** `service.kubernetes.io/topology-mode` (1.27+; `Auto` / `Disabled`). */
export const ANNOTATION_TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';

/** `service.kubernetes.io/topology-aware-hints` (1.21+, deprecated in 1.27 but still wins when present). */
export const DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS = 'service.kubernetes.io/topology-aware-hints';

/** Label linking an EndpointSlice to its Service. */
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';

/** Label marking slices managed by the EndpointSlice controller. */
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';

/**
 * The EndpointSlice controller's name (`ControllerName`): the {@link LABEL_MANAGED_BY} value of
 * the slices it manages, and the component its Events come from.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/endpointslice/endpointslice_controller.go
 */
export const ENDPOINTSLICE_CONTROLLER_NAME = 'endpointslice-controller.k8s.io';

/**
 * The overload threshold of the `Auto` heuristic: a zone may receive up to 20 % more traffic
 * than its CPU share (`overloadThreshold = 0.2`), used both for allocation minimums and the
 * overload re-check.
 */
export const OVERLOAD_THRESHOLD = 0.2;

/**
 * `1 / (1 + 0.2)` as the double upstream multiplies by (0.8333333333333334). Upstream multiplies
 * by this factor instead of dividing by 1.2, which changes some results (topology-semantics §5.3).
 */
export const MINIMUM_FACTOR = 1 / (1 + OVERLOAD_THRESHOLD);

/** `spec.trafficDistribution` values known upstream. */
export const TRAFFIC_DISTRIBUTION_PREFER_CLOSE = 'PreferClose';
export const TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE = 'PreferSameZone';
export const TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE = 'PreferSameNode';

/** Event reasons recorded on the Service (1.26+). */
export const REASON_HINTS_ENABLED = 'TopologyAwareHintsEnabled';
export const REASON_HINTS_DISABLED = 'TopologyAwareHintsDisabled';

/** Event messages, before the `, addressType: <type>` suffix. */
export const MESSAGE_INSUFFICIENT_NODE_INFO =
  'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes';
export const MESSAGE_NODES_READY_IN_ONE_ZONE_ONLY = 'Nodes only ready in one zone';
export const MESSAGE_INSUFFICIENT_NUMBER_OF_ENDPOINTS = 'Insufficient number of endpoints';
export const MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD =
  'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold';
export const MESSAGE_NO_ZONE_SPECIFIED = 'One or more endpoints do not have a zone specified';
export const MESSAGE_NO_ALLOCATED_HINTS_FOR_ZONES = 'No hints allocated for zones';
export const MESSAGE_TOPOLOGY_AWARE_HINTS_ENABLED = 'Topology Aware Hints has been enabled';
export const MESSAGE_TOPOLOGY_AWARE_HINTS_DISABLED = 'Topology Aware Hints has been disabled';

/**
 * The schema table, part 2: the core group (`v1`) kinds other than Pod — Service, Node,
 * Namespace, Event, ConfigMap — and the references they share. Fields the simulator reads are
 * described one by one; parts it only stores are `object`s kept as given.
 */
import type { Definition } from './schema';
import {
  atomicList, bool, int32, int64, keyedList, kindDef, NAMES, opaque, opaqueList, quantities, ref, str, stringSet, strMap, struct,
  time, zero,
} from './schema';

const CORE = 'io.k8s.api.core.v1';
const v1 = (kind: string) => ({ group: '', version: 'v1', kind });

/** `type` of a condition list item. */
function conditionList(item: string, description: string) {
  return keyedList(item, ['type'], description);
}

export const CORE_DEFINITIONS: readonly Definition[] = [
  kindDef(`${CORE}.Service`, v1('Service'), 'A named, load-balanced set of endpoints (the pods its selector matches) with a stable virtual IP.', {
    spec: zero(ref(`${CORE}.ServiceSpec`, 'What the Service should be: its ports, selector, type and traffic policies.')),
    status: zero(ref(`${CORE}.ServiceStatus`, 'What the Service is: load balancer ingress points and conditions.')),
  }),
  struct(`${CORE}.ServiceSpec`, 'The desired state of a Service.', {
    ports: keyedList(`${CORE}.ServicePort`, ['port', 'protocol'], 'The ports the Service exposes.'),
    selector: strMap('Pods with all these labels back the Service; without a selector, endpoints are managed by hand.', true),
    clusterIP: str('The virtual IP, allocated by the server unless given; `None` makes a headless Service.'),
    clusterIPs: atomicList({ kind: 'string' }, 'The virtual IPs, one per IP family; the first equals clusterIP.'),
    type: str('How the Service is exposed.', { enum: ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'] }),
    externalIPs: atomicList({ kind: 'string' }, 'IPs outside the cluster that nodes also accept traffic for.'),
    sessionAffinity: str('`ClientIP` keeps a client on one endpoint; `None` does not.', { enum: ['ClientIP', 'None'] }),
    loadBalancerIP: str('Deprecated: the IP to ask a cloud load balancer for.'),
    loadBalancerSourceRanges: atomicList({ kind: 'string' }, 'Client CIDRs a cloud load balancer admits.'),
    externalName: str('The DNS name an ExternalName Service aliases.'),
    externalTrafficPolicy: str('`Local` sends external traffic only to endpoints on the receiving node; `Cluster` to any.', { enum: ['Cluster', 'Local'] }),
    healthCheckNodePort: int32('The node port of the health check of a Local-policy LoadBalancer Service.'),
    publishNotReadyAddresses: bool('Whether endpoints that are not ready are published.'),
    sessionAffinityConfig: opaque('Settings of ClientIP session affinity (timeoutSeconds).'),
    ipFamilies: atomicList({ kind: 'string' }, 'IPv4 and/or IPv6, in the order of clusterIPs.'),
    ipFamilyPolicy: str('SingleStack, PreferDualStack or RequireDualStack.'),
    allocateLoadBalancerNodePorts: bool('Whether a LoadBalancer Service gets node ports.'),
    loadBalancerClass: str('The load balancer implementation that handles this Service.'),
    internalTrafficPolicy: str('`Local` sends traffic from inside the cluster only to endpoints on the same node; `Cluster` to any.', { enum: ['Cluster', 'Local'] }),
    trafficDistribution: str(
      'A preference for how traffic reaches the endpoints: `PreferClose` asks kube-proxy to keep it in the client\'s zone when there are endpoints there. It takes effect through EndpointSlice hints, like the service.kubernetes.io/topology-mode annotation.',
    ),
  }),
  struct(`${CORE}.ServicePort`, 'One port a Service exposes.', {
    name: str('The port\'s name, required when there are several ports; EndpointSlices repeat it.'),
    protocol: str('TCP, UDP or SCTP.', { default: 'TCP', enum: ['SCTP', 'TCP', 'UDP'] }),
    appProtocol: str('The application protocol (a hint for implementations).'),
    port: int32('The port the Service listens on.', { required: true }),
    targetPort: ref(NAMES.intOrString, 'The port number or named container port on the pods; defaults to port.'),
    nodePort: int32('The port on every node for NodePort and LoadBalancer Services; allocated by the server unless given.'),
  }),
  struct(`${CORE}.ServiceStatus`, 'The observed state of a Service.', {
    loadBalancer: zero(ref(`${CORE}.LoadBalancerStatus`, 'The load balancer in front of the Service, if any.')),
    conditions: conditionList(`${CORE}.Condition`, 'Conditions of the Service.'),
  }),
  struct(`${CORE}.LoadBalancerStatus`, 'The ingress points of a load balancer.', {
    ingress: atomicList({ kind: 'ref', name: `${CORE}.LoadBalancerIngress` }, 'Where traffic for the Service enters.'),
  }),
  struct(`${CORE}.LoadBalancerIngress`, 'One ingress point of a load balancer.', {
    ip: str('Its IP, for IP-based load balancers.'),
    hostname: str('Its DNS name, for DNS-based load balancers (as on AWS).'),
    ipMode: str('How traffic reaches the Service through this IP: VIP or Proxy.'),
    ports: opaqueList('Status of the load balancer\'s ports.'),
  }),
  struct(`${CORE}.Condition`, 'One condition of an object.', {
    type: str('The condition\'s type.', { required: true }),
    status: str('True, False or Unknown.', { required: true }),
    observedGeneration: int64('The generation it was set for.'),
    lastTransitionTime: time('When status last changed.'),
    reason: str('Why, in CamelCase.'),
    message: str('Why, for people.'),
  }),

  kindDef(`${CORE}.Node`, v1('Node'), 'A worker machine: its labels (topology.kubernetes.io/zone places it in a zone), taints, capacity and conditions.', {
    spec: zero(ref(`${CORE}.NodeSpec`, 'How the node is set up: pod CIDRs, provider ID, taints, schedulability.')),
    status: zero(ref(`${CORE}.NodeStatus`, 'What the kubelet reports: capacity, conditions, addresses, versions.')),
  }),
  struct(`${CORE}.NodeSpec`, 'The desired state of a Node.', {
    podCIDR: str('The pod IP range assigned to the node.'),
    podCIDRs: stringSet('The pod IP ranges, one per IP family.', 'merge'),
    providerID: str('The cloud provider\'s ID of the machine.'),
    unschedulable: bool('Whether new pods may be scheduled on the node (false when cordoned).'),
    taints: atomicList({ kind: 'ref', name: `${CORE}.Taint` }, 'Taints that repel pods not tolerating them.'),
    configSource: opaque('Deprecated dynamic kubelet configuration.'),
    externalID: str('Deprecated.'),
  }),
  struct(`${CORE}.Taint`, 'A taint on a node.', {
    key: str('The taint key.', { required: true }),
    value: str('The taint value.'),
    effect: str('NoSchedule, PreferNoSchedule or NoExecute.', { required: true }),
    timeAdded: time('When a NoExecute taint was added.'),
  }),
  struct(`${CORE}.NodeStatus`, 'The observed state of a Node.', {
    capacity: quantities('The node\'s total resources.'),
    allocatable: quantities('The resources available to pods.'),
    phase: str('Deprecated lifecycle phase.'),
    conditions: conditionList(`${CORE}.NodeCondition`, 'Ready, MemoryPressure, DiskPressure, PIDPressure and others.'),
    addresses: keyedList(`${CORE}.NodeAddress`, ['type'], 'The node\'s addresses.'),
    daemonEndpoints: zero(opaque('The kubelet\'s port.')),
    nodeInfo: zero(opaque('Versions and identifiers the kubelet reports (kubelet, kube-proxy, runtime, kernel, OS).')),
    images: opaqueList('Container images on the node.'),
    volumesInUse: atomicList({ kind: 'string' }, 'Volumes in use.'),
    volumesAttached: opaqueList('Volumes attached.'),
    config: opaque('Dynamic kubelet configuration status.'),
    runtimeHandlers: opaqueList('The container runtime handlers available.'),
    features: opaque('Features the node supports.'),
  }),
  struct(`${CORE}.NodeCondition`, 'One condition of a node.', {
    type: str('The condition\'s type (Ready, MemoryPressure, ...).', { required: true }),
    status: str('True, False or Unknown.', { required: true }),
    lastHeartbeatTime: time('When it was last reported.'),
    lastTransitionTime: time('When status last changed.'),
    reason: str('Why, in CamelCase.'),
    message: str('Why, for people.'),
  }),
  struct(`${CORE}.NodeAddress`, 'One address of a node.', {
    type: str('Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.', { required: true }),
    address: str('The address.', { required: true }),
  }),

  kindDef(`${CORE}.Namespace`, v1('Namespace'), 'A scope for names; deleting it deletes everything in it.', {
    spec: zero(ref(`${CORE}.NamespaceSpec`, 'The finalizers of the namespace.')),
    status: zero(ref(`${CORE}.NamespaceStatus`, 'Active or Terminating.')),
  }),
  struct(`${CORE}.NamespaceSpec`, 'The desired state of a Namespace.', {
    finalizers: atomicList({ kind: 'string' }, 'Finalizers that must be cleared before the namespace is removed.'),
  }),
  struct(`${CORE}.NamespaceStatus`, 'The observed state of a Namespace.', {
    phase: str('Active or Terminating.', { enum: ['Active', 'Terminating'] }),
    conditions: conditionList(`${CORE}.Condition`, 'Conditions of the namespace.'),
  }),

  kindDef(`${CORE}.Event`, v1('Event'), 'A report of something that happened to an object (the EndpointSlice controller reports hint changes on Services this way).', {
    involvedObject: zero(ref(`${CORE}.ObjectReference`, 'The object the event is about.', { required: true })),
    reason: str('Why, in CamelCase (e.g. TopologyAwareHintsEnabled).'),
    message: str('What happened, for people.'),
    source: zero(ref(`${CORE}.EventSource`, 'The component that reported it.')),
    firstTimestamp: time('When it was first seen.'),
    lastTimestamp: time('When it was last seen.'),
    count: int32('How many times it was seen.'),
    type: str('Normal or Warning.'),
    eventTime: ref(NAMES.microTime, 'When it first happened, to the microsecond.'),
    series: opaque('Data of an event series.'),
    action: str('What was done, or failed.'),
    related: ref(`${CORE}.ObjectReference`, 'A second object involved.'),
    reportingComponent: str('The controller that emitted it.'),
    reportingInstance: str('The instance of that controller.'),
  }),
  struct(`${CORE}.ObjectReference`, 'A reference to another object.', {
    kind: str('Kind of the referent.'),
    namespace: str('Namespace of the referent.'),
    name: str('Name of the referent.'),
    uid: str('UID of the referent.'),
    apiVersion: str('API version of the referent.'),
    resourceVersion: str('The referent\'s resourceVersion, when it matters.'),
    fieldPath: str('A part of the referent, such as a container.'),
  }, { atomic: true }),
  struct(`${CORE}.EventSource`, 'The component that reported an event.', {
    component: str('The component.'),
    host: str('The node it runs on.'),
  }),

  kindDef(`${CORE}.ConfigMap`, v1('ConfigMap'), 'Configuration data as key/value pairs (kube-proxy\'s configuration lives in one).', {
    data: strMap('String values by key.'),
    binaryData: { type: { kind: 'map', values: { kind: 'string', format: 'byte' } }, description: 'Binary values by key, base64-encoded.' },
    immutable: bool('Whether the data can no longer change.'),
  }),
];

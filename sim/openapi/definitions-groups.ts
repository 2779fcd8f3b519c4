/**
 * The schema table, part 4: the named groups the simulator serves — apps/v1 (Deployment,
 * ReplicaSet, DaemonSet), autoscaling/v1 (Scale, HorizontalPodAutoscaler) and v2,
 * discovery.k8s.io/v1 (EndpointSlice and its hints), events.k8s.io/v1, and the review kinds of
 * authorization.k8s.io/v1 and authentication.k8s.io.
 */
import type { Definition, GroupVersionKind } from './schema';
import {
  atomicList, bool, int32, int64, keyedList, kindDef, NAMES, opaque, opaqueList, ref, str, stringSet, struct, time, zero,
} from './schema';

const APPS = 'io.k8s.api.apps.v1';
const AS1 = 'io.k8s.api.autoscaling.v1';
const AS2 = 'io.k8s.api.autoscaling.v2';
const DISC = 'io.k8s.api.discovery.v1';
const EV = 'io.k8s.api.events.v1';
const CORE = 'io.k8s.api.core.v1';

const gvk = (group: string, version: string, kind: string): GroupVersionKind => ({ group, version, kind });

function workloadConditions(item: string) {
  return keyedList(item, ['type'], 'The latest observations of the workload\'s state.');
}

function conditionDef(name: string, what: string, withUpdateTime = false): Definition {
  return struct(name, `One condition of a ${what}.`, {
    type: str('The condition\'s type.', { required: true }),
    status: str('True, False or Unknown.', { required: true }),
    ...(withUpdateTime ? { lastUpdateTime: time('When it was last updated.') } : {}),
    lastTransitionTime: time('When status last changed.'),
    reason: str('Why, in CamelCase.'),
    message: str('Why, for people.'),
  });
}

const selector = () => ref(NAMES.labelSelector, 'The pods it manages; must match the template\'s labels.', { required: true });
const template = (required = true) => zero(ref(`${CORE}.PodTemplateSpec`, 'The pods it creates.', { required }));

export const GROUP_DEFINITIONS: readonly Definition[] = [
  // apps/v1
  kindDef(`${APPS}.Deployment`, gvk('apps', 'v1', 'Deployment'), 'Declarative updates of a set of identical pods through ReplicaSets.', {
    spec: zero(ref(`${APPS}.DeploymentSpec`, 'The desired pods and how to roll them out.')),
    status: zero(ref(`${APPS}.DeploymentStatus`, 'The rollout\'s progress.')),
  }),
  struct(`${APPS}.DeploymentSpec`, 'The desired state of a Deployment.', {
    replicas: int32('The number of pods wanted (default 1).'),
    selector: selector(),
    template: template(),
    strategy: zero(ref(`${APPS}.DeploymentStrategy`, 'How old pods are replaced by new ones.')),
    minReadySeconds: int32('Seconds a new pod must be ready before it counts as available.'),
    revisionHistoryLimit: int32('Old ReplicaSets kept for rollback.'),
    paused: bool('Whether the rollout is paused.'),
    progressDeadlineSeconds: int32('Seconds without progress before the rollout is reported as failed.'),
  }),
  struct(`${APPS}.DeploymentStrategy`, 'How a Deployment replaces pods.', {
    type: str('RollingUpdate or Recreate.'),
    rollingUpdate: opaque('maxSurge and maxUnavailable of a rolling update.'),
  }),
  struct(`${APPS}.DeploymentStatus`, 'The observed state of a Deployment.', {
    observedGeneration: int64('The generation observed.'),
    replicas: int32('Pods of the Deployment.'),
    updatedReplicas: int32('Pods of the current template.'),
    readyReplicas: int32('Ready pods.'),
    availableReplicas: int32('Pods available for minReadySeconds.'),
    unavailableReplicas: int32('Pods still needed for 100% availability.'),
    terminatingReplicas: int32('Pods being terminated.'),
    conditions: workloadConditions(`${APPS}.DeploymentCondition`),
    collisionCount: int32('Hash collisions of the template.'),
  }),
  conditionDef(`${APPS}.DeploymentCondition`, 'Deployment', true),
  kindDef(`${APPS}.ReplicaSet`, gvk('apps', 'v1', 'ReplicaSet'), 'Keeps a number of identical pods running (Deployments manage them).', {
    spec: zero(ref(`${APPS}.ReplicaSetSpec`, 'The desired pods.')),
    status: zero(ref(`${APPS}.ReplicaSetStatus`, 'The pods observed.')),
  }),
  struct(`${APPS}.ReplicaSetSpec`, 'The desired state of a ReplicaSet.', {
    replicas: int32('The number of pods wanted (default 1).'),
    minReadySeconds: int32('Seconds a new pod must be ready before it counts as available.'),
    selector: selector(),
    template: template(false),
  }),
  struct(`${APPS}.ReplicaSetStatus`, 'The observed state of a ReplicaSet.', {
    replicas: int32('Pods of the ReplicaSet.', { required: true }),
    fullyLabeledReplicas: int32('Pods whose labels match the template\'s.'),
    readyReplicas: int32('Ready pods.'),
    availableReplicas: int32('Available pods.'),
    terminatingReplicas: int32('Pods being terminated.'),
    observedGeneration: int64('The generation observed.'),
    conditions: workloadConditions(`${APPS}.ReplicaSetCondition`),
  }),
  conditionDef(`${APPS}.ReplicaSetCondition`, 'ReplicaSet'),
  kindDef(`${APPS}.DaemonSet`, gvk('apps', 'v1', 'DaemonSet'), 'Runs one pod on every (matching) node, like kube-proxy.', {
    spec: zero(ref(`${APPS}.DaemonSetSpec`, 'The desired pods and how to update them.')),
    status: zero(ref(`${APPS}.DaemonSetStatus`, 'The pods observed.')),
  }),
  struct(`${APPS}.DaemonSetSpec`, 'The desired state of a DaemonSet.', {
    selector: selector(),
    template: template(),
    updateStrategy: zero(ref(`${APPS}.DaemonSetUpdateStrategy`, 'How pods are replaced.')),
    minReadySeconds: int32('Seconds a new pod must be ready before it counts as available.'),
    revisionHistoryLimit: int32('Old revisions kept for rollback.'),
  }),
  struct(`${APPS}.DaemonSetUpdateStrategy`, 'How a DaemonSet replaces pods.', {
    type: str('RollingUpdate or OnDelete.'),
    rollingUpdate: opaque('maxSurge and maxUnavailable of a rolling update.'),
  }),
  struct(`${APPS}.DaemonSetStatus`, 'The observed state of a DaemonSet.', {
    currentNumberScheduled: int32('Nodes running a daemon pod that should.', { required: true }),
    numberMisscheduled: int32('Nodes running a daemon pod that should not.', { required: true }),
    desiredNumberScheduled: int32('Nodes that should run a daemon pod.', { required: true }),
    numberReady: int32('Nodes whose daemon pod is ready.', { required: true }),
    observedGeneration: int64('The generation observed.'),
    updatedNumberScheduled: int32('Nodes running the current template.'),
    numberAvailable: int32('Nodes whose daemon pod is available.'),
    numberUnavailable: int32('Nodes whose daemon pod is not available.'),
    collisionCount: int32('Hash collisions of the template.'),
    conditions: workloadConditions(`${APPS}.DaemonSetCondition`),
  }),
  conditionDef(`${APPS}.DaemonSetCondition`, 'DaemonSet'),

  // autoscaling/v1
  kindDef(`${AS1}.Scale`, gvk('autoscaling', 'v1', 'Scale'), 'The replica count of a scalable resource (its scale subresource).', {
    spec: zero(ref(`${AS1}.ScaleSpec`, 'The replicas wanted.')),
    status: zero(ref(`${AS1}.ScaleStatus`, 'The replicas observed.')),
  }),
  struct(`${AS1}.ScaleSpec`, 'The desired scale.', { replicas: int32('The number of replicas wanted.') }),
  struct(`${AS1}.ScaleStatus`, 'The observed scale.', {
    replicas: int32('The number of replicas observed.', { required: true }),
    selector: str('The label selector of the pods, in string form.'),
  }),
  kindDef(`${AS1}.HorizontalPodAutoscaler`, gvk('autoscaling', 'v1', 'HorizontalPodAutoscaler'), 'Scales a workload on CPU utilization (v1; other metrics travel in annotations).', {
    spec: zero(ref(`${AS1}.HorizontalPodAutoscalerSpec`, 'The target and its bounds.')),
    status: zero(ref(`${AS1}.HorizontalPodAutoscalerStatus`, 'The last scaling decision.')),
  }),
  struct(`${AS1}.HorizontalPodAutoscalerSpec`, 'The desired behaviour of a v1 autoscaler.', {
    scaleTargetRef: zero(ref(`${AS1}.CrossVersionObjectReference`, 'The workload scaled.', { required: true })),
    minReplicas: int32('The lower bound (default 1).'),
    maxReplicas: int32('The upper bound.', { required: true }),
    targetCPUUtilizationPercentage: int32('The average CPU utilization aimed at, in percent of requests.'),
  }),
  struct(`${AS1}.HorizontalPodAutoscalerStatus`, 'The observed state of a v1 autoscaler.', {
    observedGeneration: int64('The generation observed.'),
    lastScaleTime: time('When it last scaled.'),
    currentReplicas: int32('Replicas now.', { required: true }),
    desiredReplicas: int32('Replicas wanted now.', { required: true }),
    currentCPUUtilizationPercentage: int32('The average CPU utilization now.'),
  }),
  struct(`${AS1}.CrossVersionObjectReference`, 'The workload an autoscaler scales.', {
    kind: str('Its kind.', { required: true }),
    name: str('Its name.', { required: true }),
    apiVersion: str('Its API version.'),
  }, { atomic: true }),

  // autoscaling/v2
  kindDef(`${AS2}.HorizontalPodAutoscaler`, gvk('autoscaling', 'v2', 'HorizontalPodAutoscaler'), 'Scales a workload on metrics; zonescope weighs its replica bounds against zone capacity.', {
    spec: zero(ref(`${AS2}.HorizontalPodAutoscalerSpec`, 'The target, its bounds, metrics and behaviour.')),
    status: zero(ref(`${AS2}.HorizontalPodAutoscalerStatus`, 'The last scaling decision and current metrics.')),
  }),
  struct(`${AS2}.HorizontalPodAutoscalerSpec`, 'The desired behaviour of an autoscaler.', {
    scaleTargetRef: zero(ref(`${AS2}.CrossVersionObjectReference`, 'The workload scaled.', { required: true })),
    minReplicas: int32('The lower bound (default 1).'),
    maxReplicas: int32('The upper bound.', { required: true }),
    metrics: opaqueList('The metrics scaled on (Resource, Pods, Object, External, ContainerResource).'),
    behavior: opaque('Scale-up and scale-down policies and stabilization windows.'),
  }),
  struct(`${AS2}.HorizontalPodAutoscalerStatus`, 'The observed state of an autoscaler.', {
    observedGeneration: int64('The generation observed.'),
    lastScaleTime: time('When it last scaled.'),
    currentReplicas: int32('Replicas now.'),
    desiredReplicas: int32('Replicas wanted now.', { required: true }),
    currentMetrics: opaqueList('The metrics last read.'),
    conditions: keyedList(`${AS2}.HorizontalPodAutoscalerCondition`, ['type'], 'AbleToScale, ScalingActive, ScalingLimited.'),
  }),
  conditionDef(`${AS2}.HorizontalPodAutoscalerCondition`, 'HorizontalPodAutoscaler'),
  struct(`${AS2}.CrossVersionObjectReference`, 'The workload an autoscaler scales.', {
    kind: str('Its kind.', { required: true }),
    name: str('Its name.', { required: true }),
    apiVersion: str('Its API version.'),
  }),

  // discovery.k8s.io/v1
  kindDef(`${DISC}.EndpointSlice`, gvk('discovery.k8s.io', 'v1', 'EndpointSlice'), 'A slice of a Service\'s endpoints (the kubernetes.io/service-name label names the Service); kube-proxy reads their zone hints.', {
    addressType: str('IPv4, IPv6 or FQDN; every address of the slice is of this type.', { required: true, enum: ['FQDN', 'IPv4', 'IPv6'] }),
    endpoints: atomicList({ kind: 'ref', name: `${DISC}.Endpoint` }, 'The endpoints (at most 1000).', { zero: true }),
    ports: atomicList({ kind: 'ref', name: `${DISC}.EndpointPort` }, 'The ports every endpoint serves.', { zero: true }),
  }),
  struct(`${DISC}.Endpoint`, 'One endpoint: a pod\'s addresses, conditions, location and hints.', {
    addresses: stringSet('The addresses (one, in practice).'),
    conditions: zero(ref(`${DISC}.EndpointConditions`, 'Whether it is ready, serving, terminating.')),
    hostname: str('A hostname for DNS.'),
    targetRef: ref(`${CORE}.ObjectReference`, 'The pod behind it.'),
    deprecatedTopology: { type: { kind: 'map', values: { kind: 'string' } }, description: 'Deprecated topology labels.' },
    nodeName: str('The node it runs on.'),
    zone: str('The zone it is in (the node\'s topology.kubernetes.io/zone).'),
    hints: ref(`${DISC}.EndpointHints`, 'Where kube-proxy should use it: with topology-aware routing, only from the zones listed.'),
  }),
  struct(`${DISC}.EndpointConditions`, 'The conditions of an endpoint.', {
    ready: bool('Whether it should receive new traffic (serving and not terminating).'),
    serving: bool('Whether it passes its readiness check, terminating or not.'),
    terminating: bool('Whether its pod is terminating.'),
  }),
  struct(`${DISC}.EndpointHints`, 'Routing hints of an endpoint, set by the EndpointSlice controller.', {
    forZones: atomicList({ kind: 'ref', name: `${DISC}.ForZone` }, 'The zones whose clients kube-proxy routes to this endpoint.'),
    forNodes: atomicList({ kind: 'ref', name: `${DISC}.ForNode` }, 'The nodes whose clients kube-proxy routes to this endpoint (PreferSameNode).'),
  }),
  struct(`${DISC}.ForZone`, 'A zone an endpoint serves.', { name: str('The zone\'s name.', { required: true }) }),
  struct(`${DISC}.ForNode`, 'A node an endpoint serves.', { name: str('The node\'s name.', { required: true }) }),
  struct(`${DISC}.EndpointPort`, 'A port of the endpoints of a slice.', {
    name: str('The Service port\'s name.'),
    protocol: str('TCP, UDP or SCTP.'),
    port: int32('The port number on the endpoints.'),
    appProtocol: str('The application protocol.'),
  }, { atomic: true }),

  // events.k8s.io/v1
  kindDef(`${EV}.Event`, gvk('events.k8s.io', 'v1', 'Event'), 'A report of something that happened to an object (the same events as core v1, other field names).', {
    eventTime: ref(NAMES.microTime, 'When it first happened.', { required: true }),
    series: opaque('Data of an event series.'),
    reportingController: str('The controller that emitted it.'),
    reportingInstance: str('The instance of that controller.'),
    action: str('What was done, or failed.'),
    reason: str('Why, in CamelCase.'),
    regarding: zero(ref(`${CORE}.ObjectReference`, 'The object the event is about.')),
    related: ref(`${CORE}.ObjectReference`, 'A second object involved.'),
    note: str('What happened, for people.'),
    type: str('Normal or Warning.'),
    deprecatedSource: zero(ref(`${CORE}.EventSource`, 'The reporting component (core v1 field).')),
    deprecatedFirstTimestamp: time('When it was first seen (core v1 field).'),
    deprecatedLastTimestamp: time('When it was last seen (core v1 field).'),
    deprecatedCount: int32('How many times it was seen (core v1 field).'),
  }),

  // authorization.k8s.io/v1, authentication.k8s.io/v1 and v1beta1
  kindDef('io.k8s.api.authorization.v1.SelfSubjectAccessReview', gvk('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview'), 'Asks whether the requester may do something (kubectl auth can-i).', {
    spec: zero(opaque('The request asked about: resourceAttributes or nonResourceAttributes.')),
    status: zero(opaque('The answer: allowed, denied, reason.')),
  }),
  ...(['v1', 'v1beta1'] as const).map((version) =>
    kindDef(`io.k8s.api.authentication.${version}.SelfSubjectReview`, gvk('authentication.k8s.io', version, 'SelfSubjectReview'), 'Tells the requester who the server thinks it is (kubectl auth whoami).', {
      status: zero(opaque('The user: name, uid, groups, extra.')),
    }),
  ),
];

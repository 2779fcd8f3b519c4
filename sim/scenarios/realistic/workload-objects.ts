/**
 * A workload of the realistic cluster as `kubectl get -o json` prints it: the Deployment (Helm
 * labels and annotations, or kubectl's last-applied configuration; a pod template with probes,
 * resources, env, volumes, spread constraints, affinity; managedFields; status and conditions),
 * its current ReplicaSet and old ones scaled to 0 (revision history, pod-template-hash), its
 * pods (a few crash-looping, Pending or terminating), then its Services and HPA.
 */
import type { KubeObject } from '../../types';
import type { Json } from './catalogue';
import { CLUSTER_CREATED, EKS_ECR, REGION, SIDECARS } from './catalogue';
import type { EndpointsIndex } from './endpoint-slices';
import { hpaObject } from './hpa-objects';
import type { PodBuilder, PodState } from './pod-objects';
import { baseTemplateSpec, defaultedContainer, podObject, templateHash } from './pod-objects';
import type { ServiceList } from './service-objects';
import { workloadServices } from './service-objects';
import type { Workload } from './workload-layout';

/** Where a workload's objects go. */
export interface WorkloadSink {
  /** The Deployment, its ReplicaSets and pods. */
  readonly objects: KubeObject[];
  readonly services: ServiceList;
  readonly hpas: KubeObject[];
  /** Pods by namespace, for the EndpointSlices. */
  readonly endpoints: EndpointsIndex;
}

/** The objects of workload number `wi` (`big`: the workloads that get an HPA whatever their size). */
export function workloadObjects(b: PodBuilder, zones: readonly string[], out: WorkloadSink, w: Workload, wi: number, big: readonly Workload[]): void {
  const { chance, generated, int, past, pick, uid } = b.dice;
  const created = wi === 0 ? CLUSTER_CREATED : past(300);
  const version = `${int(1, 5)}.${int(0, 30)}.${int(0, 12)}`;
  const chart = `${w.release}-${int(0, 3)}.${int(1, 40)}.${int(0, 9)}`;
  const selector: Record<string, string> = wi === 0 ? { 'k8s-app': 'kube-dns' } : w.helm ? { 'app.kubernetes.io/name': w.name, 'app.kubernetes.io/instance': w.release } : { app: w.name };
  const commonLabels: Record<string, string> = w.helm
    ? { ...selector, 'app.kubernetes.io/version': version, 'app.kubernetes.io/managed-by': 'Helm', 'helm.sh/chart': chart, 'app.kubernetes.io/component': w.component }
    : wi === 0 ? { ...selector, 'eks.amazonaws.com/component': 'coredns', 'kubernetes.io/name': 'CoreDNS' } : { ...selector, team: w.namespace };
  const helmAnnotations: Record<string, string> = w.helm ? { 'meta.helm.sh/release-name': w.release, 'meta.helm.sh/release-namespace': w.namespace } : {};
  const templateLabels: Record<string, string> = w.helm ? { ...selector, 'app.kubernetes.io/version': version } : { ...selector };
  const ports: Json[] = [{ name: 'http', containerPort: pick([8080, 8000, 3000, 9000]), protocol: 'TCP' }];
  if (chance(0.35)) ports.push({ name: 'grpc', containerPort: 9090, protocol: 'TCP' });
  if (chance(0.5)) ports.push({ name: 'metrics', containerPort: pick([9102, 9100, 8081]), protocol: 'TCP' });
  const httpPort = Number(ports[0]?.containerPort);
  const cpu = pick(['50m', '100m', '200m', '250m', '500m', '1']);
  const memory = pick(['128Mi', '256Mi', '512Mi', '1Gi', '2Gi']);
  const guaranteed = chance(0.1);
  const image = wi === 0 ? `${EKS_ECR}/eks/coredns:v1.11.4-eksbuild.2` : pick(b.images.appImages.slice(0, 90));
  const main = defaultedContainer({
    name: wi === 0 ? 'coredns' : w.name.split('-')[1] ?? 'app', image, ports,
    env: [
      { name: 'SERVICE_NAME', value: w.name }, { name: 'ENVIRONMENT', value: 'production' }, { name: 'AWS_REGION', value: REGION },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
      ...(chance(0.5) ? [{ name: 'DATABASE_PASSWORD', valueFrom: { secretKeyRef: { name: `${w.name}-db`, key: 'password' } } }] : []),
      ...(chance(0.3) ? [{ name: 'GOMAXPROCS', valueFrom: { resourceFieldRef: { divisor: '0', resource: 'limits.cpu' } } }] : []),
    ],
    resources: guaranteed ? { limits: { cpu, memory }, requests: { cpu, memory } } : { limits: { memory }, requests: { cpu, memory } },
    readinessProbe: { failureThreshold: 3, httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' }, periodSeconds: 5, successThreshold: 1, timeoutSeconds: 1 },
    livenessProbe: { failureThreshold: 3, httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 10, periodSeconds: 10, successThreshold: 1, timeoutSeconds: 1 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'tmp', mountPath: '/tmp' }],
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 10001 },
  });
  const containers: Json[] = [main];
  if (wi !== 0 && chance(0.3)) {
    const s = pick(SIDECARS);
    containers.push(defaultedContainer({ name: s.name, image: s.image, resources: { limits: { memory: s.memory }, requests: { cpu: s.cpu, memory: s.memory } } }));
  }
  const spec: Json = baseTemplateSpec({ containers, serviceAccountName: w.name, volumes: [{ name: 'config', configMap: { name: `${w.name}-config`, defaultMode: 420 } }, { name: 'tmp', emptyDir: {} }] });
  if (w.tolerations.length > 0) spec.tolerations = w.tolerations.map((t) => ({ ...t }));
  if (w.spread !== 'none') {
    spec.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: w.spread === 'zone-hard' ? 'DoNotSchedule' : 'ScheduleAnyway', labelSelector: { matchLabels: selector } }];
    if (chance(0.3)) (spec.topologySpreadConstraints as Json[]).push({ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } });
  }
  if (chance(0.25)) spec.affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selector } } }] } };
  else if (chance(0.1)) spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }] }] } } };
  if (wi === 0) spec.priorityClassName = 'system-cluster-critical';
  const podAnnotations: Record<string, string> = chance(0.4) ? { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(ports.find((p) => p.name === 'metrics')?.containerPort ?? httpPort) } : {};
  if (chance(0.2)) podAnnotations['kubectl.kubernetes.io/restartedAt'] = past(20);
  const template: Json = { metadata: { creationTimestamp: null, labels: templateLabels, ...(Object.keys(podAnnotations).length > 0 ? { annotations: podAnnotations } : {}) }, spec };
  const hash = templateHash(JSON.stringify(template));
  const deploymentUid = uid();
  const revision = int(1, 14);
  const generation = revision + int(0, 6);
  // Pod states: a few NotReady (crash-looping) and Pending; terminating ones come on top.
  const podStates: PodState[] = [];
  const zoneCounts = zones.map(() => 0);
  for (let p = 0; p < w.replicas; p++) {
    const node = chance(0.003) && w.spread !== 'zone' ? null : b.placement.placeNode(w, p, zoneCounts, w.tolerations);
    podStates.push({ node, ready: node !== null && node.ready && !chance(0.015), terminating: false, restarts: int(3, 80) });
  }
  const terminatingCount = chance(0.04) ? int(1, Math.max(1, Math.ceil(w.replicas / 10))) : 0;
  for (let p = 0; p < terminatingCount; p++) podStates.push({ node: b.placement.placeNode(w, p, zoneCounts, w.tolerations), ready: true, terminating: true, restarts: 0 });
  const active = podStates.filter((s) => !s.terminating);
  const readyCount = active.filter((s) => s.ready).length;
  const rsName = `${w.name}-${hash}`;
  const rsUid = uid();
  const manager = w.helm ? 'helm' : 'kubectl-client-side-apply';
  const deploymentLabels = { ...commonLabels };
  const deploymentAnnotations: Record<string, string> = { 'deployment.kubernetes.io/revision': String(revision), ...helmAnnotations };
  const deploymentSpec: Json = {
    progressDeadlineSeconds: 600, replicas: w.replicas, revisionHistoryLimit: 10, selector: { matchLabels: selector },
    strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' }, template,
  };
  if (!w.helm && wi !== 0) {
    deploymentAnnotations['kubectl.kubernetes.io/last-applied-configuration'] = `${JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { annotations: {}, labels: deploymentLabels, name: w.name, namespace: w.namespace }, spec: { replicas: w.replicas, selector: { matchLabels: selector }, template: { metadata: { labels: templateLabels }, spec: { containers: containers.map((c) => ({ name: c.name, image: c.image })) } } } })}\n`;
  }
  const unavailable = w.replicas - readyCount;
  const condTime = past(5);
  out.objects.push({
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: {
      name: w.name, namespace: w.namespace, uid: deploymentUid, resourceVersion: String(int(1_000_000, 99_999_999)), generation, creationTimestamp: created,
      labels: deploymentLabels, annotations: deploymentAnnotations,
      managedFields: [
        { manager, operation: 'Update', apiVersion: 'apps/v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, ...Object.fromEntries(Object.keys(helmAnnotations).map((k) => [`f:${k}`, {}])) }, 'f:labels': Object.fromEntries([['.', {}], ...Object.keys(deploymentLabels).map((k) => [`f:${k}`, {}])]) }, 'f:spec': { 'f:progressDeadlineSeconds': {}, 'f:replicas': {}, 'f:revisionHistoryLimit': {}, 'f:selector': {}, 'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} }, 'f:template': { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:containers': {} } } } } },
        { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: condTime, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } }, 'f:status': { 'f:availableReplicas': {}, 'f:conditions': {}, 'f:observedGeneration': {}, 'f:readyReplicas': {}, 'f:replicas': {}, 'f:updatedReplicas': {} } } },
      ],
    } as KubeObject['metadata'],
    spec: deploymentSpec,
    status: {
      availableReplicas: readyCount, observedGeneration: generation, readyReplicas: readyCount, replicas: w.replicas, updatedReplicas: w.replicas,
      ...(unavailable > 0 ? { unavailableReplicas: unavailable } : {}),
      conditions: [
        readyCount >= w.replicas - Math.floor(w.replicas / 4)
          ? { type: 'Available', status: 'True', lastTransitionTime: condTime, lastUpdateTime: condTime, reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
          : { type: 'Available', status: 'False', lastTransitionTime: condTime, lastUpdateTime: condTime, reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
        { type: 'Progressing', status: 'True', lastTransitionTime: created, lastUpdateTime: condTime, reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` },
      ],
    },
  });
  // Current ReplicaSet, plus old ones scaled to 0 (revision history).
  const rsObject = (name: string, rsUidValue: string, rsHash: string, rsTemplate: Json, replicas: number, rsRevision: number, ready: number): KubeObject => ({
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: {
      name, namespace: w.namespace, uid: rsUidValue, resourceVersion: String(int(1_000_000, 99_999_999)), generation: replicas === 0 ? 2 : 1, creationTimestamp: created,
      labels: { ...templateLabels, 'pod-template-hash': rsHash },
      annotations: { 'deployment.kubernetes.io/desired-replicas': String(w.replicas), 'deployment.kubernetes.io/max-replicas': String(w.replicas + Math.ceil(w.replicas / 4)), 'deployment.kubernetes.io/revision': String(rsRevision), ...helmAnnotations },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: w.name, uid: deploymentUid, controller: true, blockOwnerDeletion: true }],
      managedFields: [
        { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': {}, 'f:labels': {}, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${deploymentUid}"}`]: {} } }, 'f:spec': { 'f:replicas': {}, 'f:selector': {}, 'f:template': {} } } },
        { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: condTime, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:availableReplicas': {}, 'f:fullyLabeledReplicas': {}, 'f:observedGeneration': {}, 'f:readyReplicas': {}, 'f:replicas': {} } } },
      ],
    } as KubeObject['metadata'],
    spec: { replicas, selector: { matchLabels: { ...selector, 'pod-template-hash': rsHash } }, template: { ...rsTemplate, metadata: { ...(rsTemplate.metadata as Json), labels: { ...templateLabels, 'pod-template-hash': rsHash } } } },
    status: replicas === 0 ? { observedGeneration: 2, replicas: 0 } : { availableReplicas: ready, fullyLabeledReplicas: replicas, observedGeneration: 1, readyReplicas: ready, replicas },
  });
  const oldCount = wi === 0 ? 0 : Math.min(revision - 1, chance(0.6) ? int(1, 3) : 0);
  for (let o = 0; o < oldCount; o++) {
    const oldImage = String(main.image).replace(/:[^:]+$/, `:${int(0, 1)}.${int(0, 30)}.${o}`);
    const oldTemplate = { ...template, spec: { ...spec, containers: [{ ...main, image: oldImage }, ...containers.slice(1)] } };
    const oldHash = templateHash(JSON.stringify(oldTemplate));
    if (oldHash === hash) continue;
    out.objects.push(rsObject(`${w.name}-${oldHash}`, uid(), oldHash, oldTemplate, 0, revision - oldCount + o, 0));
  }
  out.objects.push(rsObject(rsName, rsUid, hash, template, w.replicas, revision, readyCount));
  const podLabels = { ...templateLabels, 'pod-template-hash': hash };
  const containerPorts = Object.fromEntries(ports.map((p) => [String(p.name), Number(p.containerPort)]));
  for (const state of podStates) {
    const pod = podObject(b, {
      namespace: w.namespace, name: generated('Pod', w.namespace, rsName), labels: podLabels, annotations: podAnnotations,
      owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rsName, uid: rsUid }, template: spec, containers, state, hostNetwork: false,
      serviceAccount: w.name, qos: guaranteed ? 'Guaranteed' : 'Burstable', created: past(10), manager: 'kube-controller-manager',
    });
    out.objects.push(pod);
    out.endpoints.add(w.namespace, pod, podLabels, containerPorts);
  }

  // The Service (and sometimes a second one on the same pods, e.g. for metrics or headless).
  workloadServices(b.dice, out.services, w, wi, { selector, commonLabels, helmAnnotations, manager, created, ports });

  // HPA on ~25 % of multi-replica Deployments and on every big one.
  if (wi !== 0 && (big.includes(w) || (w.replicas >= 2 && chance(0.25)))) out.hpas.push(hpaObject(b.dice, w, { commonLabels, helmAnnotations, manager, created, condTime }));
}

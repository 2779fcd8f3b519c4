/**
 * The realistic cluster's EndpointSlices as the EndpointSlice controller writes them: per
 * selector-based Service, its pods with an IP as endpoints (conditions, node, zone, target),
 * named ports resolved from a pod that has them, at most 100 endpoints per slice (one empty slice
 * without any), labels copied from the Service, and topology hints computed by zonescope's engine
 * (lib/topology's reconciler on a TopologyCache of the Nodes) exactly as the controller's next
 * syncs settle them; plus the TopologyAwareHints Events it records.
 */
import { stringMap } from '../../../lib/k8s/wire-to-record/json';
import { projectNode } from '../../../lib/k8s/wire-to-record/node';
import { endpointFromWire, hintsToWire } from '../../../lib/k8s/wire-to-record/endpoint-slice';
import { reconcileTopologyHints } from '../../../lib/topology/upstream/reconciler';
import { TopologyCache } from '../../../lib/topology/upstream/topology-cache';
import type { EndpointSlice, TopologyEvent, TopologyNode } from '../../../lib/topology/upstream/types';
import { parseKubeMinor, resolveFeatureGates } from '../../../lib/topology/upstream/version';
import type { KubeObject } from '../../types';
import { suffix } from '../builder';
import type { Json } from './catalogue';
import { CONTROLLER, MANAGED_BY, MAX_ENDPOINTS_PER_SLICE, NOW, SERVICE_NAME } from './catalogue';
import type { Dice } from './dice';
import type { GenNode } from './node-layout';
import type { ServiceList } from './service-objects';

/** A pod that may become an endpoint: its labels, object and named container ports. */
interface IndexedPod {
  readonly labels: Record<string, string>;
  readonly pod: KubeObject;
  readonly containerPorts: Record<string, number>;
}

/** The pods so far, by namespace (in creation order). */
export class EndpointsIndex {
  private readonly byNamespace = new Map<string, IndexedPod[]>();

  /** Adds a pod. */
  add(namespace: string, pod: KubeObject, labels: Record<string, string>, containerPorts: Record<string, number>): void {
    let list = this.byNamespace.get(namespace);
    if (list === undefined) {
      list = [];
      this.byNamespace.set(namespace, list);
    }
    list.push({ labels, pod, containerPorts });
  }

  /** The pods of a namespace. */
  in(namespace: string): readonly IndexedPod[] {
    return this.byNamespace.get(namespace) ?? [];
  }
}

/**
 * The slices and Events of every selector-based Service of `list` (`objects`: what holds the
 * Node objects; `serverVersion`: the release whose hint rules apply).
 */
export function endpointSlices(
  dice: Dice,
  objects: readonly KubeObject[],
  nodes: readonly GenNode[],
  zones: readonly string[],
  list: ServiceList,
  endpoints: EndpointsIndex,
  serverVersion: string,
): { slices: KubeObject[]; events: KubeObject[] } {
  const { generated, int, past, random, uid } = dice;
  const minor = parseKubeMinor(serverVersion) ?? 31;
  const gates = resolveFeatureGates(minor);
  const cache = new TopologyCache(minor);
  const topologyNodes: TopologyNode[] = [];
  for (const o of objects) {
    if (o.kind !== 'Node') continue;
    const record = projectNode(o);
    topologyNodes.push({ name: record.name, zone: record.zone, allocatableCpu: record.allocatableCpu, ready: record.ready, labels: stringMap(o.metadata.labels) });
  }
  cache.setNodes(topologyNodes);
  const nodeZone = new Map(nodes.map((n) => [n.name, zones[n.zoneIndex] ?? '']));
  const slices: KubeObject[] = [];
  const events: KubeObject[] = [];
  for (const { object: service, selector, headless } of list.services) {
    if (selector === null) continue;
    const namespace = service.metadata.namespace ?? 'default';
    const name = service.metadata.name;
    const matching = endpoints.in(namespace).filter((e) => Object.entries(selector).every(([k, v]) => e.labels[k] === v));
    const svcPorts = Array.isArray((service.spec as Json).ports) ? ((service.spec as Json).ports as Json[]) : [];
    // A named port resolves from a pod that becomes an endpoint (one with an IP), as the controller does.
    const first = matching.find((e) => typeof (e.pod.status as Json).podIP === 'string');
    const slicePorts = svcPorts.map((p) => {
      const target = typeof p.targetPort === 'number' ? p.targetPort : typeof p.targetPort === 'string' ? first?.containerPorts[p.targetPort] : Number(p.port);
      return { name: String(p.name ?? ''), ...(target !== undefined ? { port: target } : {}), protocol: String(p.protocol ?? 'TCP') };
    });
    const wires: Json[] = [];
    for (const { pod } of matching) {
      const status = pod.status as Json;
      const ip = typeof status.podIP === 'string' ? status.podIP : null;
      if (ip === null) continue;
      const nodeName = String((pod.spec as Json).nodeName ?? '');
      const ready = Array.isArray(status.conditions) && (status.conditions as Json[]).some((c) => c.type === 'Ready' && c.status === 'True');
      const terminating = typeof pod.metadata.deletionTimestamp === 'string';
      const endpoint: Json = { addresses: [ip], conditions: { ready: ready && !terminating, serving: ready, terminating }, nodeName, targetRef: { kind: 'Pod', name: pod.metadata.name, namespace, uid: pod.metadata.uid }, zone: nodeZone.get(nodeName) ?? '' };
      wires.push(endpoint);
    }
    const chunks: Json[][] = [];
    for (let i = 0; i < wires.length; i += MAX_ENDPOINTS_PER_SLICE) chunks.push(wires.slice(i, i + MAX_ENDPOINTS_PER_SLICE));
    if (chunks.length === 0) chunks.push([]);
    const sliceNames = chunks.map(() => generated('EndpointSlice', namespace, name));
    const annotations = stringMap(service.metadata.annotations);
    const engineSlices: EndpointSlice[] = chunks.map((chunk, i) => ({ name: sliceNames[i] ?? '', addressType: 'IPv4', endpoints: chunk.map(endpointFromWire) }));
    const key = `${namespace}/${name}`;
    const result = reconcileTopologyHints({ key, annotations, trafficDistribution: typeof (service.spec as Json).trafficDistribution === 'string' ? ((service.spec as Json).trafficDistribution as string) : null }, { serviceKey: key, addressType: 'IPv4', toCreate: engineSlices, toUpdate: [], unchanged: [] }, cache, minor, gates);
    const hinted = new Map(result.toCreate.map((s) => [s.name ?? '', s]));
    // The controller's next sync validates those slices in name order and rewrites those whose hints
    // no longer fit: write what it settles on, so a simulator loading the dump has nothing to redo.
    for (let round = 0; round < 3; round++) {
      const unchanged = [...hinted.values()].sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1));
      const next = reconcileTopologyHints(
        { key, annotations, trafficDistribution: typeof (service.spec as Json).trafficDistribution === 'string' ? ((service.spec as Json).trafficDistribution as string) : null },
        { serviceKey: key, addressType: 'IPv4', toCreate: [], toUpdate: [], unchanged },
        cache, minor, gates,
      );
      if (next.toUpdate.length === 0) break;
      for (const slice of next.toUpdate) hinted.set(slice.name ?? '', slice);
    }
    const labels: Record<string, string> = { ...(list.labels.get(key) ?? {}), [MANAGED_BY]: CONTROLLER, [SERVICE_NAME]: name };
    if (headless) labels['service.kubernetes.io/headless'] = '';
    chunks.forEach((chunk, i) => {
      const sliceName = sliceNames[i] ?? '';
      const engine = hinted.get(sliceName);
      const endpoints = chunk.map((wire, j) => {
        const hints = hintsToWire(engine?.endpoints[j]?.hints ?? null);
        return hints === undefined ? wire : { ...wire, hints };
      });
      slices.push({
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
        metadata: {
          name: sliceName, generateName: `${name}-`, namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), generation: int(1, 40), creationTimestamp: service.metadata.creationTimestamp,
          labels, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': past(2) },
          ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: service.metadata.uid, controller: true, blockOwnerDeletion: true }],
          managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'discovery.k8s.io/v1', time: past(2), fieldsType: 'FieldsV1', fieldsV1: { 'f:addressType': {}, 'f:endpoints': {}, 'f:metadata': { 'f:annotations': { '.': {}, 'f:endpoints.kubernetes.io/last-change-trigger-time': {} }, 'f:generateName': {}, 'f:labels': {}, 'f:ownerReferences': {} }, 'f:ports': {} } }],
        } as KubeObject['metadata'],
        addressType: 'IPv4',
        endpoints,
        ports: slicePorts,
      });
    });
    for (const event of result.events) events.push(topologyEvent(service, event, uid(), suffix(random, 8)));
  }
  return { slices, events };
}

function topologyEvent(service: KubeObject, event: TopologyEvent, eventUid: string, nameSuffix: string): KubeObject {
  const namespace = service.metadata.namespace ?? 'default';
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: `${service.metadata.name}.${nameSuffix}`, namespace, uid: eventUid, resourceVersion: '1', creationTimestamp: NOW },
    involvedObject: { apiVersion: 'v1', kind: 'Service', name: service.metadata.name, namespace, uid: service.metadata.uid ?? '' },
    reason: event.reason, message: event.message, type: event.type,
    source: { component: CONTROLLER }, reportingComponent: CONTROLLER, reportingInstance: '',
    firstTimestamp: NOW, lastTimestamp: NOW, count: 1, eventTime: null,
  };
}

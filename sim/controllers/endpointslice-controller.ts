/**
 * The simulator's EndpointSlice controller: keeps one set of EndpointSlices per selector-based
 * Service in step with its Pods, and sets topology hints exactly as upstream would, by running
 * `lib/topology`'s reconciler (topology-mode / legacy annotation / trafficDistribution) with a
 * TopologyCache fed by the Nodes. Records the same TopologyAwareHints* Events on the Service,
 * aggregated like client-go's event recorder (count and lastTimestamp).
 *
 * Address types: one set of slices per entry of the Service's `spec.ipFamilies` (IPv4, IPv6, or
 * both for dual-stack), endpoints taking the pod's IP of that family from `status.podIPs`; slices
 * of a family the Service no longer has are deleted. Named target ports resolve to the pods'
 * container ports. A slice already matching (same endpoints by address, conditions, node, zone
 * and target, same ports; whatever else a real controller wrote in it) is not rewritten, and an
 * updated slice keeps its metadata; the first sync after start does not repeat an Event a dump
 * already holds, nor announce hints a dump's slices already carry.
 *
 * Simplifications, stated: at most 100 endpoints per slice; slices are rewritten whole when their
 * membership changes (hints dropped, as upstream does for rebuilt endpoints); a named port
 * resolves from the first selected pod that declares it; node changes re-queue only overloaded
 * Services, as upstream does.
 */
import { isJsonObject, obj, stringMap, str } from '../../lib/k8s/wire-to-record/json';
import { projectNode } from '../../lib/k8s/wire-to-record/node';
import { endpointFromWire, hintsToWire } from '../../lib/k8s/wire-to-record/endpoint-slice';
import { hintsEnabled } from '../../lib/topology/upstream/annotations';
import { ENDPOINTSLICE_CONTROLLER_NAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME } from '../../lib/topology/upstream/constants';
import { checkNodeTopologyDistribution, nodeUpdateRequiresRecompute, reconcileTopologyHints } from '../../lib/topology/upstream/reconciler';
import type { SliceInfo } from '../../lib/topology/upstream/slice-info';
import { TopologyCache } from '../../lib/topology/upstream/topology-cache';
import type { EndpointSlice, TopologyEvent, TopologyNode } from '../../lib/topology/upstream/types';
import type { FeatureGates, KubeMinor } from '../../lib/topology/upstream/version';
import { MAX_MODELLED_MINOR, MIN_MODELLED_MINOR, parseKubeMinor, resolveFeatureGates } from '../../lib/topology/upstream/version';
import type { SimChange, SimContext, SimController } from '../controller';
import { stableJson } from './stable-json';
import { WorkQueue } from './work-queue';
import type { KubeObject, ReadonlyKubeObject } from '../types';

/** Upstream's default `--max-endpoints-per-slice`. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

/** Options of {@link createEndpointSliceController}. */
export interface EndpointSliceControllerOptions {
  /** Release to emulate; defaults to the simulator's served version. */
  minor?: KubeMinor;
  /** Feature-gate overrides on top of the release defaults. */
  featureGates?: Record<string, boolean>;
}

type WireEndpoint = Record<string, unknown>;

interface DesiredEndpoint {
  readonly address: string;
  readonly wire: WireEndpoint;
  /** JSON of the endpoint without hints, to compare with what a slice holds. */
  readonly signature: string;
}

function toTopologyNode(raw: ReadonlyKubeObject): TopologyNode {
  const node = projectNode(raw);
  const labels = stringMap(obj(raw.metadata).labels);
  return { name: node.name, zone: node.zone, allocatableCpu: node.allocatableCpu, ready: node.ready, labels };
}

function podReady(pod: ReadonlyKubeObject): boolean {
  const conditions = obj(pod.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => isJsonObject(c) && c.type === 'Ready' && c.status === 'True');
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

type IpFamily = 'IPv4' | 'IPv6';
const IP_FAMILIES: readonly IpFamily[] = ['IPv4', 'IPv6'];

function familyOf(ip: string): IpFamily {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

/** A pod's IPs: `status.podIPs` (dual-stack: one per family), else `status.podIP`. */
function podIPs(pod: ReadonlyKubeObject): string[] {
  const status = obj(pod.status);
  const list = Array.isArray(status.podIPs) ? (status.podIPs as unknown[]).map((p) => str(obj(p).ip)).filter((ip): ip is string => ip !== null && ip !== '') : [];
  if (list.length > 0) return list;
  const single = str(status.podIP);
  return single === null || single === '' ? [] : [single];
}

/**
 * The Service's address types, in order: `spec.ipFamilies` (IPv4/IPv6), else the family of its
 * clusterIP, else IPv4 — one set of slices per family, as upstream reconciles per address type.
 */
function serviceFamilies(service: ReadonlyKubeObject): IpFamily[] {
  const spec = obj(service.spec);
  const listed = Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as unknown[]).filter((f): f is IpFamily => f === 'IPv4' || f === 'IPv6') : [];
  const unique = listed.filter((f, i) => listed.indexOf(f) === i);
  if (unique.length > 0) return unique;
  const clusterIP = str(spec.clusterIP);
  return [clusterIP !== null && clusterIP.includes(':') ? 'IPv6' : 'IPv4'];
}

function sliceFamily(slice: ReadonlyKubeObject): IpFamily | 'FQDN' {
  const type = str(slice.addressType);
  return type === 'IPv6' ? 'IPv6' : type === 'FQDN' ? 'FQDN' : 'IPv4';
}

function firstAddress(endpoint: unknown): string | null {
  const addresses = obj(endpoint).addresses;
  return Array.isArray(addresses) ? str(addresses[0]) : null;
}

/** The containerPort a pod declares under `name`, or null. */
function containerPort(pod: ReadonlyKubeObject, name: string): number | null {
  const containers = obj(pod.spec).containers;
  if (!Array.isArray(containers)) return null;
  for (const c of containers) {
    const ports = obj(c).ports;
    if (!Array.isArray(ports)) continue;
    for (const p of ports) if (obj(p).name === name && typeof obj(p).containerPort === 'number') return obj(p).containerPort as number;
  }
  return null;
}

/**
 * What the controller itself sets on an endpoint (addresses, conditions, nodeName, zone, the
 * target's kind/namespace/name/uid), as stable JSON: a slice written by a real controller compares
 * equal when it says the same, whatever else it carries (hints are compared by the engine).
 */
function endpointSignature(endpoint: unknown): string {
  const e = obj(endpoint);
  const conditions = obj(e.conditions);
  const target = obj(e.targetRef);
  const out: Record<string, unknown> = {
    addresses: Array.isArray(e.addresses) ? e.addresses : [],
    conditions: { ready: conditions.ready ?? null, serving: conditions.serving ?? null, terminating: conditions.terminating ?? null },
  };
  if (typeof e.nodeName === 'string' && e.nodeName !== '') out.nodeName = e.nodeName;
  if (typeof e.zone === 'string' && e.zone !== '') out.zone = e.zone;
  if (isJsonObject(e.targetRef)) out.targetRef = { kind: target.kind ?? null, namespace: target.namespace ?? null, name: target.name ?? null, uid: target.uid ?? null };
  return stableJson(out);
}

function withoutHints(endpoint: unknown): WireEndpoint {
  const copy: WireEndpoint = { ...obj(endpoint) };
  delete copy.hints;
  return copy;
}


/** Creates the controller. */
export function createEndpointSliceController(options: EndpointSliceControllerOptions = {}): SimController & {
  /** Runs every queued sync now (tests and the scenario builder use it to settle). */
  flush(): void;
} {
  let ctx: SimContext | null = null;
  let minor: KubeMinor = MAX_MODELLED_MINOR;
  let gates: FeatureGates = resolveFeatureGates(minor);
  let cache: TopologyCache | null = null;
  let nodes = new Map<string, TopologyNode>();
  /** True while this controller writes slices: their change notifications are its own. */
  let writingSlices = false;
  let sliceCounter = 0;
  /** True during the sync of every Service at start. */
  let initialSync = false;

  // Syncs may enqueue more work (e.g. events); the queue loops until quiet.
  const queue = new WorkQueue((key) => syncService(key));
  const enqueue = (key: string) => queue.add(key);

  function recomputeTopology(): void {
    if (!ctx) return;
    for (const key of checkNodeTopologyDistribution(cache, [...nodes.values()])) enqueue(key);
  }

  function managedSlices(namespace: string, serviceName: string): ReadonlyKubeObject[] {
    if (!ctx) return [];
    return ctx.store
      .list('endpointslices', namespace)
      .filter((slice) => {
        const labels = stringMap(obj(slice.metadata).labels);
        return labels[LABEL_SERVICE_NAME] === serviceName && labels[LABEL_MANAGED_BY] === ENDPOINTSLICE_CONTROLLER_NAME;
      })
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  }

  function desiredEndpoints(service: ReadonlyKubeObject, selector: Record<string, string>, family: IpFamily): { endpoints: DesiredEndpoint[]; pods: ReadonlyKubeObject[] } {
    if (!ctx) return { endpoints: [], pods: [] };
    const namespace = service.metadata.namespace ?? 'default';
    const out: DesiredEndpoint[] = [];
    const pods: ReadonlyKubeObject[] = [];
    for (const pod of ctx.store.list('pods', namespace)) {
      const labels = stringMap(obj(pod.metadata).labels);
      if (!selects(selector, labels)) continue;
      const status = obj(pod.status);
      const phase = str(status.phase);
      const podIP = podIPs(pod).find((ip) => familyOf(ip) === family) ?? null;
      if (phase === 'Succeeded' || phase === 'Failed' || podIP === null) continue;
      pods.push(pod);
      const nodeName = str(obj(pod.spec).nodeName);
      const zone = nodeName === null ? null : (nodes.get(nodeName)?.zone ?? null);
      const terminating = typeof pod.metadata.deletionTimestamp === 'string';
      const ready = podReady(pod);
      const wire: WireEndpoint = {
        addresses: [podIP],
        conditions: { ready: ready && !terminating, serving: ready, terminating },
        targetRef: { kind: 'Pod', namespace, name: pod.metadata.name, uid: pod.metadata.uid ?? '' },
      };
      if (nodeName !== null) wire.nodeName = nodeName;
      if (zone !== null && zone !== '') wire.zone = zone;
      out.push({ address: podIP, wire, signature: endpointSignature(wire) });
    }
    out.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    return { endpoints: out, pods };
  }

  /** The slice ports: a named targetPort resolves to the container port of that name (first selected pod that has it, by name). */
  function servicePorts(service: ReadonlyKubeObject, pods: readonly ReadonlyKubeObject[]): unknown[] {
    const ports = obj(service.spec).ports;
    if (!Array.isArray(ports)) return [];
    const sorted = [...pods].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    return ports.map((raw) => {
      const p = obj(raw);
      let target: number | null = typeof p.targetPort === 'number' ? p.targetPort : typeof p.port === 'number' && p.targetPort === undefined ? p.port : null;
      if (typeof p.targetPort === 'string') {
        const named = p.targetPort;
        for (const pod of sorted) {
          target = containerPort(pod, named);
          if (target !== null) break;
        }
      }
      const port: Record<string, unknown> = { name: str(p.name) ?? '', protocol: str(p.protocol) ?? 'TCP' };
      if (target !== null) port.port = target;
      if (typeof p.appProtocol === 'string') port.appProtocol = p.appProtocol;
      return port;
    });
  }

  function syncService(key: string): void {
    if (!ctx) return;
    const [namespace = '', name = ''] = key.split('/');
    const service = ctx.store.get('services', namespace, name);
    const existing = managedSlices(namespace, name);
    const selector = service && isJsonObject(obj(service.spec).selector) ? stringMap(obj(service.spec).selector) : {};
    if (!service || obj(service.spec).type === 'ExternalName' || Object.keys(selector).length === 0) {
      writingSlices = true;
      try {
        for (const slice of existing) ctx.system.delete('endpointslices', namespace, slice.metadata.name);
      } finally {
        writingSlices = false;
      }
      for (const family of IP_FAMILIES) cache?.removeHints(key, family);
      return;
    }
    const families = serviceFamilies(service);
    // Slices of an address type the Service no longer has (e.g. after a change to single-stack).
    const stale = existing.filter((slice) => !(families as readonly string[]).includes(sliceFamily(slice)));
    if (stale.length > 0) {
      writingSlices = true;
      try {
        for (const slice of stale) ctx.system.delete('endpointslices', namespace, slice.metadata.name);
      } finally {
        writingSlices = false;
      }
    }
    // (removeHints forgets the Service's populated state too: only for a family that had hints.)
    for (const family of IP_FAMILIES) if (!families.includes(family) && cache?.getEndpointsByZone(key, family)) cache.removeHints(key, family);
    families.forEach((family, i) => syncFamily(service, key, selector, family, i === 0, existing.filter((slice) => sliceFamily(slice) === family)));
  }

  /** One address type of a Service: its slices in step with the pods, with hints. */
  function syncFamily(service: ReadonlyKubeObject, key: string, selector: Record<string, string>, family: IpFamily, primary: boolean, existing: ReadonlyKubeObject[]): void {
    if (!ctx) return;
    const namespace = service.metadata.namespace ?? 'default';
    const name = service.metadata.name;
    const { endpoints: desired, pods } = desiredEndpoints(service, selector, family);
    const ports = servicePorts(service, pods);
    const desiredByAddress = new Map(desired.map((d) => [d.address, d]));
    const placed = new Set<string>();

    // 1. Existing slices: unchanged when every endpoint is still desired as it is; else rebuilt.
    const unchanged: { name: string; raw: ReadonlyKubeObject }[] = [];
    const rebuilt: { name: string; endpoints: WireEndpoint[]; raw: ReadonlyKubeObject }[] = [];
    const toDelete: string[] = [];
    const portsJson = stableJson(ports);
    for (const slice of existing) {
      const endpoints = Array.isArray(slice.endpoints) ? (slice.endpoints as unknown[]) : [];
      const intact =
        stableJson(slice.ports ?? []) === portsJson &&
        endpoints.length > 0 &&
        endpoints.every((e) => {
          const address = firstAddress(e);
          const want = address === null ? undefined : desiredByAddress.get(address);
          return want !== undefined && !placed.has(want.address) && endpointSignature(e) === want.signature;
        });
      if (intact) {
        for (const e of endpoints) placed.add(firstAddress(e) ?? '');
        unchanged.push({ name: slice.metadata.name, raw: slice });
        continue;
      }
      const keep: WireEndpoint[] = [];
      for (const e of endpoints) {
        const address = firstAddress(e);
        const want = address === null ? undefined : desiredByAddress.get(address);
        if (want && !placed.has(want.address)) {
          placed.add(want.address);
          keep.push(want.wire);
        }
      }
      if (keep.length === 0) toDelete.push(slice.metadata.name);
      else rebuilt.push({ name: slice.metadata.name, endpoints: keep, raw: slice });
    }
    // 2. New endpoints fill rebuilt slices with room, then new slices.
    const fresh: WireEndpoint[][] = [];
    for (const d of desired) {
      if (placed.has(d.address)) continue;
      const target = rebuilt.find((r) => r.endpoints.length < MAX_ENDPOINTS_PER_SLICE);
      if (target) target.endpoints.push(d.wire);
      else {
        let last = fresh[fresh.length - 1];
        if (!last || last.length >= MAX_ENDPOINTS_PER_SLICE) {
          last = [];
          fresh.push(last);
        }
        last.push(d.wire);
      }
      placed.add(d.address);
    }
    // A Service without endpoints still gets one empty slice (of its primary address type), as
    // upstream keeps a placeholder; an existing empty slice with the right ports is left alone.
    if (desired.length === 0) {
      const placeholder = existing.find((s) => (!Array.isArray(s.endpoints) || s.endpoints.length === 0) && stableJson(s.ports ?? []) === portsJson);
      if (primary && placeholder) {
        const index = toDelete.indexOf(placeholder.metadata.name);
        if (index >= 0) toDelete.splice(index, 1);
      } else if (primary && existing.length === toDelete.length && fresh.length === 0 && rebuilt.length === 0) {
        const first = toDelete.shift();
        const raw = existing.find((s) => s.metadata.name === first);
        if (first !== undefined && raw) rebuilt.push({ name: first, endpoints: [], raw });
        else fresh.push([]);
      }
    }

    // 3. Hints, exactly as the upstream reconciler computes them.
    const names = new Map<number, string>();
    const toEngine = (sliceName: string, endpoints: readonly unknown[]): EndpointSlice => ({
      name: sliceName,
      addressType: family,
      endpoints: endpoints.map(endpointFromWire),
    });
    fresh.forEach((_, i) => names.set(i, `${name}-${(++sliceCounter).toString(36).padStart(5, '0')}`));
    const info: SliceInfo = {
      serviceKey: key,
      addressType: family,
      toCreate: fresh.map((endpoints, i) => toEngine(names.get(i) ?? '', endpoints)),
      toUpdate: rebuilt.map((r) => toEngine(r.name, r.endpoints)),
      unchanged: unchanged.map((u) => toEngine(u.name, Array.isArray(u.raw.endpoints) ? (u.raw.endpoints as unknown[]) : [])),
    };
    const metadata = obj(service.metadata);
    const spec = obj(service.spec);
    const result = reconcileTopologyHints(
      { key, annotations: stringMap(metadata.annotations), trafficDistribution: str(spec.trafficDistribution) },
      info,
      cache,
      minor,
      gates,
    );

    // 4. Write: wire endpoints (by address) with the engine's hints; an existing slice keeps its
    //    metadata (labels, annotations, managedFields) as a real controller's update does.
    const wireByAddress = new Map<string, WireEndpoint>();
    for (const r of rebuilt) for (const e of r.endpoints) wireByAddress.set(String((e.addresses as unknown[])[0]), e);
    for (const f of fresh) for (const e of f) wireByAddress.set(String((e.addresses as unknown[])[0]), e);
    for (const u of unchanged) for (const e of (u.raw.endpoints as unknown[]) ?? []) wireByAddress.set(firstAddress(e) ?? '', withoutHints(e));
    const rawByName = new Map<string, ReadonlyKubeObject>(existing.map((s) => [s.metadata.name, s]));
    const toWire = (slice: EndpointSlice): KubeObject => {
      const raw = rawByName.get(slice.name ?? '');
      const base = raw ? (JSON.parse(JSON.stringify(raw.metadata)) as KubeObject['metadata']) : undefined;
      const ownerReferences = [{ apiVersion: 'v1', kind: 'Service', name, uid: service.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }];
      return {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: base
          ? { ...base, labels: { ...(base.labels ?? {}), [LABEL_SERVICE_NAME]: name, [LABEL_MANAGED_BY]: ENDPOINTSLICE_CONTROLLER_NAME }, ownerReferences: base.ownerReferences ?? ownerReferences }
          : {
              name: slice.name ?? '',
              namespace,
              generateName: `${name}-`,
              labels: { [LABEL_SERVICE_NAME]: name, [LABEL_MANAGED_BY]: ENDPOINTSLICE_CONTROLLER_NAME },
              ownerReferences,
            },
        addressType: family,
        endpoints: slice.endpoints.map((e) => {
          const wire = { ...(wireByAddress.get(e.addresses[0] ?? '') ?? {}) };
          const hints = hintsToWire(e.hints);
          if (hints) wire.hints = hints;
          else delete wire.hints;
          return wire;
        }),
        ports,
      };
    };
    writingSlices = true;
    try {
      for (const sliceName of toDelete) ctx.system.delete('endpointslices', namespace, sliceName);
      for (const slice of result.toCreate) ctx.system.create('endpointslices', toWire(slice));
      for (const slice of result.toUpdate) ctx.system.upsert('endpointslices', toWire(slice));
    } finally {
      writingSlices = false;
    }
    for (const event of result.events) recordEvent(service, event);
  }

  function recordEvent(service: ReadonlyKubeObject, event: TopologyEvent): void {
    if (!ctx) return;
    const namespace = service.metadata.namespace ?? 'default';
    const now = ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const same = ctx.store
      .list('events', namespace)
      .find((e) => {
        const involved = obj(e.involvedObject);
        return involved.kind === 'Service' && involved.name === service.metadata.name && e.reason === event.reason && e.message === event.message;
      });
    // The first sync after start finds the Events a dump already holds: recorded, not repeated.
    if (same && initialSync) return;
    if (same) {
      const updated: KubeObject = JSON.parse(JSON.stringify(same)) as KubeObject;
      updated.count = (typeof same.count === 'number' ? same.count : 1) + 1;
      updated.lastTimestamp = now;
      updated.metadata.resourceVersion = '';
      ctx.system.update('events', updated);
      return;
    }
    const suffix = Math.floor(ctx.random() * 0xffffffff).toString(16).padStart(8, '0');
    ctx.system.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${service.metadata.name}.${suffix}`, namespace },
      involvedObject: { kind: 'Service', apiVersion: 'v1', namespace, name: service.metadata.name, uid: service.metadata.uid ?? '', resourceVersion: service.metadata.resourceVersion ?? '' },
      reason: event.reason,
      message: event.message,
      type: event.type,
      source: { component: ENDPOINTSLICE_CONTROLLER_NAME },
      reportingComponent: ENDPOINTSLICE_CONTROLLER_NAME,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    });
  }

  function servicesSelecting(namespace: string, labelSets: Record<string, string>[]): string[] {
    if (!ctx) return [];
    const keys: string[] = [];
    for (const service of ctx.store.list('services', namespace)) {
      const selector = stringMap(obj(service.spec).selector);
      if (labelSets.some((labels) => selects(selector, labels))) keys.push(`${namespace}/${service.metadata.name}`);
    }
    return keys;
  }

  function onChange(change: SimChange): void {
    if (!ctx) return;
    const { object, previous } = change;
    const namespace = object.metadata.namespace ?? 'default';
    switch (change.resource) {
      case 'services':
        enqueue(`${namespace}/${object.metadata.name}`);
        break;
      case 'pods': {
        const labelSets = [stringMap(obj(object.metadata).labels)];
        if (previous) labelSets.push(stringMap(obj(previous.metadata).labels));
        for (const key of servicesSelecting(namespace, labelSets)) enqueue(key);
        break;
      }
      case 'nodes': {
        const next = toTopologyNode(object);
        if (change.type === 'DELETED') nodes.delete(next.name);
        else nodes.set(next.name, next);
        const before = previous ? toTopologyNode(previous) : null;
        if (change.type !== 'MODIFIED' || !before || nodeUpdateRequiresRecompute(before, next)) recomputeTopology();
        break;
      }
      case 'endpointslices': {
        const labels = stringMap(obj(object.metadata).labels);
        const serviceName = labels[LABEL_SERVICE_NAME];
        const ours = labels[LABEL_MANAGED_BY] === ENDPOINTSLICE_CONTROLLER_NAME;
        // Someone else changed a slice this controller manages: re-sync the Service, as upstream does.
        if (serviceName && ours && !writingSlices) enqueue(`${namespace}/${serviceName}`);
        break;
      }
      default:
        break;
    }
  }

  return {
    name: 'endpointslice-controller',
    start(context) {
      ctx = context;
      queue.start();
      const served = parseKubeMinor(context.serverVersion) ?? MAX_MODELLED_MINOR;
      minor = Math.min(MAX_MODELLED_MINOR, Math.max(MIN_MODELLED_MINOR, options.minor ?? served));
      gates = resolveFeatureGates(minor, options.featureGates ?? {});
      cache = gates.TopologyAwareHints ? new TopologyCache(minor) : null;
      nodes = new Map(context.store.list('nodes').map((n) => [n.metadata.name, toTopologyNode(n)]));
      cache?.setNodes([...nodes.values()]);
      for (const resource of ['services', 'pods', 'nodes', 'endpointslices'] as const) context.subscribe(resource, onChange);
      // Annotated Services whose slices already carry hints had them populated before: no Enabled event again.
      for (const slice of context.store.list('endpointslices')) {
        const labels = stringMap(obj(slice.metadata).labels);
        const serviceName = labels[LABEL_SERVICE_NAME];
        if (serviceName === undefined || labels[LABEL_MANAGED_BY] !== ENDPOINTSLICE_CONTROLLER_NAME) continue;
        const service = context.store.get('services', slice.metadata.namespace, serviceName);
        if (!service || !hintsEnabled(stringMap(service.metadata.annotations), minor)) continue;
        if (Array.isArray(slice.endpoints) && slice.endpoints.some((e) => isJsonObject(e) && isJsonObject(e.hints))) cache?.setPopulated(`${slice.metadata.namespace ?? 'default'}/${serviceName}`, true);
      }
      for (const service of context.store.list('services')) enqueue(`${service.metadata.namespace ?? 'default'}/${service.metadata.name}`);
      initialSync = true;
      try {
        queue.flush();
      } finally {
        initialSync = false;
      }
    },
    stop() {
      queue.stop();
      ctx = null;
    },
    flush: () => queue.flush(),
  };
}


/**
 * The simulator's EndpointSlice reconciler, after upstream's `reconciler.go`: a Service's slices
 * per address type (`Reconcile`: slices of an address type the Service no longer has are deleted
 * and its hints forgotten), and for each (`reconcileByAddressType`) the endpoints its pods make,
 * existing slices kept while every endpoint is still wanted as it is, else rebuilt; new endpoints
 * filling rebuilt slices, then new ones of at most {@link MAX_ENDPOINTS_PER_SLICE}; a placeholder
 * slice for a Service without endpoints; the hint step exactly as upstream's, by lib/topology's
 * `reconcileTopologyHints`; then the writes and the topology Events.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go
 */
import { obj, stringMap, str } from '../../lib/k8s/wire-to-record/json';
import { endpointFromWire, hintsToWire } from '../../lib/k8s/wire-to-record/endpoint-slice';
import { ENDPOINTSLICE_CONTROLLER_NAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME } from '../../lib/topology/upstream/constants';
import { reconcileTopologyHints } from '../../lib/topology/upstream/reconciler';
import type { SliceInfo } from '../../lib/topology/upstream/slice-info';
import type { TopologyCache } from '../../lib/topology/upstream/topology-cache';
import type { EndpointSlice, TopologyEvent } from '../../lib/topology/upstream/types';
import type { FeatureGates, KubeMinor } from '../../lib/topology/upstream/version';
import type { SimContext } from '../controller';
import type { KubeObject, ReadonlyKubeObject } from '../types';
import type { IpFamily, WireEndpoint } from './endpointslice-utils';
import { containerPort, endpointSignature, familyOf, firstAddress, IP_FAMILIES, podIPs, podReady, selects, serviceFamilies, sliceFamily, withoutHints } from './endpointslice-utils';
import { stableJson } from './stable-json';

/** Upstream's default `--max-endpoints-per-slice`. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

/** What the reconciler works with: the controller's context and state since its start. */
export interface ReconcilerContext {
  readonly ctx: SimContext;
  readonly cache: TopologyCache | null;
  readonly minor: KubeMinor;
  readonly gates: FeatureGates;
  /** The zone of a node the controller knows (`null`: unknown node, or no zone label). */
  zoneOf(nodeName: string): string | null;
  /** A new slice's name for a Service (`<service>-<counter>`), one no slice of the namespace has. */
  newSliceName(namespace: string, serviceName: string): string;
  /** Runs the controller's own slice writes (their notifications do not re-sync the Service). */
  ownWrites(write: () => void): void;
  /** Records a topology Event on the Service. */
  recordEvent(service: ReadonlyKubeObject, event: TopologyEvent): void;
}

interface DesiredEndpoint {
  readonly address: string;
  readonly wire: WireEndpoint;
  /** JSON of the endpoint without hints, to compare with what a slice holds. */
  readonly signature: string;
}

/**
 * Reconciles a selector-based Service's managed slices (`existing`) with its pods, per address
 * type (`Reconcile`).
 */
export function reconcile(r: ReconcilerContext, namespace: string, key: string, service: ReadonlyKubeObject, selector: Record<string, string>, existing: readonly ReadonlyKubeObject[]): void {
  const { ctx, cache } = r;
  const families = serviceFamilies(service);
  // Slices of an address type the Service no longer has (e.g. after a change to single-stack).
  const stale = existing.filter((slice) => !(families as readonly string[]).includes(sliceFamily(slice)));
  if (stale.length > 0) {
    r.ownWrites(() => {
      for (const slice of stale) ctx.system.delete('endpointslices', namespace, slice.metadata.name);
    });
  }
  // (removeHints forgets the Service's populated state too: only for a family that had hints.)
  for (const family of IP_FAMILIES) if (!families.includes(family) && cache?.getEndpointsByZone(key, family)) cache.removeHints(key, family);
  families.forEach((family, i) => reconcileByAddressType(r, service, key, selector, family, i === 0, existing.filter((slice) => sliceFamily(slice) === family)));
}

/** The endpoints the Service's selected pods make for one address type (upstream's `podToEndpoint`), by address, and those pods. */
function desiredEndpoints(r: ReconcilerContext, service: ReadonlyKubeObject, selector: Record<string, string>, family: IpFamily): { endpoints: DesiredEndpoint[]; pods: ReadonlyKubeObject[] } {
  const { ctx } = r;
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
    const zone = nodeName === null ? null : r.zoneOf(nodeName);
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

/** The slice ports (`getEndpointPorts`): a named targetPort resolves to the container port of that name (first selected pod that has it, by name). */
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

/** One address type of a Service (`reconcileByAddressType`): its slices in step with the pods, with hints. */
function reconcileByAddressType(r: ReconcilerContext, service: ReadonlyKubeObject, key: string, selector: Record<string, string>, family: IpFamily, primary: boolean, existing: ReadonlyKubeObject[]): void {
  const { ctx } = r;
  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name;
  const { endpoints: desired, pods } = desiredEndpoints(r, service, selector, family);
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
  fresh.forEach((_, i) => names.set(i, r.newSliceName(namespace, name)));
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
    r.cache,
    r.minor,
    r.gates,
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
  r.ownWrites(() => {
    for (const sliceName of toDelete) ctx.system.delete('endpointslices', namespace, sliceName);
    for (const slice of result.toCreate) ctx.system.create('endpointslices', toWire(slice));
    for (const slice of result.toUpdate) ctx.system.upsert('endpointslices', toWire(slice));
  });
  for (const event of result.events) r.recordEvent(service, event);
}

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
 *
 * This file is the controller, after upstream's `endpointslice_controller.go`: which changes
 * queue which Service, a Service's sync, the TopologyCache fed by the Nodes, and the tracking of
 * its own slice writes. The slices themselves are endpointslice-reconciler.ts (`reconciler.go`),
 * its helpers endpointslice-utils.ts (`utils.go`), the Events event-recorder.ts.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/endpointslice/endpointslice_controller.go
 */
import { isJsonObject, obj, stringMap } from '../../lib/k8s/wire-to-record/json';
import { projectNode } from '../../lib/k8s/wire-to-record/node';
import { hintsEnabled } from '../../lib/topology/upstream/annotations';
import { ENDPOINTSLICE_CONTROLLER_NAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME } from '../../lib/topology/upstream/constants';
import { checkNodeTopologyDistribution, nodeUpdateRequiresRecompute } from '../../lib/topology/upstream/reconciler';
import { TopologyCache } from '../../lib/topology/upstream/topology-cache';
import type { TopologyNode } from '../../lib/topology/upstream/types';
import type { FeatureGates, KubeMinor } from '../../lib/topology/upstream/version';
import { MAX_MODELLED_MINOR, MIN_MODELLED_MINOR, parseKubeMinor, resolveFeatureGates } from '../../lib/topology/upstream/version';
import type { SimChange, SimContext, SimController } from '../controller';
import type { ReadonlyKubeObject } from '../types';
import type { ReconcilerContext } from './endpointslice-reconciler';
import { reconcile } from './endpointslice-reconciler';
import { IP_FAMILIES, selects } from './endpointslice-utils';
import { recordEvent } from './event-recorder';
import { WorkQueue } from './work-queue';

/** Options of {@link createEndpointSliceController}. */
export interface EndpointSliceControllerOptions {
  /** Release to emulate; defaults to the simulator's served version. */
  minor?: KubeMinor;
  /** Feature-gate overrides on top of the release defaults. */
  featureGates?: Record<string, boolean>;
}

function toTopologyNode(raw: ReadonlyKubeObject): TopologyNode {
  const node = projectNode(raw);
  const labels = stringMap(obj(raw.metadata).labels);
  return { name: node.name, zone: node.zone, allocatableCpu: node.allocatableCpu, ready: node.ready, labels };
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
  /** The reconciler's view of the controller since its start (`null` while stopped). */
  let reconciler: ReconcilerContext | null = null;

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

  /** Runs the controller's own slice writes: their change notifications do not re-sync the Service. */
  function ownWrites(write: () => void): void {
    writingSlices = true;
    try {
      write();
    } finally {
      writingSlices = false;
    }
  }

  function syncService(key: string): void {
    if (!ctx || !reconciler) return;
    const [namespace = '', name = ''] = key.split('/');
    const service = ctx.store.get('services', namespace, name);
    const existing = managedSlices(namespace, name);
    const selector = service && isJsonObject(obj(service.spec).selector) ? stringMap(obj(service.spec).selector) : {};
    if (!service || obj(service.spec).type === 'ExternalName' || Object.keys(selector).length === 0) {
      const { system } = ctx;
      ownWrites(() => {
        for (const slice of existing) system.delete('endpointslices', namespace, slice.metadata.name);
      });
      for (const family of IP_FAMILIES) cache?.removeHints(key, family);
      return;
    }
    reconcile(reconciler, namespace, key, service, selector, existing);
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
      reconciler = {
        ctx: context,
        cache,
        minor,
        gates,
        zoneOf: (nodeName) => nodes.get(nodeName)?.zone ?? null,
        // A name no slice of the namespace has (one written by another controller instance before a
        // restart of this one, or by a client): the API server gives a generateName create another
        // suffix rather than failing it (RetryGenerateName, on by default since 1.31), and a create
        // that collided would otherwise throw out of the sync.
        newSliceName: (namespace, serviceName) => {
          for (;;) {
            const candidate = `${serviceName}-${(++sliceCounter).toString(36).padStart(5, '0')}`;
            if (context.store.get('endpointslices', namespace, candidate) === undefined) return candidate;
          }
        },
        ownWrites,
        recordEvent: (service, event) => recordEvent(context, service, event, ENDPOINTSLICE_CONTROLLER_NAME, initialSync),
      };
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
      reconciler = null;
    },
    flush: () => queue.flush(),
  };
}


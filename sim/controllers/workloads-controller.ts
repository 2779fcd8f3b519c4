/**
 * The simulator's workload controllers, condensed: Deployment → one ReplicaSet → Pods, a
 * scheduler that places new Pods, a kubelet that makes them Running and Ready at once, and HPA
 * status that follows its target's replicas.
 *
 * Placement on scale-up honours `topologySpreadConstraints` on the zone key (the zone with the
 * fewest matching Pods among zones with schedulable nodes; ties by zone name), as the scheduler's
 * default spreading also does. Scale-down removes Pods **at random** (seeded), because the
 * ReplicaSet controller's deletion order ignores zones — this is how an HPA scale-down drifts a
 * Service out of zone balance in real clusters.
 */
import { isJsonObject, obj, projectNode, stringMap, str } from '../../lib/k8s/wire-to-record';
import { LABEL_TOPOLOGY_ZONE } from '../../lib/topology/upstream/constants';
import type { SimChange, SimContext, SimController } from '../controller';
import { stableJson } from './stable-json';
import { WorkQueue } from './work-queue';
import type { KubeObject, ReadonlyKubeObject } from '../types';

/** Label the ReplicaSet controller adds to Pods and ReplicaSets. */
const POD_TEMPLATE_HASH = 'pod-template-hash';

function hashText(text: string): string {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  let value = hash >>> 0;
  for (let i = 0; i < 10; i++) {
    out += alphabet[value % alphabet.length];
    value = Math.floor(value / alphabet.length) || (hash >>> i) + i;
  }
  return out;
}


/** Whether a ReplicaSet's pod template is the Deployment's (ignoring the pod-template-hash label). */
function sameTemplate(rsTemplate: Record<string, unknown>, deploymentTemplate: Record<string, unknown>): boolean {
  const labels = Object.fromEntries(Object.entries(stringMap(obj(rsTemplate.metadata).labels)).filter(([key]) => key !== POD_TEMPLATE_HASH));
  const normalised = { ...rsTemplate, metadata: { ...obj(rsTemplate.metadata), labels } };
  return stableJson(normalised) === stableJson({ ...deploymentTemplate, metadata: { ...obj(deploymentTemplate.metadata), labels: stringMap(obj(deploymentTemplate.metadata).labels) } });
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function controllerOwner(object: ReadonlyKubeObject): { kind: string; name: string; uid: string } | null {
  const refs = object.metadata.ownerReferences;
  if (!Array.isArray(refs)) return null;
  const ref = refs.find((r) => r.controller === true);
  return ref ? { kind: ref.kind, name: ref.name, uid: ref.uid } : null;
}

/** Creates the workload controllers. */
export function createWorkloadsController(): SimController & { flush(): void } {
  let ctx: SimContext | null = null;
  let ipCounter = 0;

  const queue = new WorkQueue((key) => {
    const [kind, namespace = '', name = ''] = key.split('/');
    if (kind === 'deployment') syncDeployment(namespace, name);
    else if (kind === 'replicaset') syncReplicaSet(namespace, name);
  });
  const enqueue = (key: string) => queue.add(key);

  function nextPodIP(): string {
    ipCounter++;
    return `10.${100 + ((ipCounter >> 16) & 0x3f)}.${(ipCounter >> 8) & 0xff}.${ipCounter & 0xff}`;
  }

  function syncDeployment(namespace: string, name: string): void {
    if (!ctx) return;
    const deployment = ctx.store.get('deployments', namespace, name);
    const owned = ctx.store.list('replicasets', namespace).filter((rs) => controllerOwner(rs)?.uid === deployment?.metadata.uid);
    if (!deployment) return;
    const spec = obj(deployment.spec);
    const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const template = obj(spec.template);
    const hash = hashText(JSON.stringify(template));
    const current = owned.find((rs) => sameTemplate(obj(obj(rs.spec).template), template));
    // Old ReplicaSets are retired at once (a rollout collapsed to one step).
    for (const rs of owned) if (rs !== current) ctx.system.delete('replicasets', namespace, rs.metadata.name);
    const templateLabels = stringMap(obj(template.metadata).labels);
    if (!current) {
      ctx.system.create('replicasets', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: `${name}-${hash}`,
          namespace,
          labels: { ...templateLabels, [POD_TEMPLATE_HASH]: hash },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deployment.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
        },
        spec: {
          replicas,
          selector: copy(spec.selector ?? { matchLabels: templateLabels }),
          template: { ...copy(template), metadata: { ...copy(obj(template.metadata)), labels: { ...templateLabels, [POD_TEMPLATE_HASH]: hash } } },
        },
        status: { replicas: 0 },
      });
    } else if (obj(current.spec).replicas !== replicas) {
      const updated = copy(current) as KubeObject;
      updated.spec = { ...obj(updated.spec), replicas };
      updated.metadata.resourceVersion = '';
      ctx.system.update('replicasets', updated);
    }
    updateStatuses(namespace, name);
  }

  function podsOf(rs: ReadonlyKubeObject): ReadonlyKubeObject[] {
    if (!ctx) return [];
    return ctx.store.list('pods', rs.metadata.namespace).filter((pod) => controllerOwner(pod)?.uid === rs.metadata.uid);
  }

  function syncReplicaSet(namespace: string, name: string): void {
    if (!ctx) return;
    const rs = ctx.store.get('replicasets', namespace, name);
    if (!rs) return;
    const want = typeof obj(rs.spec).replicas === 'number' ? (obj(rs.spec).replicas as number) : 1;
    const pods = podsOf(rs);
    if (pods.length > want) {
      // Random removal, zone-blind, like the ReplicaSet controller among equally ranked pods.
      const victims = [...pods].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
      for (let i = 0; i < pods.length - want; i++) {
        const index = Math.floor(ctx.random() * victims.length);
        const [victim] = victims.splice(index, 1);
        if (victim) ctx.system.delete('pods', namespace, victim.metadata.name);
      }
    }
    for (let i = pods.length; i < want; i++) createPod(rs);
    const updated = copy(rs) as KubeObject;
    if (obj(rs.status).replicas !== want) {
      updated.status = { replicas: want, readyReplicas: want, availableReplicas: want, fullyLabeledReplicas: want, observedGeneration: rs.metadata.generation ?? 1 };
      updated.metadata.resourceVersion = '';
      ctx.system.update('replicasets', updated);
    }
    const owner = controllerOwner(rs);
    if (owner?.kind === 'Deployment') updateStatuses(namespace, owner.name);
  }

  /** Picks a node: the zone with the fewest matching pods (spread), then the emptiest node there. */
  function chooseNode(rs: ReadonlyKubeObject, podLabels: Record<string, string>): { name: string; zone: string | null } | null {
    if (!ctx) return null;
    const candidates = ctx.store
      .list('nodes')
      .map((n) => ({ raw: n, node: projectNode(n) }))
      .filter(({ node }) => node.ready === true && !node.unschedulable && !('node-role.kubernetes.io/control-plane' in node.labels));
    if (candidates.length === 0) return null;
    const namespace = rs.metadata.namespace ?? 'default';
    const pods = ctx.store.list('pods', namespace);
    const podsPerNode = new Map<string, number>();
    for (const pod of ctx.store.list('pods')) {
      const nodeName = str(obj(pod.spec).nodeName);
      if (nodeName) podsPerNode.set(nodeName, (podsPerNode.get(nodeName) ?? 0) + 1);
    }
    const template = obj(obj(rs.spec).template);
    const constraints = Array.isArray(obj(template.spec).topologySpreadConstraints) ? (obj(template.spec).topologySpreadConstraints as unknown[]) : [];
    const zoneConstraint = constraints.map(obj).find((c) => c.topologyKey === LABEL_TOPOLOGY_ZONE);
    const selectorLabels = zoneConstraint && isJsonObject(obj(zoneConstraint.labelSelector).matchLabels) ? stringMap(obj(zoneConstraint.labelSelector).matchLabels) : podLabels;
    const matching = (labels: Record<string, string>) => Object.entries(selectorLabels).every(([k, v]) => labels[k] === v);
    const nodeZone = new Map(candidates.map(({ node }) => [node.name, node.zone]));
    const countByZone = new Map<string, number>();
    for (const { node } of candidates) if (node.zone) countByZone.set(node.zone, countByZone.get(node.zone) ?? 0);
    for (const pod of pods) {
      if (!matching(stringMap(obj(pod.metadata).labels))) continue;
      const zone = nodeZone.get(str(obj(pod.spec).nodeName) ?? '');
      if (zone) countByZone.set(zone, (countByZone.get(zone) ?? 0) + 1);
    }
    const zones = [...countByZone.entries()].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
    const zone = zones[0]?.[0] ?? null;
    const inZone = candidates.filter(({ node }) => zone === null || node.zone === zone);
    const pool = inZone.length > 0 ? inZone : candidates;
    pool.sort((a, b) => (podsPerNode.get(a.node.name) ?? 0) - (podsPerNode.get(b.node.name) ?? 0) || (a.node.name < b.node.name ? -1 : 1));
    const chosen = pool[0];
    return chosen ? { name: chosen.node.name, zone: chosen.node.zone } : null;
  }

  function createPod(rs: ReadonlyKubeObject): void {
    if (!ctx) return;
    const namespace = rs.metadata.namespace ?? 'default';
    const template = copy(obj(obj(rs.spec).template));
    const labels = stringMap(obj(template.metadata).labels);
    const node = chooseNode(rs, labels);
    const suffix = Math.floor(ctx.random() * 36 ** 5).toString(36).padStart(5, '0');
    const now = ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const podSpec = { ...obj(template.spec) };
    if (node) podSpec.nodeName = node.name;
    const running = node !== null;
    ctx.system.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${rs.metadata.name}-${suffix}`,
        namespace,
        labels,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec: podSpec,
      status: running
        ? {
            phase: 'Running',
            podIP: nextPodIP(),
            startTime: now,
            conditions: [
              { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
              { type: 'Initialized', status: 'True', lastTransitionTime: now },
              { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
              { type: 'Ready', status: 'True', lastTransitionTime: now },
            ],
          }
        : { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: now }] },
    });
  }

  function updateStatuses(namespace: string, deploymentName: string): void {
    if (!ctx) return;
    const deployment = ctx.store.get('deployments', namespace, deploymentName);
    if (!deployment) return;
    const replicaSets = ctx.store.list('replicasets', namespace).filter((rs) => controllerOwner(rs)?.uid === deployment.metadata.uid);
    const pods = replicaSets.flatMap(podsOf);
    const ready = pods.filter((p) => str(obj(p.status).phase) === 'Running').length;
    const status = { observedGeneration: deployment.metadata.generation ?? 1, replicas: pods.length, updatedReplicas: pods.length, readyReplicas: ready, availableReplicas: ready };
    if (JSON.stringify(obj(deployment.status)) !== JSON.stringify({ ...obj(deployment.status), ...status })) {
      const updated = copy(deployment) as KubeObject;
      updated.status = { ...obj(deployment.status), ...status };
      updated.metadata.resourceVersion = '';
      ctx.system.update('deployments', updated);
    }
    for (const hpa of ctx.store.list('horizontalpodautoscalers', namespace)) {
      const target = obj(obj(hpa.spec).scaleTargetRef);
      if (target.kind !== 'Deployment' || target.name !== deploymentName) continue;
      const replicas = typeof obj(deployment.spec).replicas === 'number' ? (obj(deployment.spec).replicas as number) : pods.length;
      const hpaStatus = obj(hpa.status);
      if (hpaStatus.currentReplicas === pods.length && hpaStatus.desiredReplicas === replicas) continue;
      const updated = copy(hpa) as KubeObject;
      updated.status = { ...hpaStatus, currentReplicas: pods.length, desiredReplicas: replicas };
      updated.metadata.resourceVersion = '';
      ctx.system.update('horizontalpodautoscalers', updated);
    }
  }

  function onChange(change: SimChange): void {
    const { object } = change;
    const namespace = object.metadata.namespace ?? 'default';
    if (change.resource === 'deployments') {
      if (change.type !== 'DELETED') enqueue(`deployment/${namespace}/${object.metadata.name}`);
    } else if (change.resource === 'replicasets') {
      if (change.type !== 'DELETED') enqueue(`replicaset/${namespace}/${object.metadata.name}`);
      else if (ctx) for (const pod of podsOf(object)) ctx.system.delete('pods', namespace, pod.metadata.name);
    } else if (change.resource === 'pods' && change.type === 'DELETED') {
      const owner = controllerOwner(object);
      if (owner?.kind === 'ReplicaSet') enqueue(`replicaset/${namespace}/${owner.name}`);
    }
  }

  return {
    name: 'workloads-controller',
    start(context) {
      ctx = context;
      queue.start();
      // Continue pod IPs after the highest one a scenario already uses.
      for (const pod of context.store.list('pods')) {
        const ip = str(obj(pod.status).podIP);
        const parts = ip?.split('.').map(Number);
        if (parts && parts.length === 4 && parts[0] === 10 && (parts[1] ?? 0) >= 100) {
          ipCounter = Math.max(ipCounter, (((parts[1] ?? 100) - 100) << 16) + ((parts[2] ?? 0) << 8) + (parts[3] ?? 0));
        }
      }
      for (const resource of ['deployments', 'replicasets', 'pods'] as const) context.subscribe(resource, onChange);
      for (const d of context.store.list('deployments')) enqueue(`deployment/${d.metadata.namespace ?? 'default'}/${d.metadata.name}`);
      for (const rs of context.store.list('replicasets')) enqueue(`replicaset/${rs.metadata.namespace ?? 'default'}/${rs.metadata.name}`);
      queue.flush();
    },
    stop() {
      queue.stop();
      ctx = null;
    },
    flush: () => queue.flush(),
  };
}

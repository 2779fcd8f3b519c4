/**
 * The simulator's workload controllers, condensed: Deployment → one ReplicaSet → Pods, a
 * scheduler that places new Pods, a kubelet that makes them Running and Ready at once, and HPA
 * status that follows its target's replicas.
 *
 * Placement on scale-up honours `topologySpreadConstraints` on the zone key (the zone with the
 * fewest matching Pods among zones with schedulable nodes; ties by zone name), as the scheduler's
 * default spreading also does. Scale-down removes Pods **at random** (seeded), because the
 * ReplicaSet controller's deletion order ignores zones — this is how an HPA scale-down drifts a
 * Service out of zone balance in real clusters. The scheduler honours taints: a node with a
 * NoSchedule or NoExecute taint the pod does not tolerate is not a candidate.
 *
 * A new ReplicaSet is named `<deployment>-<hash of its template>` ({@link podTemplateHash}, after
 * upstream's `ComputeHash`); a ReplicaSet already holding that name with another template (one
 * edited by hand, a dump taken mid-rollout) bumps the Deployment's `status.collisionCount` and
 * the name is computed again, as upstream's Deployment controller does.
 *
 * Settling on a real dump: the controllers write only what differs from the state a real cluster's
 * controllers would leave. Pods a ReplicaSet owns (controller ownerReference, by uid — or by name
 * when the dump's uids did not survive — with labels its selector matches) are adopted as they
 * are; terminating and finished pods do not count as replicas (as upstream's active pods); a
 * Deployment whose ReplicaSet has its template (pod-template-hash aside) keeps it, old ones are
 * scaled to 0 and kept up to `revisionHistoryLimit`; statuses are rewritten only when a count
 * they report is wrong (managedFields, resourceVersion, generation and conditions are not
 * compared).
 *
 * This file is the Deployment and ReplicaSet controllers and the HPA status; where new Pods go is
 * scheduler.ts, what their status says kubelet.ts.
 */
import { obj, stringMap } from '../../lib/k8s/wire-to-record/json';
import type { SimChange, SimContext, SimController } from '../controller';
import { labelSelectorFromObject, matchesLabels } from '../selectors';
import type { KubeObject, ReadonlyKubeObject } from '../types';
import { controllerOwner, isActive, isReady } from './controller-utils';
import { newPodStatus, PodIPs } from './kubelet';
import { chooseNode } from './scheduler';
import { stableJson } from './stable-json';
import { WorkQueue } from './work-queue';

/** Label the ReplicaSet controller adds to Pods and ReplicaSets. */
const POD_TEMPLATE_HASH = 'pod-template-hash';

/** The characters upstream's `rand.SafeEncodeString` maps a hash's digits to (no vowels: no words). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The pod-template-hash of a Deployment's template, as upstream's `controller.ComputeHash`
 * (pkg/controller/controller_utils.go) builds it: FNV-32a over the template (upstream prints the Go
 * struct with sorted keys; here its JSON with sorted keys, so the values differ from a real
 * cluster's but are as stable), then `collisionCount` as 8 little-endian bytes when the Deployment
 * has one, and the decimal hash with each digit mapped by `SafeEncodeString`.
 */
export function podTemplateHash(template: unknown, collisionCount?: number): string {
  const bytes = [...Buffer.from(stableJson(template), 'utf8')];
  if (collisionCount !== undefined) {
    const count = Buffer.alloc(8);
    count.writeUInt32LE(collisionCount >>> 0, 0);
    bytes.push(...count);
  }
  let hash = 0x811c9dc5;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return [...String(hash >>> 0)].map((digit) => SAFE_ALPHABET[digit.charCodeAt(0) % SAFE_ALPHABET.length]).join('');
}

/** Whether a ReplicaSet's pod template is the Deployment's (ignoring the pod-template-hash label). */
function sameTemplate(rsTemplate: Record<string, unknown>, deploymentTemplate: Record<string, unknown>): boolean {
  const labels = Object.fromEntries(Object.entries(stringMap(obj(rsTemplate.metadata).labels)).filter(([key]) => key !== POD_TEMPLATE_HASH));
  const normalised = { ...rsTemplate, metadata: { ...obj(rsTemplate.metadata), labels, creationTimestamp: null } };
  return stableJson(normalised) === stableJson({ ...deploymentTemplate, metadata: { ...obj(deploymentTemplate.metadata), labels: stringMap(obj(deploymentTemplate.metadata).labels), creationTimestamp: null } });
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The count fields of a Deployment or ReplicaSet status; a write happens only when one differs. */
function countsDiffer(current: Record<string, unknown>, wanted: Record<string, number>): boolean {
  return Object.entries(wanted).some(([key, value]) => (typeof current[key] === 'number' ? current[key] : 0) !== value);
}

function revisionOf(rs: ReadonlyKubeObject): number {
  const raw = stringMap(rs.metadata.annotations)['deployment.kubernetes.io/revision'];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) ? n : 0;
}

/** Creates the workload controllers. */
export function createWorkloadsController(): SimController & { flush(): void } {
  let ctx: SimContext | null = null;
  const podIPs = new PodIPs();
  /** Pods by `namespace/ownerName` of their controller ReplicaSet (kept in step with pod changes). */
  const podsByOwner = new Map<string, Set<string>>();

  const queue = new WorkQueue((key) => {
    const [kind, namespace = '', name = ''] = key.split('/');
    if (kind === 'deployment') syncDeployment(namespace, name);
    else if (kind === 'replicaset') syncReplicaSet(namespace, name);
  });
  const enqueue = (key: string) => queue.add(key);

  function indexPod(pod: ReadonlyKubeObject, add: boolean): void {
    const owner = controllerOwner(pod);
    if (owner?.kind !== 'ReplicaSet') return;
    const key = `${pod.metadata.namespace ?? 'default'}/${owner.name}`;
    let set = podsByOwner.get(key);
    if (add) {
      if (set === undefined) {
        set = new Set();
        podsByOwner.set(key, set);
      }
      set.add(pod.metadata.name);
    } else if (set !== undefined) {
      set.delete(pod.metadata.name);
      if (set.size === 0) podsByOwner.delete(key);
    }
  }

  function ownedReplicaSets(deployment: ReadonlyKubeObject): ReadonlyKubeObject[] {
    if (!ctx) return [];
    const namespace = deployment.metadata.namespace ?? 'default';
    return ctx.store.list('replicasets', namespace).filter((rs) => {
      const owner = controllerOwner(rs);
      return owner?.kind === 'Deployment' && (owner.uid === deployment.metadata.uid || (owner.name === deployment.metadata.name && !ctx?.store.list('deployments', namespace).some((d) => d.metadata.uid === owner.uid)));
    });
  }

  function syncDeployment(namespace: string, name: string): void {
    if (!ctx) return;
    const deployment = ctx.store.get('deployments', namespace, name);
    if (!deployment) return;
    const owned = ownedReplicaSets(deployment);
    const spec = obj(deployment.spec);
    const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const template = obj(spec.template);
    const current = owned.find((rs) => sameTemplate(obj(obj(rs.spec).template), template));
    // Old ReplicaSets: scaled to 0 (a rollout collapsed to one step), kept up to revisionHistoryLimit.
    const old = owned.filter((rs) => rs !== current).sort((a, b) => revisionOf(a) - revisionOf(b) || (a.metadata.name < b.metadata.name ? -1 : 1));
    const historyLimit = typeof spec.revisionHistoryLimit === 'number' ? spec.revisionHistoryLimit : 10;
    old.forEach((rs, i) => {
      if (!ctx) return;
      if (i < old.length - historyLimit) {
        ctx.system.delete('replicasets', namespace, rs.metadata.name);
      } else if (obj(rs.spec).replicas !== 0) {
        const updated = copy(rs) as KubeObject;
        updated.spec = { ...obj(updated.spec), replicas: 0 };
        updated.metadata.resourceVersion = '';
        ctx.system.update('replicasets', updated);
      }
    });
    const templateLabels = stringMap(obj(template.metadata).labels);
    if (!current) {
      // The new ReplicaSet, named after its template's hash (pkg/controller/deployment/sync.go
      // getNewReplicaSet). A ReplicaSet of that name with another template (edited, or another's)
      // is a hash collision: the Deployment's status.collisionCount goes up, which changes the
      // hash, and the Deployment is synced again (its status write queues it).
      const status = obj(deployment.status);
      const collisionCount = typeof status.collisionCount === 'number' ? status.collisionCount : undefined;
      const hash = podTemplateHash(template, collisionCount);
      if (ctx.store.get('replicasets', namespace, `${name}-${hash}`) !== undefined) {
        const bumped = copy(deployment) as KubeObject;
        bumped.status = { ...status, collisionCount: (collisionCount ?? 0) + 1 };
        bumped.metadata.resourceVersion = '';
        ctx.system.update('deployments', bumped);
        return;
      }
      const revision = Math.max(0, ...owned.map(revisionOf)) + 1;
      ctx.system.create('replicasets', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: `${name}-${hash}`,
          namespace,
          labels: { ...templateLabels, [POD_TEMPLATE_HASH]: hash },
          annotations: { 'deployment.kubernetes.io/revision': String(revision) },
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

  /** Pods a ReplicaSet controls: by the owner's uid, or by its name when the uid is not a live one. */
  function podsOf(rs: ReadonlyKubeObject): ReadonlyKubeObject[] {
    if (!ctx) return [];
    const namespace = rs.metadata.namespace ?? 'default';
    const names = podsByOwner.get(`${namespace}/${rs.metadata.name}`);
    if (names === undefined) return [];
    const selector = labelSelectorFromObject(obj(rs.spec).selector);
    const out: ReadonlyKubeObject[] = [];
    for (const podName of names) {
      const pod = ctx.store.get('pods', namespace, podName);
      const owner = pod ? controllerOwner(pod) : null;
      if (!pod || !owner) continue;
      if (owner.uid === rs.metadata.uid) out.push(pod);
      else if (ctx.store.list('replicasets', namespace).every((other) => other.metadata.uid !== owner.uid) && matchesLabels(selector, stringMap(pod.metadata.labels))) out.push(pod);
    }
    return out;
  }

  function syncReplicaSet(namespace: string, name: string): void {
    if (!ctx) return;
    const rs = ctx.store.get('replicasets', namespace, name);
    if (!rs) return;
    const want = typeof obj(rs.spec).replicas === 'number' ? (obj(rs.spec).replicas as number) : 1;
    const pods = podsOf(rs).filter(isActive);
    if (pods.length > want) {
      // Random removal, zone-blind, like the ReplicaSet controller among equally ranked pods.
      const victims = [...pods].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
      for (let i = 0; i < pods.length - want; i++) {
        const index = Math.floor(ctx.random() * victims.length);
        const [victim] = victims.splice(index, 1);
        if (victim) deletePod(namespace, victim.metadata.name);
      }
    }
    for (let i = pods.length; i < want; i++) createPod(rs);
    const current = podsOf(rs).filter(isActive);
    const ready = current.filter(isReady).length;
    const counts = { replicas: current.length, fullyLabeledReplicas: current.length, readyReplicas: ready, availableReplicas: ready };
    if (countsDiffer(obj(rs.status), counts)) {
      const updated = copy(rs) as KubeObject;
      updated.status = { ...obj(rs.status), ...counts, observedGeneration: rs.metadata.generation ?? 1 };
      updated.metadata.resourceVersion = '';
      ctx.system.update('replicasets', updated);
    }
    const owner = controllerOwner(rs);
    if (owner?.kind === 'Deployment') updateStatuses(namespace, owner.name);
  }

  function createPod(rs: ReadonlyKubeObject): void {
    if (!ctx) return;
    const namespace = rs.metadata.namespace ?? 'default';
    const template = copy(obj(obj(rs.spec).template));
    const labels = stringMap(obj(template.metadata).labels);
    const node = chooseNode(ctx.store, rs, labels);
    const suffix = Math.floor(ctx.random() * 36 ** 5).toString(36).padStart(5, '0');
    const now = ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const podSpec = { ...obj(template.spec) };
    if (node) podSpec.nodeName = node.name;
    const created = ctx.system.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${rs.metadata.name}-${suffix}`,
        namespace,
        labels,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec: podSpec,
      status: newPodStatus(now, node !== null ? podIPs.next() : null),
    });
    indexPod(created, true);
  }

  function deletePod(namespace: string, name: string): void {
    const gone = ctx?.system.delete('pods', namespace, name);
    if (gone) indexPod(gone, false);
  }

  function updateStatuses(namespace: string, deploymentName: string): void {
    if (!ctx) return;
    const deployment = ctx.store.get('deployments', namespace, deploymentName);
    if (!deployment) return;
    const template = obj(obj(deployment.spec).template);
    const replicaSets = ownedReplicaSets(deployment);
    const pods = replicaSets.flatMap(podsOf).filter(isActive);
    const updatedPods = replicaSets.filter((rs) => sameTemplate(obj(obj(rs.spec).template), template)).flatMap(podsOf).filter(isActive);
    const ready = pods.filter(isReady).length;
    const wanted = typeof obj(deployment.spec).replicas === 'number' ? (obj(deployment.spec).replicas as number) : 1;
    const counts = { replicas: pods.length, updatedReplicas: updatedPods.length, readyReplicas: ready, availableReplicas: ready, unavailableReplicas: Math.max(0, wanted - ready) };
    const status = obj(deployment.status);
    const generation = deployment.metadata.generation ?? 1;
    const behind = typeof status.observedGeneration !== 'number' || status.observedGeneration < generation;
    if (countsDiffer(status, counts) || behind) {
      const updated = copy(deployment) as KubeObject;
      const next: Record<string, unknown> = { ...status, ...counts, observedGeneration: generation };
      if (counts.unavailableReplicas === 0) delete next.unavailableReplicas;
      updated.status = next;
      updated.metadata.resourceVersion = '';
      ctx.system.update('deployments', updated);
    }
    for (const hpa of ctx.store.list('horizontalpodautoscalers', namespace)) {
      const target = obj(obj(hpa.spec).scaleTargetRef);
      if (target.kind !== 'Deployment' || target.name !== deploymentName) continue;
      const hpaStatus = obj(hpa.status);
      if (hpaStatus.currentReplicas === pods.length && hpaStatus.desiredReplicas === wanted) continue;
      const updated = copy(hpa) as KubeObject;
      updated.status = { ...hpaStatus, currentReplicas: pods.length, desiredReplicas: wanted };
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
      else if (ctx) for (const pod of podsOf(object)) deletePod(namespace, pod.metadata.name);
    } else if (change.resource === 'pods') {
      if (change.previous) indexPod(change.previous, false);
      if (change.type !== 'DELETED') indexPod(object, true);
      // A pod that left the active set (deleted, terminating, finished) may need a replacement.
      const owner = controllerOwner(object);
      const leftActive = change.type === 'DELETED' || (change.previous !== undefined && isActive(change.previous) && !isActive(object));
      if (owner?.kind === 'ReplicaSet' && leftActive) enqueue(`replicaset/${namespace}/${owner.name}`);
    }
  }

  return {
    name: 'workloads-controller',
    start(context) {
      ctx = context;
      queue.start();
      podsByOwner.clear();
      // Continue pod IPs after the highest one a scenario already uses.
      for (const pod of context.store.list('pods')) {
        indexPod(pod, true);
        podIPs.observe(pod);
      }
      for (const resource of ['deployments', 'replicasets', 'pods'] as const) context.subscribe(resource, onChange);
      for (const d of context.store.list('deployments')) enqueue(`deployment/${d.metadata.namespace ?? 'default'}/${d.metadata.name}`);
      for (const rs of context.store.list('replicasets')) enqueue(`replicaset/${rs.metadata.namespace ?? 'default'}/${rs.metadata.name}`);
      queue.flush();
    },
    stop() {
      queue.stop();
      podsByOwner.clear();
      ctx = null;
    },
    flush: () => queue.flush(),
  };
}

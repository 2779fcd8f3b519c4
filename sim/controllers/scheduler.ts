/**
 * The simulator's scheduler, condensed: a new Pod goes to a schedulable node — Ready, not
 * cordoned, not a control-plane node, every NoSchedule and NoExecute taint tolerated (the
 * TaintToleration filter) — in the zone with the fewest matching Pods (the pod's zone
 * `topologySpreadConstraints`, else its labels; ties by zone name), as the scheduler's default
 * spreading also does, and there on the emptiest node (ties by name).
 */
import { isJsonObject, obj, stringMap, str } from '../../lib/k8s/wire-to-record/json';
import { projectNode } from '../../lib/k8s/wire-to-record/node';
import { LABEL_TOPOLOGY_ZONE } from '../../lib/topology/upstream/constants';
import type { StoreReader } from '../controller';
import type { ReadonlyKubeObject } from '../types';
import { isActive } from './controller-utils';

/** A node's taint. */
export interface Taint {
  key: string;
  value: string;
  effect: string;
}

/** A node's `spec.taints`. */
export function taintsOf(node: ReadonlyKubeObject): Taint[] {
  const taints = obj(node.spec).taints;
  if (!Array.isArray(taints)) return [];
  return taints.map(obj).map((t) => ({ key: str(t.key) ?? '', value: str(t.value) ?? '', effect: str(t.effect) ?? '' }));
}

/**
 * Whether `tolerations` tolerate every NoSchedule and NoExecute taint (PreferNoSchedule is a
 * preference, not a filter), as the scheduler's TaintToleration filter decides.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/api/core/v1/toleration.go (ToleratesTaint)
 */
export function toleratesTaints(tolerations: readonly unknown[], taints: readonly Taint[]): boolean {
  const list = tolerations.map(obj);
  return taints.every((taint) => {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') return true;
    return list.some((t) => {
      const effect = str(t.effect) ?? '';
      if (effect !== '' && effect !== taint.effect) return false;
      const key = str(t.key) ?? '';
      const operator = str(t.operator) ?? 'Equal';
      if (operator === 'Exists') return key === '' || key === taint.key;
      return key === taint.key && (str(t.value) ?? '') === taint.value;
    });
  });
}

/** Picks a node: the zone with the fewest matching pods (spread), then the emptiest node there. */
export function chooseNode(store: StoreReader, rs: ReadonlyKubeObject, podLabels: Record<string, string>): { name: string; zone: string | null } | null {
  const template = obj(obj(rs.spec).template);
  const tolerations = Array.isArray(obj(template.spec).tolerations) ? (obj(template.spec).tolerations as unknown[]) : [];
  const candidates = store
    .list('nodes')
    .map((n) => ({ raw: n, node: projectNode(n) }))
    .filter(({ raw, node }) => node.ready === true && !node.unschedulable && !('node-role.kubernetes.io/control-plane' in node.labels) && toleratesTaints(tolerations, taintsOf(raw)));
  if (candidates.length === 0) return null;
  const namespace = rs.metadata.namespace ?? 'default';
  const pods = store.list('pods', namespace);
  const podsPerNode = new Map<string, number>();
  for (const pod of store.list('pods')) {
    const nodeName = str(obj(pod.spec).nodeName);
    if (nodeName) podsPerNode.set(nodeName, (podsPerNode.get(nodeName) ?? 0) + 1);
  }
  const constraints = Array.isArray(obj(template.spec).topologySpreadConstraints) ? (obj(template.spec).topologySpreadConstraints as unknown[]) : [];
  const zoneConstraint = constraints.map(obj).find((c) => c.topologyKey === LABEL_TOPOLOGY_ZONE);
  const selectorLabels = zoneConstraint && isJsonObject(obj(zoneConstraint.labelSelector).matchLabels) ? stringMap(obj(zoneConstraint.labelSelector).matchLabels) : podLabels;
  const matching = (labels: Record<string, string>) => Object.entries(selectorLabels).every(([k, v]) => labels[k] === v);
  const nodeZone = new Map(candidates.map(({ node }) => [node.name, node.zone]));
  const countByZone = new Map<string, number>();
  for (const { node } of candidates) if (node.zone) countByZone.set(node.zone, countByZone.get(node.zone) ?? 0);
  for (const pod of pods) {
    if (!isActive(pod) || !matching(stringMap(obj(pod.metadata).labels))) continue;
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

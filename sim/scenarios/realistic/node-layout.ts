/**
 * The realistic cluster's nodes, as a layout: node groups (system, GPU, batch and the Karpenter
 * default pool, then general nodes) with their instance types, taints and capacity types, each
 * node's zone assigned by the largest deficit against the skewed zone weights (so every group is
 * skewed alike), and a few NotReady (unreachable) and cordoned nodes.
 */
import type { RealisticParams } from '../realistic';
import type { InstanceType, Taint } from './catalogue';
import { INSTANCE_TYPES } from './catalogue';
import type { Dice } from './dice';

/** A node of the layout. */
export interface GenNode {
  name: string;
  zoneIndex: number;
  ip: string;
  ready: boolean;
  unschedulable: boolean;
  taints: Taint[];
  pool: string;
  capacityType: 'ON_DEMAND' | 'SPOT';
  type: InstanceType;
}

/** The nodes of a cluster of `params` over `zones` (`weightSum`: the sum of those zones' weights). */
export function layoutNodes(params: RealisticParams, dice: Dice, zones: readonly string[], weightSum: number): GenNode[] {
  const { chance, past, pick } = dice;
  const zoneCount = zones.length;
  const nodes: GenNode[] = [];
  const zoneTarget = zones.map((_, z) => ((params.zoneWeights[z] ?? 0) / weightSum) * params.nodes);
  const zoneAssigned = zones.map(() => 0);
  const nodesPerZoneIp = zones.map(() => 0);
  const groups = [
    { pool: 'system', share: 0.05, min: 2, types: ['m6i.large'], taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' as const }], karpenter: false },
    { pool: 'gpu', share: 0.02, min: 1, types: ['g5.2xlarge'], taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const }], karpenter: false },
    { pool: 'batch', share: 0.08, min: 2, types: ['c6i.4xlarge'], taints: [{ key: 'workload', value: 'batch', effect: 'NoSchedule' as const }], karpenter: true },
    { pool: 'default', share: 0.4, min: 10, types: ['m6i.2xlarge', 'c6i.4xlarge', 'm7g.2xlarge', 'r6i.xlarge'], taints: [], karpenter: true },
    { pool: 'general', share: 1, min: 0, types: ['m6i.xlarge', 'm6i.2xlarge'], taints: [], karpenter: false },
  ];
  let remaining = params.nodes;
  for (const group of groups) {
    const count = group.pool === 'general' ? remaining : Math.min(remaining, Math.max(group.min, Math.round(params.nodes * group.share)));
    remaining -= count;
    for (let i = 0; i < count; i++) {
      let zi = 0;
      let best = -Infinity;
      for (let z = 0; z < zoneCount; z++) {
        const deficit = (zoneTarget[z] ?? 0) - (zoneAssigned[z] ?? 0);
        if (deficit > best) {
          best = deficit;
          zi = z;
        }
      }
      zoneAssigned[zi] = (zoneAssigned[zi] ?? 0) + 1;
      const n = (nodesPerZoneIp[zi] = (nodesPerZoneIp[zi] ?? 0) + 1);
      const ip = `10.${zi * 16}.${Math.floor(n / 250)}.${(n % 250) + 4}`;
      const type = INSTANCE_TYPES[pick(group.types)] ?? (INSTANCE_TYPES['m6i.xlarge'] as InstanceType);
      nodes.push({
        name: `ip-${ip.replaceAll('.', '-')}.ec2.internal`, zoneIndex: zi, ip, ready: true, unschedulable: false,
        taints: group.taints.map((t) => ({ ...t })), pool: group.pool, capacityType: group.karpenter && chance(0.4) ? 'SPOT' : 'ON_DEMAND', type,
      });
    }
  }
  // A few NotReady (unreachable) and cordoned general nodes.
  const general = nodes.filter((n) => n.pool === 'general' || n.pool === 'default');
  const notReady = Math.max(1, Math.round(params.nodes * 0.01));
  for (let i = 0; i < notReady && i < general.length; i++) {
    const node = general[(i * 7 + 3) % general.length] as GenNode;
    node.ready = false;
    const since = past(1);
    node.taints.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: since }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: since });
  }
  const cordoned = Math.max(1, Math.round(params.nodes * 0.005));
  for (let i = 0; i < cordoned && i < general.length; i++) {
    const node = general[(i * 11 + 5) % general.length] as GenNode;
    if (!node.ready || node.unschedulable) continue;
    node.unschedulable = true;
    node.taints.push({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: past(2) });
  }
  return nodes;
}

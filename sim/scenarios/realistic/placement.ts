/**
 * Where the realistic cluster's pods run, as a scheduler would have put them: only on Ready,
 * uncordoned nodes whose NoSchedule and NoExecute taints the pod tolerates; a spread workload in
 * the zone with the fewest of its pods so far, a zone-biased one mostly in its zone, the others in
 * proportion to the zone weights; there, mostly the emptiest of a few random candidates (the
 * scheduler's balanced allocation, roughly). Also hands out pod IPs per zone and counts the pods
 * built.
 */
import type { RealisticParams } from '../realistic';
import type { Taint, Toleration } from './catalogue';
import type { Dice } from './dice';
import type { GenNode } from './node-layout';

/** Whether a pod with these tolerations may be scheduled on a node with these taints (NoSchedule/NoExecute). */
export function tolerates(tolerations: readonly Toleration[], taints: readonly Taint[]): boolean {
  return taints.every((taint) => taint.effect === 'PreferNoSchedule' || tolerations.some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  }));
}

/** How a workload spreads over zones. */
export interface PlacementPolicy {
  readonly spread: 'zone' | 'zone-hard' | 'none';
  /** The zone most of an unspread workload's pods go to (`null`: none). */
  readonly zoneBias: number | null;
}

/** The placement state of one generation. */
export class Placement {
  /** Pods built so far. */
  total = 0;
  private readonly podsOnNode = new Map<string, number>();
  private readonly zonePodIps: number[];
  private readonly nodesByZone: GenNode[][];
  private readonly zoneCount: number;

  constructor(
    private readonly params: RealisticParams,
    private readonly dice: Dice,
    zones: readonly string[],
    private readonly weightSum: number,
    private readonly nodes: readonly GenNode[],
  ) {
    this.zoneCount = zones.length;
    this.zonePodIps = zones.map(() => 0);
    this.nodesByZone = zones.map((_, z) => nodes.filter((n) => n.zoneIndex === z));
  }

  /** The next pod IP of a zone (each zone has its own range). */
  nextPodIp(zoneIndex: number): string {
    const zonePodIps = this.zonePodIps;
    const n = (zonePodIps[zoneIndex] = (zonePodIps[zoneIndex] ?? 0) + 1);
    return `10.${zoneIndex * 16 + 1 + Math.floor(n / 64_000)}.${Math.floor((n % 64_000) / 250)}.${(n % 250) + 4}`;
  }

  /** Whether a pod with `tolerations` may run on `node`. */
  schedulable(node: GenNode, tolerations: readonly Toleration[]): boolean {
    return node.ready && !node.unschedulable && tolerates(tolerations, node.taints);
  }

  /** Counts a built pod (on its node, when it has one). */
  count(node: GenNode | null): void {
    this.total++;
    if (node !== null) this.podsOnNode.set(node.name, (this.podsOnNode.get(node.name) ?? 0) + 1);
  }

  /** A node for a workload's pod number `index` (`zoneCounts`: its pods per zone so far, updated); `null` when none fits. */
  placeNode(w: PlacementPolicy, index: number, zoneCounts: number[], tolerations: readonly Toleration[]): GenNode | null {
    const { chance, random } = this.dice;
    const { params, weightSum, zoneCount, podsOnNode } = this;
    let zi: number;
    if (w.spread !== 'none') {
      zi = 0;
      for (let z = 1; z < zoneCount; z++) if ((zoneCounts[z] ?? 0) < (zoneCounts[zi] ?? 0)) zi = z;
    } else if (w.zoneBias !== null && chance(0.7)) {
      zi = w.zoneBias;
    } else {
      const r = random() * weightSum;
      let c = 0;
      zi = zoneCount - 1;
      for (let z = 0; z < zoneCount; z++) if (r < (c += params.zoneWeights[z] ?? 0)) {
        zi = z;
        break;
      }
    }
    const candidates = (this.nodesByZone[zi] ?? []).filter((n) => this.schedulable(n, tolerations));
    const fallback = candidates.length > 0 ? candidates : this.nodes.filter((n) => this.schedulable(n, tolerations));
    if (fallback.length === 0) return null;
    // Mostly the emptiest of a few random candidates (the scheduler's balanced allocation, roughly).
    let best: GenNode | null = null;
    for (let k = 0; k < 3; k++) {
      const c = fallback[(index * 31 + Math.floor(random() * fallback.length)) % fallback.length] as GenNode;
      if (best === null || (podsOnNode.get(c.name) ?? 0) < (podsOnNode.get(best.name) ?? 0)) best = c;
    }
    if (best !== null) zoneCounts[best.zoneIndex] = (zoneCounts[best.zoneIndex] ?? 0) + 1;
    return best;
  }
}

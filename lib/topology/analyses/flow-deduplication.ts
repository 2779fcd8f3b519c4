/**
 * One count per byte (docs/traffic.md, "Attribution"): each node's agent reports what it sees and
 * de-duplicates only within its host, so a flow between two nodes is in the series of both agents
 * and a flow within one node once. A cross-zone flow is halved; a same-zone flow is divided by
 * 2 − s, s the chance that its two ends share a node — Σ over the zone's nodes of (client side's
 * share on the node × server side's share on it), from where the workloads' pods run (an unknown
 * client workload: spread over the zone's nodes by CPU, the traffic model's own assumption). A
 * flow from outside the cluster is seen by the server's agent only: counted as reported.
 */
import { toTopologyNode } from '../model/cluster-context';
import type { ClusterIndex } from '../model/cluster-model';
import { quantityToMilli } from '../upstream/quantity';
import { classifyNode } from '../upstream/topology-cache';
import { ownersIn } from './workload-backing';

/** One end of a flow series. */
export interface FlowEnd {
  readonly namespace: string;
  readonly owner: string;
  /** `k8s_*_owner_type`, `''` when absent. */
  readonly type: string;
  readonly zone: string;
}

/**
 * Where the two ends of same-zone flows run, for the one-count-per-byte rule: the chance that both
 * ends of a flow between two workloads in one zone share a node.
 */
export class Placement {
  private readonly index: ClusterIndex;
  /** zone → node → client weight (the traffic model's clients: counted nodes by CPU). */
  private clientWeights: Map<string, Map<string, number>> | null = null;
  /** namespace → workload → zone → node → pods. */
  private readonly pods = new Map<string, Map<string, Map<string, Map<string, number>>>>();
  /** namespace → pod name → hostNetwork. */
  private readonly hostNetwork = new Map<string, ReadonlySet<string>>();
  private readonly shares = new Map<string, number>();

  constructor(index: ClusterIndex) {
    this.index = index;
  }

  /** Whether the pod runs with `hostNetwork` (its cAdvisor counters are the node's). */
  isHostNetwork(namespace: string, pod: string): boolean {
    let set = this.hostNetwork.get(namespace);
    if (set === undefined) {
      const names = new Set<string>();
      for (const record of this.index.podsByNamespace.get(namespace) ?? []) if (record.hostNetwork === true) names.add(record.name);
      set = names;
      this.hostNetwork.set(namespace, set);
    }
    return set.has(pod);
  }

  /**
   * A flow series' bytes/s counted once. A flow from outside the cluster is seen by the server's
   * agent only; a cross-zone flow by both agents (halved); a same-zone flow by both unless its ends
   * share a node (divided by 2 − the chance that they do). Ends in no known zone count as given.
   */
  countedOnce(bytesPerSecond: number, client: FlowEnd, server: FlowEnd, external: boolean, zones: ReadonlySet<string>): number {
    if (server.zone !== '' && zones.has(server.zone) && !external && client.zone !== '' && zones.has(client.zone)) {
      return bytesPerSecond / (client.zone === server.zone ? 2 - this.sameNodeShare(client, server, server.zone) : 2);
    }
    return bytesPerSecond;
  }

  /** Σ over the zone's nodes of the client end's share × the server end's share on that node. */
  sameNodeShare(client: FlowEnd, server: FlowEnd, zone: string): number {
    const key = `${client.type}\u0000${client.namespace}\u0000${client.owner}\u0000${server.type}\u0000${server.namespace}\u0000${server.owner}\u0000${zone}`;
    let share = this.shares.get(key);
    if (share === undefined) {
      const p = this.where(client, zone);
      const q = this.where(server, zone);
      share = q.size < p.size ? sparseProduct(p, q, this.positionsOf(p)) : fullProduct(p, q);
      share = Math.min(1, Math.max(0, share));
      this.shares.set(key, share);
    }
    return share;
  }

  /** Node → share of one end's traffic in `zone` (sums to 1, or empty when the zone has no node). */
  private where(end: FlowEnd, zone: string): ReadonlyMap<string, number> {
    if (end.type === 'Node') return new Map([[end.owner, 1]]);
    const counts = this.workloadPods(end.namespace).get(end.owner)?.get(zone);
    return counts !== undefined && counts.size > 0 ? normalised(counts) : (this.clients().get(zone) ?? new Map());
  }

  private workloadPods(namespace: string): Map<string, Map<string, Map<string, number>>> {
    let byWorkload = this.pods.get(namespace);
    if (byWorkload === undefined) {
      byWorkload = new Map();
      const owners = ownersIn(namespace, this.index);
      const zoneOf = this.nodeZones();
      for (const pod of this.index.podsByNamespace.get(namespace) ?? []) {
        if (pod.nodeName === null || pod.terminating || pod.hostNetwork === true) continue;
        const zone = zoneOf.get(pod.nodeName);
        if (zone === undefined) continue;
        const owner = owners?.get(pod.name) ?? pod.name;
        let byZone = byWorkload.get(owner);
        if (byZone === undefined) {
          byZone = new Map();
          byWorkload.set(owner, byZone);
        }
        let byNode = byZone.get(zone);
        if (byNode === undefined) {
          byNode = new Map();
          byZone.set(zone, byNode);
        }
        byNode.set(pod.nodeName, (byNode.get(pod.nodeName) ?? 0) + 1);
      }
      this.pods.set(namespace, byWorkload);
    }
    return byWorkload;
  }

  private readonly positions = new WeakMap<ReadonlyMap<string, number>, ReadonlyMap<string, number>>();

  /** Each node's place in `weights`' order (kept per map: the zone's client weights are read for every flow from an unknown client). */
  private positionsOf(weights: ReadonlyMap<string, number>): ReadonlyMap<string, number> {
    let known = this.positions.get(weights);
    if (known === undefined) {
      const order = new Map<string, number>();
      for (const node of weights.keys()) order.set(node, order.size);
      known = order;
      this.positions.set(weights, known);
    }
    return known;
  }

  private zoneByNode: Map<string, string> | null = null;

  private nodeZones(): Map<string, string> {
    if (this.zoneByNode === null) {
      this.zoneByNode = new Map();
      for (const node of this.index.snapshot.nodes) if (node.zone !== null && node.zone !== '') this.zoneByNode.set(node.name, node.zone);
    }
    return this.zoneByNode;
  }

  private clients(): Map<string, Map<string, number>> {
    if (this.clientWeights === null) {
      const weights = new Map<string, Map<string, number>>();
      for (const node of this.index.snapshot.nodes) {
        // The traffic model's client nodes (1.23+ rules: control-plane nodes excluded).
        if (node.zone === null || node.zone === '' || classifyNode(toTopologyNode(node), 36) !== 'counted') continue;
        const cpu = node.allocatableCpu === null ? 0 : (quantityToMilli(node.allocatableCpu) ?? 0);
        let byNode = weights.get(node.zone);
        if (byNode === undefined) {
          byNode = new Map();
          weights.set(node.zone, byNode);
        }
        byNode.set(node.name, cpu);
      }
      this.clientWeights = new Map([...weights].map(([zone, byNode]) => [zone, normalised(byNode)]));
    }
    return this.clientWeights;
  }
}

/** Σ over `p`'s nodes, in its order, of p × q. */
function fullProduct(p: ReadonlyMap<string, number>, q: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const [node, weight] of p) sum += weight * (q.get(node) ?? 0);
  return sum;
}

/**
 * {@link fullProduct} when `q` has fewer nodes than `p` (an unknown client spread over the zone's
 * thousands of nodes, a server on a few): only nodes of both add anything (a node `q` lacks adds 0,
 * which changes no sum), so those terms are added alone, in `p`'s order — the same number, bit for
 * bit, without walking every node of the zone for each pair of workloads.
 */
function sparseProduct(p: ReadonlyMap<string, number>, q: ReadonlyMap<string, number>, positions: ReadonlyMap<string, number>): number {
  const terms: [number, number][] = [];
  for (const [node, weight] of q) {
    const other = p.get(node);
    if (other !== undefined) terms.push([positions.get(node) as number, other * weight]);
  }
  if (terms.length > 1) terms.sort((a, b) => a[0] - b[0]);
  let sum = 0;
  for (const [, term] of terms) sum += term;
  return sum;
}

/** The weights divided by their sum (equal shares when they sum to 0). */
function normalised(weights: ReadonlyMap<string, number>): Map<string, number> {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  const out = new Map<string, number>();
  for (const [key, weight] of weights) out.set(key, total > 0 ? weight / total : 1 / weights.size);
  return out;
}

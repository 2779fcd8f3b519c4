/**
 * Where a Service's clients run: each zone's client nodes (the engine's, in proportion to their
 * CPU) with their shares of the zone's client weight, and the node whose agent reports a
 * Service's requests from a zone — one of the zone's client nodes, picked by a seed from the
 * Service key.
 */
import { createSeededRandom, hashSeed } from '../../lib/topology/analyses/seeded-random';
import type { PreparedAnalysis } from '../../lib/topology/report/prepared-analysis';

/** The client nodes of one zone: names (sorted) and each one's share of the zone's client weight. */
export interface ClientZoneNodes {
  readonly names: readonly string[];
  readonly shareByNode: ReadonlyMap<string, number>;
}

/** Each zone's client nodes (sorted) and their shares of the zone's client weight (CPU; equal shares without any). */
export function clientZoneNodes(prepared: PreparedAnalysis): Map<string, ClientZoneNodes> {
  const zones = new Map<string, ClientZoneNodes>();
  for (const zone of prepared.clients) {
    const nodes = [...zone.nodes].sort((a, b) => compareText(a.proxyNode.name, b.proxyNode.name));
    const total = zone.totalWeight ?? nodes.reduce((sum, node) => sum + node.weight, 0);
    const shareByNode = new Map<string, number>();
    for (const node of nodes) shareByNode.set(node.proxyNode.name, total > 0 ? node.weight / total : 1 / nodes.length);
    zones.set(zone.zone, { names: nodes.map((node) => node.proxyNode.name), shareByNode });
  }
  return zones;
}

/** The client-side agent's node of a Service in a zone: one of the zone's client nodes, picked by a seed from the Service key. */
export function clientNodeOf(serviceKey: string, zone: string, names: readonly string[]): string | null {
  const random = createSeededRandom(hashSeed(`zonescope-sim-agent:${serviceKey}:${zone}`));
  return names[Math.floor(random() * names.length)] ?? null;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What the Overview's zone map says at a glance, per zone and in a few sentences (pure): the
 * zone's share of the counted CPU and how far it is from an even share, its share of the ready
 * endpoints, how many endpoints the `Auto` heuristic moves in or out of it (the hints the
 * controller would write), and how much of its clients' traffic is served in another zone now.
 *
 * The `Auto` heuristic gives each zone endpoints in proportion to its CPU share; a zone whose
 * endpoints fall short of that share is sent endpoints from the others ("donated"), which then
 * serve its clients across zones. With endpoints spread evenly, a zone's deviation from an even
 * CPU share is what makes it receive or give.
 */
import type { ClusterTrafficReport } from '@/lib/topology/analyses/traffic-volume';
import type { ClusterReport, ServiceReport } from '@/lib/topology/report/analysis-schema';
import { formatCount, formatPercent, plural } from '../ui/format';

/** Below this many points from an even share, CPU counts as even. */
export const EVEN_WITHIN_POINTS = 2;

/** One zone of the map. */
export interface ZoneGlance {
  readonly zone: string;
  /** The topology cache's CPU ratio (0–1); `null` when the cluster has none. */
  readonly cpuShare: number | null;
  /** {@link cpuShare} minus an even share, in points (percentage points); `null` without ratios. */
  readonly deviationPoints: number | null;
  /** Ready endpoints of every Service in the zone, and their share of the cluster's ready endpoints (`null` when there are none). */
  readonly readyEndpoints: number;
  readonly endpointShare: number | null;
  /**
   * Endpoints the hints the controller would write send into the zone from other zones (positive)
   * or out of it (negative), over the Services whose `Auto` hints are expected on.
   */
  readonly donatedIn: number;
  /** GB per month its clients send now that other zones serve, and that as a share of all they send (`null` when they send nothing). */
  readonly crossZoneGb: number;
  readonly crossZoneShare: number | null;
}

/** The zone map's facts: a {@link ZoneGlance} per zone of the topology cache and the sentences that sum them up. */
export interface ZoneMapGlance {
  readonly zones: readonly ZoneGlance[];
  /** 1 / zones with a CPU ratio; `null` when there are none. */
  readonly evenShare: number | null;
  /** Endpoints donated across zones by the expected `Auto` hints, every Service together. */
  readonly donated: number;
  /** Services whose `Auto` hints are expected on (the donations' scope). */
  readonly autoServices: number;
  /** Two or three sentences: CPU against an even share, the donations, where traffic crosses zones. */
  readonly sentences: readonly string[];
}

/** What {@link zoneGlance} reads of a Service. */
export type GlanceService = Pick<ServiceReport, 'mechanism' | 'expected' | 'observed' | 'unknown'>;

/** `+3.1 pt`, `−2.0 pt` (a true minus sign), `0.0 pt`. */
export function formatPoints(points: number): string {
  const rounded = Math.round(points * 10) / 10;
  if (rounded === 0) return '0.0 pt';
  return `${rounded > 0 ? '+' : '−'}${Math.abs(rounded).toFixed(1)} pt`;
}

/** `a`, `a and b`, `a, b and c`. */
function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

function cpuSentence(zones: readonly ZoneGlance[], even: number | null): string {
  if (even === null) return 'No zone has a CPU share: the topology cache cannot compute ratios, so Auto writes no hints anywhere (see Eligibility).';
  const rated = zones.filter((z): z is ZoneGlance & { cpuShare: number; deviationPoints: number } => z.cpuShare !== null && z.deviationPoints !== null);
  const above = rated.reduce<(typeof rated)[number] | null>((best, z) => (best === null || z.deviationPoints > best.deviationPoints ? z : best), null);
  const below = rated.reduce<(typeof rated)[number] | null>((best, z) => (best === null || z.deviationPoints < best.deviationPoints ? z : best), null);
  const largest = Math.max(Math.abs(above?.deviationPoints ?? 0), Math.abs(below?.deviationPoints ?? 0));
  if (largest < EVEN_WITHIN_POINTS) return `CPU is even: each of the ${rated.length} zones holds ${formatPercent(even)} of it, within ${EVEN_WITHIN_POINTS} points.`;
  const parts: string[] = [];
  if (above !== null && above.deviationPoints >= EVEN_WITHIN_POINTS) parts.push(`${above.zone} holds ${formatPercent(above.cpuShare)} (${formatPoints(above.deviationPoints)})`);
  if (below !== null && below.deviationPoints <= -EVEN_WITHIN_POINTS) parts.push(`${below.zone} ${formatPercent(below.cpuShare)} (${formatPoints(below.deviationPoints)})`);
  return `CPU is uneven (an even share is ${formatPercent(even)}): ${parts.join(', ')}.`;
}

function donationSentence(zones: readonly ZoneGlance[], donated: number, autoServices: number): string | null {
  if (autoServices === 0) return null;
  if (donated === 0) return `Auto donates no endpoint across zones: the ready endpoints of its ${plural(autoServices, 'Service')} follow each zone's CPU share closely enough.`;
  const into = zones.filter((z) => z.donatedIn > 0).map((z) => `${z.zone} (+${formatCount(z.donatedIn)})`);
  const from = zones.filter((z) => z.donatedIn < 0).map((z) => `${z.zone} (−${formatCount(-z.donatedIn)})`);
  const where = into.length > 0 && from.length > 0 ? `: into ${listWords(into)}, from ${listWords(from)}` : '';
  return `Auto donates ${plural(donated, 'endpoint')} across zones to match the CPU shares${where}; each serves another zone's clients.`;
}

function trafficSentence(zones: readonly ZoneGlance[]): string | null {
  const total = zones.reduce((sum, z) => sum + z.crossZoneGb, 0);
  if (zones.every((z) => z.crossZoneShare === null)) return null;
  if (!(total > 0)) return 'No traffic crosses zones now.';
  const top = zones.reduce((best, z) => (z.crossZoneGb > best.crossZoneGb ? z : best));
  return `${top.zone}'s clients send the most traffic across zones: ${formatPercent(top.crossZoneShare)} of theirs is served in another zone now (${formatPercent(top.crossZoneGb / total, 0)} of the cluster's cross-zone GB).`;
}

/**
 * The zone map's facts for the zones of `cluster` (pure; one pass over the Services). `traffic` is
 * the cluster's traffic report (its `now` flows), `null` when there is none.
 */
export function zoneGlance(cluster: Pick<ClusterReport, 'zones'>, services: readonly GlanceService[], traffic: Pick<ClusterTrafficReport, 'flows'> | null): ZoneMapGlance {
  const rated = cluster.zones.filter((z) => z.cpuRatio !== null);
  const even = rated.length > 0 ? 1 / rated.length : null;
  const ready = new Map<string, number>();
  const net = new Map<string, number>();
  let allReady = 0;
  let donated = 0;
  let autoServices = 0;
  for (const service of services) {
    allReady += service.observed.readyEndpoints;
    for (const [zone, counts] of Object.entries(service.observed.endpointsByZone)) ready.set(zone, (ready.get(zone) ?? 0) + counts.ready);
    const auto = service.mechanism === 'topology-mode' || service.mechanism === 'legacy-annotation';
    if (!auto || !service.expected.hintsEnabled || service.unknown.expectedHints !== undefined) continue;
    autoServices++;
    donated += service.expected.donatedEndpoints;
    const zones = new Set([...Object.keys(service.expected.hintCountsByZone), ...Object.keys(service.observed.endpointsByZone)]);
    for (const zone of zones) {
      const moved = (service.expected.hintCountsByZone[zone] ?? 0) - (service.observed.endpointsByZone[zone]?.ready ?? 0);
      if (moved !== 0) net.set(zone, (net.get(zone) ?? 0) + moved);
    }
  }
  const flows = traffic?.flows.now ?? null;
  const zones: ZoneGlance[] = cluster.zones.map((z) => {
    const sent = flows?.[z.name];
    let total = 0;
    let cross = 0;
    if (sent !== undefined) {
      for (const [to, gb] of Object.entries(sent)) {
        total += gb;
        if (to !== z.name) cross += gb;
      }
    }
    const endpoints = ready.get(z.name) ?? 0;
    return {
      zone: z.name,
      cpuShare: z.cpuRatio,
      deviationPoints: z.cpuRatio !== null && even !== null ? (z.cpuRatio - even) * 100 : null,
      readyEndpoints: endpoints,
      endpointShare: allReady > 0 ? endpoints / allReady : null,
      donatedIn: net.get(z.name) ?? 0,
      crossZoneGb: cross,
      crossZoneShare: flows === null || !(total > 0) ? null : cross / total,
    };
  });
  const sentences = [cpuSentence(zones, even), donationSentence(zones, donated, autoServices), trafficSentence(zones)].filter((s): s is string => s !== null);
  return { zones, evenShare: even, donated, autoServices, sentences };
}

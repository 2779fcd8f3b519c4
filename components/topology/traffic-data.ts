/**
 * Slims the four traffic matrices of a Service for the client-side traffic panel: the matrix, the
 * fractions and kube-proxy's selection per zone, plus the most loaded endpoints (not all of them:
 * a 5,000-endpoint Service would otherwise send 20,000 rows).
 */
import type { ServiceDetail } from '@/lib/topology/analysis';
import type { EndpointLoad, TrafficMatrix } from '@/lib/topology/traffic';

export type ScenarioId = 'now' | 'expected' | 'ifAuto' | 'ifNone';

export interface TrafficScenario {
  readonly id: ScenarioId;
  readonly label: string;
  readonly description: string;
  readonly clientZones: readonly string[];
  readonly endpointZones: readonly string[];
  readonly clientShareByZone: Readonly<Record<string, number>>;
  readonly matrix: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly droppedByZone: Readonly<Record<string, number>>;
  readonly crossZoneFraction: number;
  readonly sameZoneFraction: number;
  readonly unknownZoneFraction: number;
  readonly droppedFraction: number;
  readonly maxRelativeLoad: number;
  readonly selectionByZone: TrafficMatrix['selectionByZone'];
  /** The most loaded endpoints first (at most {@link MAX_LOADS}). */
  readonly loads: readonly EndpointLoad[];
  readonly loadCount: number;
}

export const MAX_LOADS = 60;

const LABELS: Record<ScenarioId, { label: string; description: string }> = {
  now: { label: 'Now', description: 'Following the hints on the slices now, as kube-proxy does.' },
  expected: { label: 'After next sync', description: 'With the hints the controller is expected to write on its next sync.' },
  ifAuto: { label: 'With topology mode Auto', description: 'If topology mode were enabled (the controller\u2019s hints for Auto).' },
  ifNone: { label: 'Without hints', description: 'If no endpoint carried hints: every client spreads over all endpoints.' },
};

function slim(id: ScenarioId, m: TrafficMatrix): TrafficScenario {
  const loads = [...m.endpointLoads].sort((a, b) => b.relativeLoad - a.relativeLoad || a.endpoint.localeCompare(b.endpoint)).slice(0, MAX_LOADS);
  return {
    id,
    ...LABELS[id],
    clientZones: m.clientZones,
    endpointZones: m.endpointZones,
    clientShareByZone: m.clientShareByZone,
    matrix: m.matrix,
    droppedByZone: m.droppedByZone,
    crossZoneFraction: m.crossZoneFraction,
    sameZoneFraction: m.sameZoneFraction,
    unknownZoneFraction: m.unknownZoneFraction,
    droppedFraction: m.droppedFraction,
    maxRelativeLoad: m.maxRelativeLoad,
    selectionByZone: m.selectionByZone,
    loads,
    loadCount: m.endpointLoads.length,
  };
}

/** The four scenarios of a Service, in display order. */
export function trafficScenarios(detail: ServiceDetail): TrafficScenario[] {
  const t = detail.trafficMatrix;
  return [slim('now', t.now), slim('expected', t.expected), slim('ifAuto', t.ifAuto), slim('ifNone', t.ifNone)];
}

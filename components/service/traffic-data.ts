/**
 * Slims the four traffic matrices of a Service for the client-side traffic panel: the matrix, the
 * fractions and kube-proxy's selection per zone, the spread of the per-endpoint load, and the most
 * loaded endpoints (not all of them: a 5,000-endpoint Service would otherwise send 20,000 rows;
 * the panel loads the complete list of a scenario on demand).
 */
import type { ServiceDetail } from '@/lib/topology/report/analysis-schema';
import type { EndpointLoad, TrafficMatrix } from '@/lib/topology/analyses/traffic';
import type { TrafficScenario } from '@/lib/topology/analyses/traffic-scenarios';
import { TRAFFIC_SCENARIOS } from '@/lib/topology/analyses/traffic-scenarios';
import { sortLoads } from './endpoint-order';

/** What the panel shows of an endpoint's load (the full list from the API has the node too). */
export type LoadRowData = Pick<EndpointLoad, 'endpoint' | 'zone' | 'podName' | 'load' | 'relativeLoad'>;

/** One traffic scenario of a Service as the panel shows it. */
export interface TrafficScenarioView {
  readonly id: TrafficScenario;
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
  /** The most loaded endpoints first (at most {@link MAX_LOADS}, or all of a small Service). */
  readonly loads: readonly LoadRowData[];
  readonly loadCount: number;
  /** Endpoints above {@link OVERLOAD}× the fair share. */
  readonly overloadedCount: number;
  /** The least loaded endpoint's load relative to the fair share. */
  readonly minRelativeLoad: number;
}

/** Busiest endpoints sent with the page per scenario (all of them up to {@link ALL_LOADS_UP_TO}). */
export const MAX_LOADS = 5;
/** Services with at most this many loaded endpoints get every row with the page. */
export const ALL_LOADS_UP_TO = 12;
/** Relative load above which an endpoint is flagged. */
export const OVERLOAD = 1.2;

const LABELS: Record<TrafficScenario, { label: string; description: string }> = {
  now: { label: 'Now', description: 'Following the hints on the slices now, as kube-proxy does.' },
  expected: { label: 'After next sync', description: 'With the hints the controller is expected to write on its next sync.' },
  ifAuto: { label: 'With topology mode Auto', description: 'If topology mode were enabled (the controller\u2019s hints for Auto).' },
  ifNone: { label: 'Without hints', description: 'If no endpoint carried hints: every client spreads over all endpoints.' },
};

const SLIM_LOADS = new WeakMap<EndpointLoad, LoadRowData>();

/** The row of a load; the same object for the same load, so scenarios sharing a matrix share it in the RSC payload too. */
function slimLoad(load: EndpointLoad): LoadRowData {
  let row = SLIM_LOADS.get(load);
  if (!row) {
    row = { endpoint: load.endpoint, zone: load.zone, podName: load.podName, load: load.load, relativeLoad: load.relativeLoad };
    SLIM_LOADS.set(load, row);
  }
  return row;
}

function slim(id: TrafficScenario, m: TrafficMatrix): TrafficScenarioView {
  const loads = sortLoads(m.endpointLoads)
    .slice(0, m.endpointLoads.length <= ALL_LOADS_UP_TO ? ALL_LOADS_UP_TO : MAX_LOADS)
    .map(slimLoad);
  let overloadedCount = 0;
  let minRelativeLoad = Infinity;
  for (const load of m.endpointLoads) {
    if (load.relativeLoad > OVERLOAD) overloadedCount++;
    minRelativeLoad = Math.min(minRelativeLoad, load.relativeLoad);
  }
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
    overloadedCount,
    minRelativeLoad: Number.isFinite(minRelativeLoad) ? minRelativeLoad : 0,
  };
}

const SCENARIOS = new WeakMap<ServiceDetail, readonly TrafficScenarioView[]>();

/** The four scenarios of a Service, in display order (memoised per analysis result). */
export function trafficScenarios(detail: ServiceDetail): readonly TrafficScenarioView[] {
  const cached = SCENARIOS.get(detail);
  if (cached) return cached;
  const scenarios = TRAFFIC_SCENARIOS.map((id) => slim(id, detail.trafficMatrix[id]));
  SCENARIOS.set(detail, scenarios);
  return scenarios;
}

/**
 * A volume as the what-if input starts with it: whole GB from 100 up, one decimal below (measured
 * volumes carry many digits, and change a little with every Prometheus answer).
 */
export function roundGb(gb: number): number {
  if (!Number.isFinite(gb)) return 0;
  return gb >= 100 ? Math.round(gb) : Math.round(gb * 10) / 10;
}

/** The cost table's rows (see `CostRowView` of traffic-panel.tsx). */
export interface CostRowData {
  readonly id: string;
  readonly label: string;
  readonly crossZoneFraction: number;
  readonly basis: 'measured' | 'measured + model' | 'model';
}

/**
 * The rows of a Service's cost table: now, after the next sync, with Auto, without hints — each at
 * the share its cost is priced at (`monthlyCost.*.crossZoneFraction`: measured now and the model's
 * change applied to the measurement for the others when the volume is measured with flows, else
 * the model's) — and, when a verified fix turns hints on, the smallest fix.
 */
export function costRows(
  detail: Pick<ServiceDetail, 'fixes'>,
  traffic: { readonly volume: { readonly measuredMatrix: unknown }; readonly monthlyCost: Readonly<Record<'now' | 'expected' | 'ifAuto' | 'ifNone', { readonly crossZoneFraction: number }>> },
): CostRowData[] {
  const measured = traffic.volume.measuredMatrix !== null;
  const rows: CostRowData[] = TRAFFIC_SCENARIOS.map((id) => ({
    id,
    label: LABELS[id].label,
    crossZoneFraction: traffic.monthlyCost[id].crossZoneFraction,
    basis: !measured ? 'model' : id === 'now' ? 'measured' : 'measured + model',
  }));
  const fix = detail.fixes.find((candidate) => candidate.primary && candidate.after !== null);
  if (fix?.after) {
    rows.push({ id: 'fix', label: `Smallest fix: ${fix.title}`, crossZoneFraction: fix.after.pricedCrossZoneFraction ?? fix.after.crossZoneFraction, basis: measured ? 'measured + model' : 'model' });
  }
  return rows;
}

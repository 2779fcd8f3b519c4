/**
 * The Services view's rows: one slim row per Service, from its report, the cluster-wide traffic
 * figures (measured, set or assumed) and its HPA's range (./hpa-scale-down.ts), memoised per
 * analysis and traffic snapshot and reused per report, so after a change only the Services it
 * touched get a new row. The API (query.ts), the export (csv.ts), the table (table.ts) and the
 * Overview's counts (attention.ts) all read these rows.
 */
import 'server-only';

import type { ClusterContext } from '../../topology/model/cluster-context';
import type { ClusterAnalysis, ServiceReport } from '../../topology/report/analysis-schema';
import { UNKNOWN_ZONE } from '../../topology/analyses/traffic';
import type { ServiceTrafficCost, VolumeSourceKind } from '../../topology/analyses/traffic-volume';
import { costlyFixable, DEFAULT_ATTENTION_MIN_SAVING } from '../../topology/report/attention';
import { getClusterAnalysis, prepared } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { getClusterTraffic } from '../traffic';
import type { HpaScaleDown } from './hpa-scale-down';
import { hpaScaleDownOf } from './hpa-scale-down';

/** One row of the Services table (slim, so 10,000 rows travel cheaply). */
export interface ServiceRow {
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceReport['type'];
  readonly mechanism: ServiceReport['mechanism'];
  readonly hintsExpected: boolean;
  readonly hintsObserved: 'all' | 'some' | 'none';
  /** Why hints are off (upstream event message) or what needs attention, `null` when fine. */
  readonly reason: string | null;
  readonly attention: ServiceReport['needsAttention'];
  readonly endpointsByZone: Readonly<Record<string, number>>;
  readonly readyEndpoints: number;
  readonly crossZoneFraction: number;
  readonly crossZoneFractionIfAuto: number;
  /**
   * Volume per 30-day month in GB, as the cluster-wide traffic figures count it (measured, set or
   * assumed: see {@link volumeSource}); `null` when the Service is not counted (no traffic figures).
   */
  readonly gbPerMonth: number | null;
  /** Where {@link gbPerMonth} comes from; `null` with it. */
  readonly volumeSource: VolumeSourceKind | null;
  /** Cross-zone cost now, USD per month (cross-zone GB × price × 2); `null` with {@link gbPerMonth}. */
  readonly monthlyCost: number | null;
  /**
   * The cross-zone share measured by zone-resolved flows (what {@link monthlyCost} uses instead of
   * {@link crossZoneFraction}, the model's), `null` unless the volume source is `measured-flows`.
   */
  readonly measuredCrossZoneFraction: number | null;
  /**
   * {@link measuredCrossZoneFraction} minus the model's share (of the traffic it delivers:
   * {@link crossZoneFraction} unless some is dropped, see {@link predictedOfDelivered}), in
   * percentage points to one decimal (`+12.3`: 12.3 points more crosses zones than predicted);
   * `null` unless measured with flows.
   */
  readonly measuredMinusPredicted: number | null;
  /** What the HPA scaling the Service's Deployment does to its hints across its range (see ./hpa-scale-down.ts). */
  readonly hpaScaleDown: HpaScaleDown;
}

/**
 * The model's cross-zone share of the traffic it delivers — what flows can measure, and what the
 * Service page compares the measurement with (equal to the cross-zone share unless some is dropped).
 */
export function predictedOfDelivered(traffic: Pick<ServiceReport['traffic'], 'crossZoneFraction' | 'droppedFraction'>): number {
  const delivered = 1 - traffic.droppedFraction;
  return delivered > 0 && delivered < 1 ? traffic.crossZoneFraction / delivered : traffic.crossZoneFraction;
}

/** `measured − predicted` in percentage points, to one decimal (what the table shows and filters by). */
export function pointsDifference(measured: number, predicted: number): number {
  // (0 + 0: never -0, which JSON writes as 0 but the table would sign)
  return Math.round((measured - predicted) * 1000) / 10 + 0;
}

function toRow(report: ServiceReport, traffic: ServiceTrafficCost | undefined, minSaving: number, context: ClusterContext | null): ServiceRow {
  const observed = report.observed;
  const measured = traffic?.volume.source.kind === 'measured-flows' ? round6(traffic.crossZoneFraction) : null;
  const hinted = Object.values(observed.hintCountsByZone).reduce((a, b) => a + b, 0);
  return {
    namespace: report.namespace,
    name: report.name,
    type: report.type,
    mechanism: report.mechanism,
    hintsExpected: report.expected.hintsEnabled,
    hintsObserved: hinted === 0 ? 'none' : observed.readyEndpointsWithoutHints === 0 ? 'all' : 'some',
    // Nodes or EndpointSlices forbidden: the controller's event is unknown, not "insufficient node information".
    reason: report.unknown.expectedHints ?? (report.expected.event?.type === 'Warning' ? report.expected.event.message : (report.needsAttention?.message ?? null)),
    // A Service the rules do not list is listed when its best change saves money (as the Overview's list).
    attention: report.needsAttention ?? (traffic ? costlyFixable(traffic, minSaving) : null),
    endpointsByZone: Object.fromEntries(Object.entries(observed.endpointsByZone).map(([zone, counts]) => [zone, counts.ready])),
    readyEndpoints: observed.readyEndpoints,
    crossZoneFraction: report.traffic.crossZoneFraction,
    crossZoneFractionIfAuto: report.traffic.crossZoneFractionIfAuto,
    gbPerMonth: traffic ? round6(traffic.volume.gbPerMonth) : null,
    volumeSource: traffic ? traffic.volume.source.kind : null,
    monthlyCost: traffic ? round6(traffic.monthlyCost) : null,
    measuredCrossZoneFraction: measured,
    measuredMinusPredicted: measured === null ? null : pointsDifference(measured, predictedOfDelivered(report.traffic)),
    hpaScaleDown: hpaScaleDownOf(report, context),
  };
}

/**
 * The memos below, one set per process: Next.js bundles this module into more than one server
 * chunk (the pages' and the API routes'), and each copy with memos of its own built and kept every
 * Service's row once more (~10,000 rows per copy at realistic L, rebuilt after each Prometheus answer).
 */
interface RowMemos {
  /** Rows per analysis, then per traffic snapshot (the cluster-wide figures change when Prometheus answers anew, the analysis not). */
  readonly rows: WeakMap<ClusterAnalysis, WeakMap<object, readonly ServiceRow[]>>;
  /** The row last built from each report, with what it read of the traffic figures it was built with and whether it read the HPAs. */
  readonly rowOf: WeakMap<ServiceReport, { readonly figures: RowFigures | null; readonly withContext: boolean; readonly row: ServiceRow }>;
  /** Stands for "no traffic figures yet" in {@link RowMemos.rows}. */
  readonly noTraffic: object;
}

const MEMOS_KEY = Symbol.for('zonescope.serviceRowMemos');

function rowMemos(): RowMemos {
  const holder = globalThis as unknown as { [MEMOS_KEY]?: RowMemos };
  return (holder[MEMOS_KEY] ??= { rows: new WeakMap(), rowOf: new WeakMap(), noTraffic: {} });
}

const { rows: ROWS, rowOf: ROW_OF, noTraffic: NO_TRAFFIC } = rowMemos();

/** Every Service as a table row (memoised per analysis and traffic snapshot); `null` before the first sync. */
export function getServiceRows(scope: ClusterScope): readonly ServiceRow[] | null {
  const analysis = getClusterAnalysis(scope.source);
  if (!analysis) return null;
  const byService = getClusterTraffic(scope)?.byService ?? null;
  let perTraffic = ROWS.get(analysis);
  if (!perTraffic) {
    perTraffic = new WeakMap();
    ROWS.set(analysis, perTraffic);
  }
  const key = byService ?? NO_TRAFFIC;
  let rows = perTraffic.get(key);
  if (!rows) {
    const preparation = prepared(scope.source);
    rows = serviceRows(analysis, byService, preparation.attentionMinSaving, preparation.context);
    perTraffic.set(key, rows);
  }
  return rows;
}

/**
 * What {@link toRow} reads of a Service's traffic figures beyond its report, copied out: a memo
 * that kept the figures object itself kept its volume, and with it the Service's measured matrix
 * of the Prometheus answer the row was built with, for every Service, long after newer answers.
 */
interface RowFigures {
  readonly kind: ServiceTrafficCost['volume']['source']['kind'];
  readonly gbPerMonth: number;
  readonly monthlyCost: number;
  readonly crossZoneFraction: number;
  readonly saving: number;
  readonly bestScenario: ServiceTrafficCost['bestScenario'];
}

function rowFigures(traffic: ServiceTrafficCost | undefined): RowFigures | null {
  if (traffic === undefined) return null;
  const { volume, monthlyCost, crossZoneFraction, saving, bestScenario } = traffic;
  return { kind: volume.source.kind, gbPerMonth: volume.gbPerMonth, monthlyCost, crossZoneFraction, saving, bestScenario };
}

/** Whether traffic figures give the row built with `known` (what {@link toRow} reads of them). */
function sameFigures(known: RowFigures | null, traffic: ServiceTrafficCost | undefined): boolean {
  if (known === null || traffic === undefined) return known === null && traffic === undefined;
  return (
    known.kind === traffic.volume.source.kind &&
    known.gbPerMonth === traffic.volume.gbPerMonth &&
    known.monthlyCost === traffic.monthlyCost &&
    known.crossZoneFraction === traffic.crossZoneFraction &&
    known.saving === traffic.saving &&
    known.bestScenario === traffic.bestScenario
  );
}

/**
 * The rows of an analysis with its traffic figures, and the HPA column read in `context` (the
 * cluster the analysis was computed in; `null`: every HPA state `unknown`). The engine keeps an
 * unchanged Service's report object from one cluster generation to the next while its namespace's
 * workloads and the cluster-wide inputs are unchanged, so after a change only the Services it
 * touched (or whose traffic figures moved) get a new row.
 */
export function serviceRows(
  analysis: ClusterAnalysis,
  byService: ReadonlyMap<string, ServiceTrafficCost> | null,
  minSaving: number = DEFAULT_ATTENTION_MIN_SAVING,
  context: ClusterContext | null = null,
): readonly ServiceRow[] {
  return analysis.services.map((report) => {
    const traffic = byService?.get(`${report.namespace}/${report.name}`);
    const cached = ROW_OF.get(report);
    if (cached !== undefined && sameFigures(cached.figures, traffic) && cached.withContext === (context !== null)) return cached.row;
    const row = toRow(report, traffic, minSaving, context);
    ROW_OF.set(report, { figures: rowFigures(traffic), withContext: context !== null, row });
    return row;
  });
}

/** The zones the rows have endpoints in, sorted, the engine's `UNKNOWN_ZONE` last. */
export function rowZones(rows: readonly ServiceRow[], clusterZones: readonly string[] = []): string[] {
  const zoneSet = new Set<string>(clusterZones);
  for (const row of rows) for (const zone of Object.keys(row.endpointsByZone)) zoneSet.add(zone);
  return [...zoneSet].sort((a, b) => (a === UNKNOWN_ZONE ? 1 : b === UNKNOWN_ZONE ? -1 : a < b ? -1 : a > b ? 1 : 0));
}

/** Six decimals: exact enough for a share, short enough to read (and one rounding only: `formatPercent` shows one decimal of it). */
export function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

const NAMESPACES = new WeakMap<readonly ServiceRow[], readonly string[]>();

/** Namespaces that have Services, sorted (memoised per rows). */
export function serviceNamespaces(rows: readonly ServiceRow[]): readonly string[] {
  let namespaces = NAMESPACES.get(rows);
  if (!namespaces) {
    namespaces = [...new Set(rows.map((row) => row.namespace))].sort();
    NAMESPACES.set(rows, namespaces);
  }
  return namespaces;
}

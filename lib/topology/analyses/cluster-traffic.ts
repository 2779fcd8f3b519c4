/**
 * The cluster's zone traffic: every Service's client zone → endpoint zone fractions (from the
 * traffic model, kept by the cluster pass) times its volume (measured, set or assumed: see
 * traffic-volume.ts), summed into one flow matrix per scenario — now, after the controller's next
 * sync, and each Service at its best available mechanism — with the cross-zone GB and dollars, the
 * saving, where the volumes came from, and the Services that cost or would save most.
 *
 * O(Services × zones²): no Service is analysed again, and Services sharing one matrix (the figures
 * memo hands out the same object) are only read, never copied. Pure: no I/O, no clock.
 */
import type { CrossZonePricing } from '../model/cloud-pricing';
import { crossZoneDollars } from '../model/cloud-pricing';
import type { ValueByZone } from '../upstream/types';
import type { CrossZoneCost } from './traffic';
import { crossZoneCost, MAX_MATRIX_ZONES, OTHER_ZONES, UNKNOWN_ZONE } from './traffic';
import type {
  BestScenario,
  ClusterTrafficReport,
  ClusterTrafficScenario,
  LoadBalancerLegTotals,
  MeasuredTraffic,
  ServiceTrafficCost,
  ServiceVolume,
  TrafficTotals,
  VolumeSettings,
  VolumeSourceKind,
} from './traffic-volume';
import { DEFAULT_GB_PER_ENDPOINT } from './traffic-volume';

type ZoneMatrix = Readonly<ValueByZone<ValueByZone<number>>>;

/** One modelled scenario of a Service's traffic. */
export interface ServiceFlowScenario {
  /** Share of the Service's traffic delivered to an endpoint in another zone (0–1). */
  readonly crossZoneFraction: number;
  /** Fractions of the Service's traffic, client zone → endpoint zone (as `TrafficMatrix.matrix`; dropped traffic is in no cell). */
  readonly matrix: ZoneMatrix;
}

/** What the cluster-wide figures need of one Service (kept by the cluster pass beside its report). */
export interface ServiceFlow {
  readonly namespace: string;
  readonly name: string;
  /** Ready endpoints now (what the per-endpoint assumption multiplies). */
  readonly readyEndpoints: number;
  readonly now: ServiceFlowScenario;
  readonly expected: ServiceFlowScenario;
  readonly ifAuto: ServiceFlowScenario;
  /** Title of the Service's primary (smallest) fix, `null` when none applies. */
  readonly fix: string | null;
  /**
   * The Service's traffic once its primary fix is made (the engine re-run on the fixed state),
   * `null` without a verified fix that turns hints on. Read only for Services with cross-zone
   * traffic now (a cached pass finds fixes when they are first read).
   */
  readonly fixAfter: ServiceFlowScenario | null;
  /**
   * Share of the Service's external (north-south) traffic its load balancer sends across zones
   * (NLB cross-zone load balancing), `null` when there is no such leg or zonescope does not model it.
   */
  readonly loadBalancerCrossZoneFraction: number | null;
}

/** Most Services in each top list of the report. */
export const TOP_SERVICES = 10;

/** Volume settings with the defaults filled in (the platform's price, {@link DEFAULT_GB_PER_ENDPOINT}, no flat volume, nothing set). */
export function defaultVolumeSettings(partial: Partial<VolumeSettings> = {}): VolumeSettings {
  return {
    priceSetting: partial.priceSetting ?? null,
    gbPerEndpoint: partial.gbPerEndpoint ?? DEFAULT_GB_PER_ENDPOINT,
    gbPerService: partial.gbPerService ?? null,
    setByService: partial.setByService ?? new Map(),
  };
}

const FORMATS = [0, 1, 2, 3].map((digits) => new Intl.NumberFormat('en-US', { maximumFractionDigits: digits }));

/** A GB or dollar figure for a sentence: `1,234`, `12.5`, `0.125`. */
export function formatAmount(value: number): string {
  const abs = Math.abs(value);
  const format = FORMATS[abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3] as Intl.NumberFormat;
  return format.format(value);
}

/** Label of a what-if volume given for one request (the Service page's and API's `gbPerMonth`). */
export const WHAT_IF_LABEL = 'set here (what-if)';

/** Assumed volumes by settings and ready endpoints: the same few values for thousands of Services, labelled once. */
const ASSUMED = new WeakMap<VolumeSettings, Map<number, ServiceVolume>>();

/** Entries of one settings' {@link ASSUMED} table before it starts over. */
const ASSUMED_LIMIT = 5_000;

function assumedVolume(settings: VolumeSettings, readyEndpoints: number): ServiceVolume {
  const ready = Math.max(0, readyEndpoints);
  let table = ASSUMED.get(settings);
  if (!table) {
    table = new Map();
    ASSUMED.set(settings, table);
  }
  const key = settings.gbPerService !== null ? -1 : ready;
  let volume = table.get(key);
  if (volume === undefined) {
    volume =
      settings.gbPerService !== null
        ? {
            gbPerMonth: settings.gbPerService,
            source: { kind: 'assumed', label: `assumed: ${formatAmount(settings.gbPerService)} GB per Service per month (flat)`, metric: null, window: null },
            measuredMatrix: null,
          }
        : {
            gbPerMonth: settings.gbPerEndpoint * ready,
            source: { kind: 'assumed', label: `assumed: ${formatAmount(settings.gbPerEndpoint)} GB per ready endpoint per month × ${ready}`, metric: null, window: null },
            measuredMatrix: null,
          };
    if (table.size >= ASSUMED_LIMIT) table.clear();
    table.set(key, volume);
  }
  return volume;
}

/**
 * A Service's volume, first found wins: a what-if for this request, then measured flows, then
 * measured pod bytes, then the volume set for the Service, then the assumption (flat per Service
 * when configured, else per ready endpoint). `key` is `namespace/name`. Assumed volumes are shared
 * objects (read-only).
 */
export function resolveServiceVolume(
  key: string,
  readyEndpoints: number,
  settings: VolumeSettings,
  measured: MeasuredTraffic | null,
  whatIfGbPerMonth: number | null = null,
): ServiceVolume {
  if (whatIfGbPerMonth !== null && Number.isFinite(whatIfGbPerMonth) && whatIfGbPerMonth >= 0) {
    return { gbPerMonth: whatIfGbPerMonth, source: { kind: 'set', label: WHAT_IF_LABEL, metric: null, window: null }, measuredMatrix: null };
  }
  const found = measured?.byService.get(key);
  if (found !== undefined && measured !== null) {
    const flows = found.kind === 'measured-flows';
    return {
      gbPerMonth: found.gbPerMonth,
      source: {
        kind: found.kind,
        label: `measured: ${found.metric}, rate over ${measured.window}${flows ? '' : ' (zone split modelled)'}`,
        metric: found.metric,
        window: measured.window,
      },
      measuredMatrix: flows ? found.matrix : null,
    };
  }
  const set = settings.setByService.size > 0 ? settings.setByService.get(key) : undefined;
  if (set !== undefined) {
    return { gbPerMonth: set, source: { kind: 'set', label: `set: ${formatAmount(set)} GB per month for this Service`, metric: null, window: null }, measuredMatrix: null };
  }
  return assumedVolume(settings, readyEndpoints);
}

/** Σ of a matrix's cells, and of those whose endpoint zone is another known zone than the client's. */
function matrixSums(matrix: ZoneMatrix): { total: number; cross: number } {
  let total = 0;
  let cross = 0;
  for (const client in matrix) {
    const row = matrix[client] as ValueByZone<number>;
    for (const zone in row) {
      const value = row[zone] as number;
      total += value;
      if (zone !== client && zone !== UNKNOWN_ZONE) cross += value;
    }
  }
  return { total, cross };
}

/** Cross-zone share of a measured matrix (GB per month): cross-zone cells over all cells; 0 when empty. */
export function measuredCrossZoneFraction(matrix: ZoneMatrix): number {
  const { total, cross } = matrixSums(matrix);
  return total > 0 ? cross / total : 0;
}

/** Σ of each row of a matrix. */
function rowSum(row: Readonly<ValueByZone<number>> | undefined): number {
  let total = 0;
  if (row) for (const zone in row) total += row[zone] as number;
  return total;
}

/** Whether two fraction matrices are the same up to rounding. */
function sameMatrix(a: ZoneMatrix, b: ZoneMatrix): boolean {
  if (a === b) return true;
  const clients = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const client of clients) {
    const ra = a[client] ?? {};
    const rb = b[client] ?? {};
    for (const zone of new Set([...Object.keys(ra), ...Object.keys(rb)])) if (Math.abs((ra[zone] ?? 0) - (rb[zone] ?? 0)) > 1e-12) return false;
  }
  return true;
}

/**
 * The model's change applied to a measurement: `measured` (client zone → endpoint zone, GB per
 * month) moved by the difference between the model's `after` and `now` fractions. Per client zone
 * the row keeps its measured total R and each cell gets `measured + R × (after/Σafter − now/Σnow)`
 * (the model's row shares, so a zone's client share is the measurement's); cells that would turn
 * negative are cut to 0 and the row is scaled back to R. A model that does not change (`after`
 * equals `now`) returns `measured` itself: a sync that changes nothing changes nothing measured.
 * Rows the model does not have keep their measurement.
 */
export function applyModelChange(measured: ZoneMatrix, now: ZoneMatrix, after: ZoneMatrix): ZoneMatrix {
  if (sameMatrix(now, after)) return measured;
  const out: ValueByZone<ValueByZone<number>> = {};
  for (const client in measured) {
    const row = measured[client] as ValueByZone<number>;
    const total = rowSum(row);
    const nowRow = now[client];
    const afterRow = after[client];
    const nowTotal = rowSum(nowRow);
    const afterTotal = rowSum(afterRow);
    if (total <= 0 || nowRow === undefined || afterRow === undefined || nowTotal <= 0 || afterTotal <= 0) {
      out[client] = row;
      continue;
    }
    const projected: ValueByZone<number> = {};
    let kept = 0;
    for (const zone of new Set([...Object.keys(row), ...Object.keys(nowRow), ...Object.keys(afterRow)])) {
      const value = (row[zone] ?? 0) + total * ((afterRow[zone] ?? 0) / afterTotal - (nowRow[zone] ?? 0) / nowTotal);
      if (value > 0) {
        projected[zone] = value;
        kept += value;
      }
    }
    if (kept > 0 && Math.abs(kept - total) > 1e-9 * total) for (const zone in projected) projected[zone] = ((projected[zone] as number) * total) / kept;
    out[client] = projected;
  }
  return out;
}

/** Cost figures of a per-Service traffic summary (the fields {@link applyVolumeToSummary} reads and writes). */
export interface VolumeCostedSummary {
  readonly crossZoneFraction: number;
  readonly crossZoneFractionExpected: number;
  readonly crossZoneFractionIfAuto: number;
  readonly crossZoneFractionIfNone: number;
  readonly monthlyCost: { readonly now: CrossZoneCost; readonly expected: CrossZoneCost; readonly ifAuto: CrossZoneCost; readonly ifNone: CrossZoneCost };
  readonly volume: ServiceVolume;
}

/** The model's fraction matrices of a Service's scenarios (what {@link scenarioFractions} projects a measurement with). */
export interface ModelScenarios {
  readonly now: ZoneMatrix;
  readonly expected: ZoneMatrix;
  readonly ifAuto: ZoneMatrix;
  readonly ifNone: ZoneMatrix;
}

/**
 * The cross-zone share each scenario is priced at for `volume`: the model's shares, or — when the
 * volume carries a measured matrix — the measurement now and the model's change applied to it for
 * the others ({@link applyModelChange}), so measured and modelled are never mixed.
 */
export function scenarioFractions(
  summary: Pick<VolumeCostedSummary, 'crossZoneFraction' | 'crossZoneFractionExpected' | 'crossZoneFractionIfAuto' | 'crossZoneFractionIfNone'>,
  volume: ServiceVolume,
  model: ModelScenarios | null,
): { readonly now: number; readonly expected: number; readonly ifAuto: number; readonly ifNone: number } {
  const measured = volume.measuredMatrix;
  if (measured === null) return { now: summary.crossZoneFraction, expected: summary.crossZoneFractionExpected, ifAuto: summary.crossZoneFractionIfAuto, ifNone: summary.crossZoneFractionIfNone };
  const now = measuredCrossZoneFraction(measured);
  if (model === null) return { now, expected: now, ifAuto: now, ifNone: now };
  return {
    now,
    expected: measuredCrossZoneFraction(applyModelChange(measured, model.now, model.expected)),
    ifAuto: measuredCrossZoneFraction(applyModelChange(measured, model.now, model.ifAuto)),
    ifNone: measuredCrossZoneFraction(applyModelChange(measured, model.now, model.ifNone)),
  };
}

/**
 * The summary with `volume` in place of its own and every monthly cost recomputed from it (at the
 * shares of {@link scenarioFractions}).
 */
export function applyVolumeToSummary<S extends VolumeCostedSummary>(summary: S, volume: ServiceVolume, pricing: CrossZonePricing, model: ModelScenarios | null): S {
  const gb = volume.gbPerMonth;
  const f = scenarioFractions(summary, volume, model);
  return {
    ...summary,
    volume,
    monthlyCost: {
      now: crossZoneCost(f.now, gb, pricing),
      expected: crossZoneCost(f.expected, gb, pricing),
      ifAuto: crossZoneCost(f.ifAuto, gb, pricing),
      ifNone: crossZoneCost(f.ifNone, gb, pricing),
    },
  };
}

function compareKeys(a: { namespace: string; name: string }, b: { namespace: string; name: string }): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Keeps the `limit` best rows of a stream (descending `value`, then namespace/name) without sorting them all. */
class TopList {
  readonly rows: ServiceTrafficCost[] = [];
  constructor(
    private readonly value: (row: ServiceTrafficCost) => number,
    private readonly limit: number,
  ) {}

  private before(a: ServiceTrafficCost, b: ServiceTrafficCost): boolean {
    const va = this.value(a);
    const vb = this.value(b);
    return va !== vb ? va > vb : compareKeys(a, b) < 0;
  }

  offer(row: ServiceTrafficCost): void {
    const { rows } = this;
    if (rows.length >= this.limit && !this.before(row, rows[rows.length - 1] as ServiceTrafficCost)) return;
    let at = rows.length;
    while (at > 0 && this.before(row, rows[at - 1] as ServiceTrafficCost)) at--;
    rows.splice(at, 0, row);
    if (rows.length > this.limit) rows.pop();
  }
}

/** Zones named by the matrices (rows and columns), without the lumped and unknown columns. */
function collectZones(matrices: Iterable<ZoneMatrix>): { named: Set<string>; other: boolean; unknown: boolean } {
  const named = new Set<string>();
  let other = false;
  let unknown = false;
  for (const matrix of matrices) {
    for (const client in matrix) {
      named.add(client);
      for (const zone in matrix[client]) {
        if (zone === OTHER_ZONES) other = true;
        else if (zone === UNKNOWN_ZONE) unknown = true;
        else named.add(zone);
      }
    }
  }
  return { named, other, unknown };
}

/** Adds `scale ×` each cell of `matrix` into `target`; lumped: columns other than the row's own zone and the unknown zone go to {@link OTHER_ZONES}. */
function addScaled(target: ValueByZone<ValueByZone<number>>, matrix: ZoneMatrix, scale: number, lumped: boolean): void {
  if (scale === 0) return;
  for (const client in matrix) {
    const source = matrix[client] as ValueByZone<number>;
    const row = (target[client] ??= {});
    for (const zone in source) {
      const value = (source[zone] as number) * scale;
      if (value === 0) continue;
      const column = lumped && zone !== client && zone !== UNKNOWN_ZONE ? OTHER_ZONES : zone;
      row[column] = (row[column] ?? 0) + value;
    }
  }
}

/** Which scenario is best for a Service: strictly less cross-zone than every earlier candidate wins (now, expected, if Auto, the fix). */
function bestOf(candidates: readonly (readonly [BestScenario, number | null])[]): BestScenario {
  let scenario: BestScenario = 'now';
  let cross = Number.POSITIVE_INFINITY;
  for (const [name, value] of candidates) {
    if (value === null) continue;
    // "Lower" ignores rounding noise between scenarios computed alike.
    if (cross === Number.POSITIVE_INFINITY || value < cross - 1e-12 * Math.max(1, cross)) {
      scenario = name;
      cross = value;
    }
  }
  return scenario;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The sentences of what the figures rest on, one per source in use (see {@link ClusterTrafficReport.sourceNotes}). */
function sourceNotesOf(volumes: readonly ServiceVolume[], settings: VolumeSettings, measured: MeasuredTraffic | null): string[] {
  const measuredGroups = new Map<string, { kind: VolumeSourceKind; metric: string; window: string; services: number }>();
  let set = 0;
  let whatIf = 0;
  let assumed = 0;
  for (const volume of volumes) {
    const { source } = volume;
    if (source.kind === 'measured-flows' || source.kind === 'measured-pod-bytes') {
      const key = `${source.kind}\u0000${source.metric ?? ''}\u0000${source.window ?? ''}`;
      const group = measuredGroups.get(key);
      if (group) group.services++;
      else measuredGroups.set(key, { kind: source.kind, metric: source.metric ?? 'an unnamed metric', window: source.window ?? '?', services: 1 });
    } else if (source.kind === 'set') {
      if (source.label === WHAT_IF_LABEL) whatIf++;
      else set++;
    } else assumed++;
  }
  const notes: string[] = [];
  const groups = [...measuredGroups.values()].sort((a, b) => (a.kind === b.kind ? (a.metric < b.metric ? -1 : 1) : a.kind === 'measured-flows' ? -1 : 1));
  for (const group of groups) {
    const split = group.kind === 'measured-pod-bytes' ? '; their zone split is the model\u2019s' : '';
    notes.push(`Measured: ${plural(group.services, 'Service')} from ${group.metric} (rate over ${group.window} × 30 days)${split}`);
  }
  if (set > 0) notes.push(`Set: ${plural(set, 'Service')} at the volume set for ${set === 1 ? 'it' : 'each'}`);
  if (whatIf > 0) notes.push(`Set here: ${plural(whatIf, 'Service')} at the what-if volume of this request`);
  if (assumed > 0) {
    const how =
      settings.gbPerService !== null
        ? `${formatAmount(settings.gbPerService)} GB per Service per month (flat) — set ZONESCOPE_GB_PER_SERVICE`
        : `${formatAmount(settings.gbPerEndpoint)} GB per ready endpoint per month — set ZONESCOPE_GB_PER_ENDPOINT`;
    notes.push(`Assumed: ${plural(assumed, 'Service')} at ${how}, or a Service's own volume in ZONESCOPE_TRAFFIC_VOLUMES`);
  }
  if (measured !== null && measured.interZoneGbPerMonth !== null) {
    notes.push(`Measured cluster-wide inter-zone traffic: ${formatAmount(measured.interZoneGbPerMonth)} GB per month (*_network_inter_zone_bytes_total, rate over ${measured.window} × 30 days)`);
  }
  return notes;
}

/**
 * A Service's row of {@link computeClusterTraffic}'s `byService`: its `fix` is read from the flow
 * when asked for (a cached cluster pass finds a Service's fixes only when they are read), so the
 * rows of the many Services no list shows never look for one.
 */
class CostRow implements ServiceTrafficCost {
  readonly #flow: ServiceFlow;
  readonly namespace: string;
  readonly name: string;

  constructor(
    flow: ServiceFlow,
    readonly volume: ServiceVolume,
    readonly crossZoneFraction: number,
    readonly predictedCrossZoneFraction: number,
    readonly crossZoneGbPerMonth: number,
    readonly monthlyCost: number,
    readonly expectedMonthlyCost: number,
    readonly bestMonthlyCost: number,
    readonly bestScenario: BestScenario,
    readonly saving: number,
    readonly fixSaving: number | null,
  ) {
    this.#flow = flow;
    this.namespace = flow.namespace;
    this.name = flow.name;
  }

  get fix(): string | null {
    return this.#flow.fix;
  }
}

/** A row as the report's top lists carry it: plain data, keys in the documented order. */
function plainRow(row: ServiceTrafficCost): ServiceTrafficCost {
  return {
    namespace: row.namespace,
    name: row.name,
    volume: row.volume,
    crossZoneFraction: row.crossZoneFraction,
    predictedCrossZoneFraction: row.predictedCrossZoneFraction,
    crossZoneGbPerMonth: row.crossZoneGbPerMonth,
    monthlyCost: row.monthlyCost,
    expectedMonthlyCost: row.expectedMonthlyCost,
    bestMonthlyCost: row.bestMonthlyCost,
    bestScenario: row.bestScenario,
    saving: row.saving,
    fix: row.fix,
    fixSaving: row.fixSaving,
  };
}

/** `namespace/name` of each flow, kept with it: flows live as long as their cached Service results, and a kept string is hashed once. */
const FLOW_KEYS = new WeakMap<ServiceFlow, string>();

function flowKey(flow: ServiceFlow): string {
  let key = FLOW_KEYS.get(flow);
  if (key === undefined) {
    key = `${flow.namespace}/${flow.name}`;
    FLOW_KEYS.set(flow, key);
  }
  return key;
}

function totalsOf(gb: number, cross: number, pricing: CrossZonePricing): TrafficTotals {
  return { gbPerMonth: gb, crossZoneGbPerMonth: cross, crossZoneFraction: gb > 0 ? cross / gb : 0, monthlyCost: crossZoneDollars(cross, pricing) };
}

/** The zones of the report, sorted: named zones, then {@link OTHER_ZONES}, then {@link UNKNOWN_ZONE}. */
function reportZones(named: ReadonlySet<string>, other: boolean, unknown: boolean): string[] {
  return [...[...named].sort(), ...(other ? [OTHER_ZONES] : []), ...(unknown ? [UNKNOWN_ZONE] : [])];
}

/** A scenario of one Service as the cluster figures add it: a fraction matrix to scale by the volume, or GB already (a measurement, or the model's change applied to one). */
interface ScenarioPart {
  readonly matrix: ZoneMatrix;
  /** What each cell is multiplied by: the volume for fractions, 1 for GB. */
  readonly scale: number;
  /** Cross-zone GB per month. */
  readonly cross: number;
}

/**
 * The cluster-wide traffic figures of `flows` (one per Service, as the cluster pass keeps them)
 * with volumes resolved from `settings` and `measured`, priced at `pricing`: flows per scenario in
 * GB per month (`now` from the measured matrix of Services measured with flows, scaled model
 * fractions otherwise; after the sync and the fixes as the model's change applied to a
 * measurement: {@link applyModelChange}; `best` per Service the lowest cross-zone of now, expected,
 * if Auto and its smallest fix), totals, the saving, the sources and the top Services; `byService`
 * has every Service's row by `namespace/name`.
 */
export function computeClusterTraffic(
  flows: readonly ServiceFlow[],
  settings: VolumeSettings,
  measured: MeasuredTraffic | null,
  pricing: CrossZonePricing,
): { report: ClusterTrafficReport; byService: ReadonlyMap<string, ServiceTrafficCost> } {
  const volumes: ServiceVolume[] = [];

  // 1. Per Service: volume × fractions per scenario. Services share matrix objects (the figures
  //    memo), so the GB each matrix carries is summed first and every distinct matrix added once.
  const weights: Record<ClusterTrafficScenario, Map<ZoneMatrix, number>> = { now: new Map(), expected: new Map(), best: new Map() };
  const weigh = (scenario: ClusterTrafficScenario, part: ScenarioPart) => {
    const map = weights[scenario];
    map.set(part.matrix, (map.get(part.matrix) ?? 0) + part.scale);
  };
  const cross: Record<ClusterTrafficScenario, number> = { now: 0, expected: 0, best: 0 };
  let gbTotal = 0;
  const sources: Record<VolumeSourceKind, { services: number; gbPerMonth: number }> = {
    'measured-flows': { services: 0, gbPerMonth: 0 },
    'measured-pod-bytes': { services: 0, gbPerMonth: 0 },
    set: { services: 0, gbPerMonth: 0 },
    assumed: { services: 0, gbPerMonth: 0 },
  };
  const lb = { services: 0, gbPerMonth: 0, crossZoneGbPerMonth: 0 };
  const byService = new Map<string, ServiceTrafficCost>();
  const topByCost = new TopList((row) => row.monthlyCost, TOP_SERVICES);
  const topBySaving = new TopList((row) => row.saving, TOP_SERVICES);
  for (const flow of flows) {
    const key = flowKey(flow);
    const volume = resolveServiceVolume(key, flow.readyEndpoints, settings, measured);
    volumes.push(volume);
    const gb = volume.gbPerMonth;
    gbTotal += gb;
    const source = sources[volume.source.kind];
    source.services++;
    source.gbPerMonth += gb;

    const measuredMatrix = volume.measuredMatrix;
    const modelled = (scenario: ServiceFlowScenario): ScenarioPart => ({ matrix: scenario.matrix, scale: gb, cross: gb * scenario.crossZoneFraction });
    const inGb = (matrix: ZoneMatrix): ScenarioPart => ({ matrix, scale: 1, cross: matrixSums(matrix).cross });
    const part = (scenario: ServiceFlowScenario): ScenarioPart =>
      measuredMatrix === null ? modelled(scenario) : inGb(applyModelChange(measuredMatrix, flow.now.matrix, scenario.matrix));
    const now: ScenarioPart = measuredMatrix === null ? modelled(flow.now) : inGb(measuredMatrix);
    const expected = part(flow.expected);
    const ifAuto = part(flow.ifAuto);
    // The fix is looked for only where it can save what neither the sync nor Auto already does.
    const fixAfter = Math.min(now.cross, expected.cross, ifAuto.cross) > 1e-9 * Math.max(1, gb) ? flow.fixAfter : null;
    const fix = fixAfter === null ? null : part(fixAfter);
    weigh('now', now);
    weigh('expected', expected);

    const bestScenario = bestOf([
      ['now', now.cross],
      ['expected', expected.cross],
      ['ifAuto', ifAuto.cross],
      ['fix', fix?.cross ?? null],
    ]);
    const best = bestScenario === 'now' ? now : bestScenario === 'expected' ? expected : bestScenario === 'ifAuto' ? ifAuto : (fix as ScenarioPart);
    weigh('best', best);
    cross.now += now.cross;
    cross.expected += expected.cross;
    cross.best += best.cross;

    const monthlyCost = crossZoneDollars(now.cross, pricing);
    const bestMonthlyCost = crossZoneDollars(best.cross, pricing);
    const fixSaving = fix === null ? null : Math.max(0, monthlyCost - crossZoneDollars(fix.cross, pricing));
    const row = new CostRow(
      flow,
      volume,
      measuredMatrix === null ? flow.now.crossZoneFraction : gb > 0 ? now.cross / gb : 0,
      flow.now.crossZoneFraction,
      now.cross,
      monthlyCost,
      crossZoneDollars(expected.cross, pricing),
      bestMonthlyCost,
      bestScenario,
      Math.max(0, monthlyCost - bestMonthlyCost),
      fixSaving,
    );
    byService.set(key, row);
    if (row.monthlyCost > 0) topByCost.offer(row);
    if (row.saving > 0) topBySaving.offer(row);

    // The load balancer's own leg (north-south), apart from the in-cluster figures.
    const external = measured?.byService.get(key)?.externalGbPerMonth ?? 0;
    if (external > 0 && flow.loadBalancerCrossZoneFraction !== null) {
      lb.services++;
      lb.gbPerMonth += external;
      lb.crossZoneGbPerMonth += external * flow.loadBalancerCrossZoneFraction;
    }
  }

  // 2. Zones of the matrices; beyond MAX_MATRIX_ZONES the columns are lumped as a Service's are. Then the sums.
  const zones = collectZones(new Set([...weights.now.keys(), ...weights.expected.keys(), ...weights.best.keys()]));
  const lumped = zones.named.size > MAX_MATRIX_ZONES;
  const matrices: Record<ClusterTrafficScenario, ValueByZone<ValueByZone<number>>> = { now: {}, expected: {}, best: {} };
  for (const scenario of ['now', 'expected', 'best'] as const) for (const [matrix, gb] of weights[scenario]) addScaled(matrices[scenario], matrix, gb, lumped);

  // 3. Totals, saving, sources.
  const totals: Record<ClusterTrafficScenario, TrafficTotals> = {
    now: totalsOf(gbTotal, cross.now, pricing),
    expected: totalsOf(gbTotal, cross.expected, pricing),
    best: totalsOf(gbTotal, cross.best, pricing),
  };
  const loadBalancer: LoadBalancerLegTotals | null = lb.services === 0 ? null : { ...lb, monthlyCost: crossZoneDollars(lb.crossZoneGbPerMonth, pricing) };
  const report: ClusterTrafficReport = {
    pricing,
    priceNote: pricing.note,
    zones: reportZones(zones.named, lumped || zones.other, zones.unknown),
    flows: matrices,
    totals,
    saving: { expected: totals.now.monthlyCost - totals.expected.monthlyCost, best: totals.now.monthlyCost - totals.best.monthlyCost },
    sources,
    sourceNotes: sourceNotesOf(volumes, settings, measured),
    measuredInterZoneGbPerMonth: measured?.interZoneGbPerMonth ?? null,
    reconciliation: measured?.reconciliation ?? null,
    loadBalancer,
    measuredAt: measured?.measuredAt ?? null,
    quality: measured?.quality ?? null,
    topByCost: topByCost.rows.map(plainRow),
    topBySaving: topBySaving.rows.map(plainRow),
    services: flows.length,
  };
  return { report, byService };
}

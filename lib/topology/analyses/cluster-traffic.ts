/**
 * The cluster's zone traffic: every Service's client zone → endpoint zone fractions (from the
 * traffic model, kept by the cluster pass) times its volume (measured, set or assumed:
 * service-volume.ts), summed into one flow matrix per scenario — now, after the controller's next
 * sync, and each Service at its best available mechanism — with the cross-zone GB and dollars, the
 * saving, where the volumes came from, and the Services that cost or would save most.
 *
 * O(Services × zones²): no Service is analysed again, and Services sharing one matrix (the figures
 * memo hands out the same object) are only read, never copied. Pure: no I/O, no clock.
 */
import type { CrossZonePricing } from '../model/cloud-pricing';
import { crossZoneDollars } from '../model/cloud-pricing';
import type { ValueByZone } from '../upstream/types';
import type { ZoneMatrix } from './measured-projection';
import { flatString } from '../model/flat-string';
import { memoOnObject } from '../model/object-memo';
import { applyModelChange } from './measured-projection';
import { formatAmount, resolveServiceVolume, WHAT_IF_LABEL } from './service-volume';
import { matrixSums, MAX_MATRIX_ZONES, OTHER_ZONES, UNKNOWN_ZONE } from './traffic';
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
  /** `namespace/name`, when the flow carries it (the cluster pass's flows do; others get it built once). */
  readonly key?: string;
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

const MATRIX_KEYS = new WeakMap<ZoneMatrix, string>();

const KEY_NUMBER = new Float64Array(1);
const KEY_UNITS = new Uint16Array(KEY_NUMBER.buffer);

/**
 * A matrix's content as text, once per matrix object: rows and cells in their order, each value
 * as the four 16-bit units of its bits (a cluster pass keys ~10,000 matrices; writing each double
 * in decimal, as JSON does, took three times as long). Equal for equal content as JSON text was:
 * `-0` is written as `0`, and every non-finite value alike (JSON's `null`). Zone names hold no
 * control character, and a value is a marker, followed by four units when finite, so different
 * contents never give one text.
 */
function matrixKey(matrix: ZoneMatrix): string {
  return memoOnObject(MATRIX_KEYS, matrix, (m) => {
    let key = '';
    for (const client in m) {
      key += `${client}\u0001`;
      const row = m[client] as Readonly<ValueByZone<number>>;
      for (const zone in row) {
        const value = row[zone] as number;
        if (!Number.isFinite(value)) {
          key += `${zone}\u0002\u0005`;
          continue;
        }
        KEY_NUMBER[0] = value === 0 ? 0 : value;
        key += `${zone}\u0002\u0004${String.fromCharCode(KEY_UNITS[0] as number, KEY_UNITS[1] as number, KEY_UNITS[2] as number, KEY_UNITS[3] as number)}`;
      }
      key += '\u0003';
    }
    // Kept with the matrix: laid out in one piece (model/flat-string.ts).
    return flatString(key);
  });
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

/** The numbers of every row of one {@link computeClusterTraffic}, row after row (see {@link CostRow}). */
class RowColumns {
  /** Per row, {@link ROW_NUMBERS} numbers at the places {@link AT} names. */
  readonly values: Float64Array;
  /** Per row: 1 when it has a fix saving. */
  readonly hasFixSaving: Uint8Array;

  constructor(rows: number) {
    this.values = new Float64Array(rows * ROW_NUMBERS);
    this.hasFixSaving = new Uint8Array(rows);
  }
}

/** Where each number of a row sits among its {@link ROW_NUMBERS}: the writer and the getters read this one map. */
const AT = { crossZoneFraction: 0, predictedCrossZoneFraction: 1, crossZoneGbPerMonth: 2, monthlyCost: 3, expectedMonthlyCost: 4, bestMonthlyCost: 5, saving: 6, fixSaving: 7 } as const;
const ROW_NUMBERS = 8;

/**
 * A Service's row of {@link computeClusterTraffic}'s `byService`: its `fix` is read from the flow
 * when asked for (a cached cluster pass finds a Service's fixes only when they are read), so the
 * rows of the many Services no list shows never look for one. Its numbers live in the pass's
 * {@link RowColumns}: as fields, each would be a number object of its own (~70,000 per pass at
 * realistic L, copied by every young-generation collection while the pass runs).
 */
class CostRow implements ServiceTrafficCost {
  readonly #flow: ServiceFlow;
  readonly #columns: RowColumns;
  readonly #row: number;
  readonly namespace: string;
  readonly name: string;

  constructor(
    flow: ServiceFlow,
    readonly volume: ServiceVolume,
    columns: RowColumns,
    row: number,
    readonly bestScenario: BestScenario,
  ) {
    this.#flow = flow;
    this.#columns = columns;
    this.#row = row;
    this.namespace = flow.namespace;
    this.name = flow.name;
  }

  get crossZoneFraction(): number {
    return this.#number(AT.crossZoneFraction);
  }

  get predictedCrossZoneFraction(): number {
    return this.#number(AT.predictedCrossZoneFraction);
  }

  get crossZoneGbPerMonth(): number {
    return this.#number(AT.crossZoneGbPerMonth);
  }

  get monthlyCost(): number {
    return this.#number(AT.monthlyCost);
  }

  get expectedMonthlyCost(): number {
    return this.#number(AT.expectedMonthlyCost);
  }

  get bestMonthlyCost(): number {
    return this.#number(AT.bestMonthlyCost);
  }

  get saving(): number {
    return this.#number(AT.saving);
  }

  get fixSaving(): number | null {
    return this.#columns.hasFixSaving[this.#row] === 1 ? this.#number(AT.fixSaving) : null;
  }

  /** The row's `k`-th number (see {@link RowColumns.values}). */
  #number(k: number): number {
    return this.#columns.values[this.#row * ROW_NUMBERS + k] as number;
  }

  get fix(): string | null {
    return this.#flow.fix;
  }

  /** The row as plain data (its numbers are getters, which `JSON.stringify` would not write). */
  toJSON(): ServiceTrafficCost {
    return plainRow(this);
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
  if (flow.key !== undefined) return flow.key;
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

/** A modelled scenario as fractions scaled by the Service's volume. */
function modelledPart(scenario: ServiceFlowScenario, gb: number): ScenarioPart {
  return { matrix: scenario.matrix, scale: gb, cross: gb * scenario.crossZoneFraction };
}

const IN_GB = new WeakMap<ZoneMatrix, ScenarioPart>();

/** A matrix already in GB (one part per matrix object: only read, so it can be shared). */
function inGb(matrix: ZoneMatrix): ScenarioPart {
  return memoOnObject(IN_GB, matrix, (m) => ({ matrix: m, scale: 1, cross: matrixSums(m).cross }));
}

/**
 * The model's change applied to a measurement, as a part, by the three matrix objects. A
 * measurement's matrices and the model's figures are the same objects from one request to the
 * next (a what-if recomputes this block for every request, and ~10,000 measured Services each
 * have three such projections): the projection and its sums are made once.
 */
const PROJECTED = new WeakMap<ZoneMatrix, WeakMap<ZoneMatrix, WeakMap<ZoneMatrix, ScenarioPart>>>();

function projectedPart(measured: ZoneMatrix, now: ZoneMatrix, after: ZoneMatrix): ScenarioPart {
  const byNow = memoOnObject(PROJECTED, measured, () => new WeakMap<ZoneMatrix, WeakMap<ZoneMatrix, ScenarioPart>>());
  const byAfter = memoOnObject(byNow, now, () => new WeakMap<ZoneMatrix, ScenarioPart>());
  return memoOnObject(byAfter, after, (matrix) => inGb(applyModelChange(measured, now, matrix)));
}

/** A scenario other than now: modelled, or with a measurement the model's change applied to it. */
function scenarioPart(scenario: ServiceFlowScenario, gb: number, measuredMatrix: ZoneMatrix | null, nowMatrix: ZoneMatrix): ScenarioPart {
  return measuredMatrix === null ? modelledPart(scenario, gb) : projectedPart(measuredMatrix, nowMatrix, scenario.matrix);
}

/** Whether `value` beats the best cross-zone so far: strictly less, ignoring rounding noise between scenarios computed alike (anything beats none yet). */
function beats(value: number, cross: number): boolean {
  return cross === Number.POSITIVE_INFINITY || value < cross - 1e-12 * Math.max(1, cross);
}

/** Which scenario is best for a Service: strictly less cross-zone than every earlier candidate wins (now, expected, if Auto, the fix when there is one). */
function bestOf(now: ScenarioPart, expected: ScenarioPart, ifAuto: ScenarioPart, fix: ScenarioPart | null): BestScenario {
  let scenario: BestScenario = 'now';
  let cross = now.cross;
  if (beats(expected.cross, cross)) {
    scenario = 'expected';
    cross = expected.cross;
  }
  if (beats(ifAuto.cross, cross)) {
    scenario = 'ifAuto';
    cross = ifAuto.cross;
  }
  if (fix !== null && beats(fix.cross, cross)) scenario = 'fix';
  return scenario;
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

  // 1. Per Service: volume × fractions per scenario. Many Services have equal matrices, so the GB
  //    each distinct matrix carries is summed first and every distinct matrix added once. Distinct
  //    by content, not by object: which Services share a figures object depends on the memos'
  //    history (a dashboard pass, the analyze command and an incremental pass fill them in
  //    different orders), and the sums must not (the last digits of `flows` did differ).
  type Weight = { readonly matrix: ZoneMatrix; gb: number };
  const weights: Record<ClusterTrafficScenario, Map<string, Weight>> = { now: new Map(), expected: new Map(), best: new Map() };
  // Each matrix object's entry, found by identity first: most flows share their scenarios' objects.
  const byObject: Record<ClusterTrafficScenario, Map<ZoneMatrix, Weight>> = { now: new Map(), expected: new Map(), best: new Map() };
  const weigh = (scenario: ClusterTrafficScenario, part: ScenarioPart) => {
    const objects = byObject[scenario];
    let known = objects.get(part.matrix);
    if (known === undefined) {
      const map = weights[scenario];
      const key = matrixKey(part.matrix);
      known = map.get(key);
      if (known === undefined) {
        known = { matrix: part.matrix, gb: 0 };
        map.set(key, known);
      }
      objects.set(part.matrix, known);
    }
    known.gb += part.scale;
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
  const columns = new RowColumns(flows.length);
  const values = columns.values;
  let rows = 0;
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
    const now: ScenarioPart = measuredMatrix === null ? modelledPart(flow.now, gb) : inGb(measuredMatrix);
    const expected = scenarioPart(flow.expected, gb, measuredMatrix, flow.now.matrix);
    const ifAuto = scenarioPart(flow.ifAuto, gb, measuredMatrix, flow.now.matrix);
    // The fix is looked for only where it can save what neither the sync nor Auto already does.
    const fixAfter = Math.min(now.cross, expected.cross, ifAuto.cross) > 1e-9 * Math.max(1, gb) ? flow.fixAfter : null;
    const fix = fixAfter === null ? null : scenarioPart(fixAfter, gb, measuredMatrix, flow.now.matrix);
    weigh('now', now);
    weigh('expected', expected);

    const bestScenario = bestOf(now, expected, ifAuto, fix);
    const best = bestScenario === 'now' ? now : bestScenario === 'expected' ? expected : bestScenario === 'ifAuto' ? ifAuto : (fix as ScenarioPart);
    weigh('best', best);
    cross.now += now.cross;
    cross.expected += expected.cross;
    cross.best += best.cross;

    const monthlyCost = crossZoneDollars(now.cross, pricing);
    const bestMonthlyCost = crossZoneDollars(best.cross, pricing);
    const fixSaving = fix === null ? null : Math.max(0, monthlyCost - crossZoneDollars(fix.cross, pricing));
    const at = rows * ROW_NUMBERS;
    values[at + AT.crossZoneFraction] = measuredMatrix === null ? flow.now.crossZoneFraction : gb > 0 ? now.cross / gb : 0;
    values[at + AT.predictedCrossZoneFraction] = flow.now.crossZoneFraction;
    values[at + AT.crossZoneGbPerMonth] = now.cross;
    values[at + AT.monthlyCost] = monthlyCost;
    values[at + AT.expectedMonthlyCost] = crossZoneDollars(expected.cross, pricing);
    values[at + AT.bestMonthlyCost] = bestMonthlyCost;
    values[at + AT.saving] = Math.max(0, monthlyCost - bestMonthlyCost);
    if (fixSaving !== null) {
      values[at + AT.fixSaving] = fixSaving;
      columns.hasFixSaving[rows] = 1;
    }
    const row = new CostRow(flow, volume, columns, rows++, bestScenario);
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
  const zones = collectZones([...weights.now.values(), ...weights.expected.values(), ...weights.best.values()].map((weight) => weight.matrix));
  const lumped = zones.named.size > MAX_MATRIX_ZONES;
  const matrices: Record<ClusterTrafficScenario, ValueByZone<ValueByZone<number>>> = { now: {}, expected: {}, best: {} };
  for (const scenario of ['now', 'expected', 'best'] as const) for (const { matrix, gb } of weights[scenario].values()) addScaled(matrices[scenario], matrix, gb, lumped);

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

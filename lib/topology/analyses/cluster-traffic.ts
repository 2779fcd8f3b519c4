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

/**
 * The `limit` best rows of a stream (descending value, then namespace/name), kept without sorting
 * them all; rows by position, each row's value the number at `column` of its {@link ROW_NUMBERS}
 * in `values`.
 *
 * A plain record with module functions, not a class, like {@link ContentWeights}: the instances
 * of a class made and dropped by every computation lose their hidden classes after a few
 * full collections (V8 keeps the maps of a constructor's fields only while an instance lives), and
 * the optimised code of the functions that read them is then thrown away — each pass after a Node
 * change ran part of this block unoptimised again. A literal's hidden class lives as long as the code
 * that makes it.
 */
interface TopList {
  readonly rows: number[];
  readonly values: Float64Array;
  readonly column: number;
  readonly names: readonly { readonly namespace: string; readonly name: string }[];
  readonly limit: number;
}

function topList(values: Float64Array, column: number, names: TopList['names'], limit: number): TopList {
  return { rows: [], values, column, names, limit };
}

/** Whether row `a` comes before row `b` in `top`. */
function topBefore(top: TopList, a: number, b: number): boolean {
  const va = top.values[a * ROW_NUMBERS + top.column] as number;
  const vb = top.values[b * ROW_NUMBERS + top.column] as number;
  return va !== vb ? va > vb : compareKeys(top.names[a] as { namespace: string; name: string }, top.names[b] as { namespace: string; name: string }) < 0;
}

/** Offers `row` to `top`: kept when it is among the best so far. */
function offerRow(top: TopList, row: number): void {
  const { rows } = top;
  if (rows.length >= top.limit && !topBefore(top, row, rows[rows.length - 1] as number)) return;
  let at = rows.length;
  while (at > 0 && topBefore(top, row, rows[at - 1] as number)) at--;
  rows.splice(at, 0, row);
  if (rows.length > top.limit) rows.pop();
}

/** Zones named by the matrices of a sum (rows and columns), without the lumped and unknown columns, and whether those two appear. */
interface NamedZones {
  readonly named: Set<string>;
  other: boolean;
  unknown: boolean;
}

/** Notes a column name of a matrix in `zones`. */
function noteColumn(zones: NamedZones, zone: string): void {
  if (zone === OTHER_ZONES) zones.other = true;
  else if (zone === UNKNOWN_ZONE) zones.unknown = true;
  else zones.named.add(zone);
}

/** Notes every zone `matrix` names (rows and columns, zero cells included) in `zones`. */
function noteZones(zones: NamedZones, matrix: ZoneMatrix): void {
  for (const client in matrix) {
    zones.named.add(client);
    for (const zone in matrix[client]) noteColumn(zones, zone);
  }
}

const HASH_NUMBER = new Float64Array(1);
const HASH_WORDS = new Uint32Array(HASH_NUMBER.buffer);

/** One step of {@link contentHash} (FNV-1a over 32-bit words). */
function mix(hash: number, word: number): number {
  return Math.imul(hash ^ word, 0x01000193) >>> 0;
}

/** One step of {@link contentHash} for a zone name: its own hash (kept per name: a cluster has few), as one word. */
function mixText(hash: number, text: string): number {
  let word = TEXT_WORDS.get(text);
  if (word === undefined) {
    word = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) word = mix(word, text.charCodeAt(i));
    if (TEXT_WORDS.size >= 4_096) TEXT_WORDS.clear();
    TEXT_WORDS.set(text, word);
  }
  return mix(hash, word);
}

/** {@link mixText}'s words by zone name. */
const TEXT_WORDS = new Map<string, number>();

/**
 * The content hashes of the matrices of one list of flows, by matrix object (see
 * {@link contentHash}), kept with the list: every what-if over one pass's flows meets the same
 * objects. Kept per list, not in one table of every matrix ever hashed: a pass after a Node change
 * brings ~5,000 new matrices, and a weak table holding the dead ones of earlier passes until a
 * collection cost ~13 ms a pass to grow and search.
 */
const HASHES_BY_FLOWS = new WeakMap<readonly ServiceFlow[], Map<ZoneMatrix, number>>();

/**
 * A 30-bit hash of a matrix's content as {@link sameContent} compares it: rows and cells in their
 * order, zone names and each value's bits (`-0` as `0`, every non-finite value alike). A cluster
 * pass meets ~5,000 new matrices; a text key for each (the values' bits as characters) cost ~8 MB
 * of strings a pass.
 */
function contentHash(matrix: ZoneMatrix): number {
  let h = 0x811c9dc5;
  for (const client in matrix) {
    h = mix(mixText(h, client), 1);
    const row = matrix[client] as Readonly<ValueByZone<number>>;
    for (const zone in row) {
      h = mix(mixText(h, zone), 2);
      const value = row[zone] as number;
      if (!Number.isFinite(value)) {
        h = mix(h, 5);
        continue;
      }
      HASH_NUMBER[0] = value === 0 ? 0 : value;
      h = mix(mix(h, HASH_WORDS[0] as number), HASH_WORDS[1] as number);
    }
    h = mix(h, 3);
  }
  // Kept to 30 bits: a small integer, which maps store as it is (a wider one is a number object).
  return h & 0x3fffffff;
}

/**
 * Keys of the second object of a comparison, in their order (scratch lists reused by every
 * comparison: a pass compares a few thousand matrices whose contents are equal, and a key list
 * made for each was garbage at once).
 */
const CLIENTS_B: string[] = [];
const ZONES_B: string[] = [];

/** `object`'s keys in their order into `into`, how many. */
function keysInto(object: object, into: string[]): number {
  let n = 0;
  for (const key in object) into[n++] = key;
  return n;
}

/** Whether two rows hold the same zones in the same order with the same values (`-0` as `0`, every non-finite value alike). */
function sameRow(a: Readonly<ValueByZone<number>>, b: Readonly<ValueByZone<number>>): boolean {
  const count = keysInto(b, ZONES_B);
  let i = 0;
  for (const zone in a) {
    if (i >= count || zone !== ZONES_B[i]) return false;
    i++;
    const x = a[zone] as number;
    const y = b[zone] as number;
    if (x !== y && (Number.isFinite(x) || Number.isFinite(y))) return false;
  }
  return i === count;
}

/** Whether two matrices have the same content: the same rows in the same order, each {@link sameRow}. */
function sameContent(a: ZoneMatrix, b: ZoneMatrix): boolean {
  if (a === b) return true;
  const count = keysInto(b, CLIENTS_B);
  let i = 0;
  for (const client in a) {
    if (i >= count || client !== CLIENTS_B[i]) return false;
    i++;
    if (!sameRow(a[client] as Readonly<ValueByZone<number>>, b[client] as Readonly<ValueByZone<number>>)) return false;
  }
  return i === count;
}

/**
 * The GB each distinct matrix content carries in one scenario, in the order each content first
 * comes (the order the sums add them in), found by {@link contentHash} and {@link sameContent}.
 * A record with a module function (see {@link TopList} for why not a class).
 */
interface ContentWeights {
  /** The weight of each hash, or (when contents of different hashes meet) the list of them. */
  readonly byHash: Map<number, Weight | Weight[]>;
  /** Content hashes by matrix object, shared by the scenarios of one computation (see {@link HASHES_BY_FLOWS}). */
  readonly hashes: Map<ZoneMatrix, number>;
  readonly ordered: Weight[];
}

function contentWeights(hashes: Map<ZoneMatrix, number>): ContentWeights {
  return { byHash: new Map(), hashes, ordered: [] };
}

/** The entry of `matrix`'s content in `weights`, made on first meeting. */
function weightOf(weights: ContentWeights, matrix: ZoneMatrix): Weight {
  let hash = weights.hashes.get(matrix);
  if (hash === undefined) {
    hash = contentHash(matrix);
    weights.hashes.set(matrix, hash);
  }
  // Most hashes meet one content: a bucket is a list only once a second content shares its hash.
  const bucket = weights.byHash.get(hash);
  if (bucket !== undefined) {
    if (!Array.isArray(bucket)) {
      if (sameContent(bucket.matrix, matrix)) return bucket;
    } else for (let i = 0; i < bucket.length; i++) if (sameContent((bucket[i] as Weight).matrix, matrix)) return bucket[i] as Weight;
  }
  const weight: Weight = { matrix, gb: 0 };
  if (bucket === undefined) weights.byHash.set(hash, weight);
  else if (Array.isArray(bucket)) bucket.push(weight);
  else weights.byHash.set(hash, [bucket, weight]);
  weights.ordered.push(weight);
  return weight;
}

/** A distinct matrix content of a scenario and the GB it carries. */
interface Weight {
  readonly matrix: ZoneMatrix;
  gb: number;
}

/**
 * A scenario's sum while it is added up: client rows in the order they first come, each with its
 * columns in the order they first come and their sums in a plain array of numbers. A record keyed
 * by zone made a number object for every cell added (~100,000 a pass at realistic L); the record
 * is made once, at the end ({@link sumRecord}), with the same keys in the same order.
 */
interface ScenarioSum {
  readonly clients: string[];
  readonly rows: SumRow[];
  readonly rowOf: Map<string, SumRow>;
}

interface SumRow {
  readonly columns: string[];
  readonly at: Map<string, number>;
  readonly values: number[];
}

function scenarioSum(): ScenarioSum {
  return { clients: [], rows: [], rowOf: new Map() };
}

function sumRowOf(sum: ScenarioSum, client: string): SumRow {
  let row = sum.rowOf.get(client);
  if (row === undefined) {
    row = { columns: [], at: new Map(), values: [] };
    sum.rowOf.set(client, row);
    sum.clients.push(client);
    sum.rows.push(row);
  }
  return row;
}

/**
 * Adds `scale ×` each cell of `matrix` into `target`; lumped: columns other than the row's own zone
 * and the unknown zone go to {@link OTHER_ZONES}. With `zones` (not lumped: columns are then the
 * matrix's own), notes every zone the matrix names as it goes — a column when it first comes into
 * its target row or adds nothing, so the matrices are read once for both.
 */
function addScaled(target: ScenarioSum, matrix: ZoneMatrix, scale: number, lumped: boolean, zones: NamedZones | null): void {
  if (scale === 0) {
    if (zones !== null) noteZones(zones, matrix);
    return;
  }
  for (const client in matrix) {
    const source = matrix[client] as ValueByZone<number>;
    const row = sumRowOf(target, client);
    if (zones !== null) zones.named.add(client);
    for (const zone in source) {
      const value = (source[zone] as number) * scale;
      if (value === 0) {
        if (zones !== null) noteColumn(zones, zone);
        continue;
      }
      const column = lumped && zone !== client && zone !== UNKNOWN_ZONE ? OTHER_ZONES : zone;
      const at = row.at.get(column);
      if (at === undefined) {
        if (zones !== null) noteColumn(zones, zone);
        row.at.set(column, row.values.length);
        row.columns.push(column);
        // `(known ?? 0) + value` of a record: the first value is added to 0 as well.
        row.values.push(0 + value);
      } else row.values[at] = (row.values[at] as number) + value;
    }
  }
}

/** A {@link ScenarioSum} as the matrix record it stands for (keys made in the order they first came). */
function sumRecord(sum: ScenarioSum): ValueByZone<ValueByZone<number>> {
  const matrix: ValueByZone<ValueByZone<number>> = {};
  for (let r = 0; r < sum.rows.length; r++) {
    const { columns, values } = sum.rows[r] as SumRow;
    const row: ValueByZone<number> = {};
    for (let c = 0; c < columns.length; c++) row[columns[c] as string] = values[c] as number;
    matrix[sum.clients[r] as string] = row;
  }
  return matrix;
}

/** Each scenario's distinct matrices added up at the GB they carry (see {@link addScaled}). */
function scenarioSums(weights: Readonly<Record<ClusterTrafficScenario, ContentWeights>>, lumped: boolean, zones: NamedZones | null): Record<ClusterTrafficScenario, ValueByZone<ValueByZone<number>>> {
  const sums: Record<ClusterTrafficScenario, ScenarioSum> = { now: scenarioSum(), expected: scenarioSum(), best: scenarioSum() };
  for (const scenario of ['now', 'expected', 'best'] as const) {
    const { ordered } = weights[scenario];
    for (let i = 0; i < ordered.length; i++) {
      const { matrix, gb } = ordered[i] as Weight;
      addScaled(sums[scenario], matrix, gb, lumped, zones);
    }
  }
  return { now: sumRecord(sums.now), expected: sumRecord(sums.expected), best: sumRecord(sums.best) };
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
  // Indexed: once a pass over ~10,000 volumes, mostly before the JIT has optimised it.
  for (let i = 0; i < volumes.length; i++) {
    const { source } = volumes[i] as ServiceVolume;
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
  /** Per row: its best scenario, as its place in {@link BEST_SCENARIOS}. */
  readonly best: Uint8Array;

  constructor(rows: number) {
    this.values = new Float64Array(rows * ROW_NUMBERS);
    this.hasFixSaving = new Uint8Array(rows);
    this.best = new Uint8Array(rows);
  }
}

const BEST_SCENARIOS: readonly BestScenario[] = ['now', 'expected', 'ifAuto', 'fix'];

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
  ) {
    this.#flow = flow;
    this.#columns = columns;
    this.#row = row;
    this.namespace = flow.namespace;
    this.name = flow.name;
  }

  get bestScenario(): BestScenario {
    return BEST_SCENARIOS[this.#columns.best[this.#row] as number] as BestScenario;
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

/**
 * Row positions by `namespace/name` of the last {@link computeClusterTraffic}, with its keys in
 * order: the next one over the same Services (a pass after a Node change, a what-if) finds them
 * here instead of filling a map of ~10,000 keys again.
 */
let lastIndex: { readonly keys: readonly string[]; readonly index: ReadonlyMap<string, number> } | null = null;

/** Positions by key of `keys` (the last key wins, as `Map.set` would), the last computation's when they are the same keys in the same order. */
function rowIndex(keys: readonly string[]): ReadonlyMap<string, number> {
  const last = lastIndex;
  if (last !== null && last.keys.length === keys.length) {
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (last.keys[i] !== keys[i]) {
        same = false;
        break;
      }
    }
    if (same) return last.index;
  }
  const index = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) index.set(keys[i] as string, i);
  lastIndex = { keys, index };
  return index;
}

/**
 * {@link computeClusterTraffic}'s `byService`: every Service's row by `namespace/name`, each row
 * made when first read (most are never read: the lists show a few, the attention list asks for
 * those it names) and then kept, so a row read twice is the same object.
 */
class CostRows implements ReadonlyMap<string, ServiceTrafficCost> {
  readonly #index: ReadonlyMap<string, number>;
  readonly #flows: readonly ServiceFlow[];
  readonly #volumes: readonly ServiceVolume[];
  readonly #columns: RowColumns;
  readonly #made: (CostRow | undefined)[];

  constructor(index: ReadonlyMap<string, number>, flows: readonly ServiceFlow[], volumes: readonly ServiceVolume[], columns: RowColumns) {
    this.#index = index;
    this.#flows = flows;
    this.#volumes = volumes;
    this.#columns = columns;
    this.#made = new Array<CostRow | undefined>(flows.length);
  }

  /** The row at `at` (a position of the flows). */
  at(at: number): CostRow {
    let row = this.#made[at];
    if (row === undefined) {
      row = new CostRow(this.#flows[at] as ServiceFlow, this.#volumes[at] as ServiceVolume, this.#columns, at);
      this.#made[at] = row;
    }
    return row;
  }

  get size(): number {
    return this.#index.size;
  }

  get(key: string): ServiceTrafficCost | undefined {
    const at = this.#index.get(key);
    return at === undefined ? undefined : this.at(at);
  }

  has(key: string): boolean {
    return this.#index.has(key);
  }

  forEach(callback: (value: ServiceTrafficCost, key: string, map: ReadonlyMap<string, ServiceTrafficCost>) => void, thisArg?: unknown): void {
    for (const [key, at] of this.#index) callback.call(thisArg, this.at(at), key, this);
  }

  *entries(): MapIterator<[string, ServiceTrafficCost]> {
    for (const [key, at] of this.#index) yield [key, this.at(at)];
  }

  keys(): MapIterator<string> {
    return this.#index.keys();
  }

  *values(): MapIterator<ServiceTrafficCost> {
    for (const at of this.#index.values()) yield this.at(at);
  }

  [Symbol.iterator](): MapIterator<[string, ServiceTrafficCost]> {
    return this.entries();
  }

  /**
   * The rows whose saving is at least `min` and above 0, in the map's order: the others are
   * tested on their column and never made (the attention list looks for the few worth listing).
   */
  savingAtLeast(min: number): [string, ServiceTrafficCost][] {
    const scan: SavingScan = { values: this.#columns.values, min, rows: this, found: [] };
    // forEach, not for…of: the map's ~10,000 entries are read without an entry array each; with a
    // module function, whose optimised code stays from one pass to the next (a closure's goes with it).
    this.#index.forEach(collectSaving, scan);
    return scan.found;
  }
}

/** What {@link collectSaving} reads and fills. */
interface SavingScan {
  readonly values: Float64Array;
  readonly min: number;
  readonly rows: CostRows;
  readonly found: [string, ServiceTrafficCost][];
}

function collectSaving(this: SavingScan, at: number, key: string): void {
  const saving = this.values[at * ROW_NUMBERS + AT.saving] as number;
  if (saving >= this.min && saving > 0) this.found.push([key, this.rows.at(at)]);
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

/** A {@link ScenarioPart} whose fields the loop sets for each Service: modelled parts live for one Service only, so four are reused rather than made for every Service. */
type PartScratch = { -readonly [K in keyof ScenarioPart]: ScenarioPart[K] };

function scratchPart(): PartScratch {
  return { matrix: NO_MATRIX, scale: 0, cross: 0 };
}

const NO_MATRIX: ZoneMatrix = Object.freeze({});

/** A modelled scenario as fractions scaled by the Service's volume, in `into`. */
function modelledPart(into: PartScratch, scenario: ServiceFlowScenario, gb: number): ScenarioPart {
  into.matrix = scenario.matrix;
  into.scale = gb;
  into.cross = gb * scenario.crossZoneFraction;
  return into;
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
function scenarioPart(into: PartScratch, scenario: ServiceFlowScenario, gb: number, measuredMatrix: ZoneMatrix | null, nowMatrix: ZoneMatrix): ScenarioPart {
  return measuredMatrix === null ? modelledPart(into, scenario, gb) : projectedPart(measuredMatrix, nowMatrix, scenario.matrix);
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

/** A matrix object's entries of the three sums (see {@link computeClusterTraffic}). */
interface Slot {
  now: Weight | undefined;
  expected: Weight | undefined;
  best: Weight | undefined;
}

/** `matrix`'s slot in `slots`, made on first meeting. (Module functions, not closures of the computation: see {@link TopList}.) */
function slotOf(slots: Map<ZoneMatrix, Slot>, matrix: ZoneMatrix): Slot {
  let slot = slots.get(matrix);
  if (slot === undefined) {
    slot = { now: undefined, expected: undefined, best: undefined };
    slots.set(matrix, slot);
  }
  return slot;
}

/** Adds `part`'s GB to its matrix's entry of `scenario`, found through `slot`. */
function weigh(weights: Readonly<Record<ClusterTrafficScenario, ContentWeights>>, slot: Slot, scenario: ClusterTrafficScenario, part: ScenarioPart): void {
  let known = slot[scenario];
  if (known === undefined) {
    known = weightOf(weights[scenario], part.matrix);
    slot[scenario] = known;
  }
  known.gb += part.scale;
}

/** What {@link computeClusterTraffic} adds up flow by flow (see {@link addFlow}). */
interface FlowSums {
  readonly settings: VolumeSettings;
  readonly measured: MeasuredTraffic | null;
  readonly pricing: CrossZonePricing;
  readonly keys: string[];
  readonly volumes: ServiceVolume[];
  readonly weights: Record<ClusterTrafficScenario, ContentWeights>;
  readonly slots: Map<ZoneMatrix, Slot>;
  readonly cross: Record<ClusterTrafficScenario, number>;
  gbTotal: number;
  readonly sources: Record<VolumeSourceKind, { services: number; gbPerMonth: number }>;
  readonly lb: { services: number; gbPerMonth: number; crossZoneGbPerMonth: number };
  readonly columns: RowColumns;
  rows: number;
  readonly topByCost: TopList;
  readonly topBySaving: TopList;
  readonly scratch: Record<'now' | 'expected' | 'ifAuto' | 'fix', PartScratch>;
}

/** One flow's row and its share of the sums (step 1 of {@link computeClusterTraffic}). */
function addFlow(run: FlowSums, flow: ServiceFlow): void {
  const { measured, pricing, scratch, weights, slots } = run;
  const key = flowKey(flow);
  run.keys.push(key);
  const volume = resolveServiceVolume(key, flow.readyEndpoints, run.settings, measured);
  run.volumes.push(volume);
  const gb = volume.gbPerMonth;
  run.gbTotal += gb;
  const source = run.sources[volume.source.kind];
  source.services++;
  source.gbPerMonth += gb;

  const measuredMatrix = volume.measuredMatrix;
  const now: ScenarioPart = measuredMatrix === null ? modelledPart(scratch.now, flow.now, gb) : inGb(measuredMatrix);
  const expected = scenarioPart(scratch.expected, flow.expected, gb, measuredMatrix, flow.now.matrix);
  const ifAuto = scenarioPart(scratch.ifAuto, flow.ifAuto, gb, measuredMatrix, flow.now.matrix);
  // The fix is looked for only where it can save what neither the sync nor Auto already does.
  const fixAfter = Math.min(now.cross, expected.cross, ifAuto.cross) > 1e-9 * Math.max(1, gb) ? flow.fixAfter : null;
  const fix = fixAfter === null ? null : scenarioPart(scratch.fix, fixAfter, gb, measuredMatrix, flow.now.matrix);
  const nowSlot = slotOf(slots, now.matrix);
  const expectedSlot = expected.matrix === now.matrix ? nowSlot : slotOf(slots, expected.matrix);
  weigh(weights, nowSlot, 'now', now);
  weigh(weights, expectedSlot, 'expected', expected);

  const bestScenario = bestOf(now, expected, ifAuto, fix);
  const best = bestScenario === 'now' ? now : bestScenario === 'expected' ? expected : bestScenario === 'ifAuto' ? ifAuto : (fix as ScenarioPart);
  weigh(weights, best === now ? nowSlot : best === expected ? expectedSlot : slotOf(slots, best.matrix), 'best', best);
  const { cross } = run;
  cross.now += now.cross;
  cross.expected += expected.cross;
  cross.best += best.cross;

  const monthlyCost = crossZoneDollars(now.cross, pricing);
  const bestMonthlyCost = crossZoneDollars(best.cross, pricing);
  const fixSaving = fix === null ? null : Math.max(0, monthlyCost - crossZoneDollars(fix.cross, pricing));
  const { columns } = run;
  const values = columns.values;
  const rows = run.rows;
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
  columns.best[rows] = BEST_SCENARIOS.indexOf(bestScenario);
  if (monthlyCost > 0) offerRow(run.topByCost, rows);
  if ((values[at + AT.saving] as number) > 0) offerRow(run.topBySaving, rows);
  run.rows = rows + 1;

  // The load balancer's own leg (north-south), apart from the in-cluster figures.
  const external = measured?.byService.get(key)?.externalGbPerMonth ?? 0;
  if (external > 0 && flow.loadBalancerCrossZoneFraction !== null) {
    const { lb } = run;
    lb.services++;
    lb.gbPerMonth += external;
    lb.crossZoneGbPerMonth += external * flow.loadBalancerCrossZoneFraction;
  }
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
  // 1. Per Service: volume × fractions per scenario. Many Services have equal matrices, so the GB
  //    each distinct matrix carries is summed first and every distinct matrix added once. Distinct
  //    by content, not by object: which Services share a figures object depends on the memos'
  //    history (a dashboard pass, the analyze command and an incremental pass fill them in
  //    different orders), and the sums must not (the last digits of `flows` did differ).
  const hashes = memoOnObject(HASHES_BY_FLOWS, flows, () => new Map<ZoneMatrix, number>());
  const columns = new RowColumns(flows.length);
  const run: FlowSums = {
    settings,
    measured,
    pricing,
    keys: [],
    volumes: [],
    weights: { now: contentWeights(hashes), expected: contentWeights(hashes), best: contentWeights(hashes) },
    // Each matrix object's entries, found by identity first (most flows share their scenarios'
    // objects), one slot per object for the three sums: a Service whose scenarios share one object
    // (nothing expected to change) looks it up once.
    slots: new Map<ZoneMatrix, Slot>(),
    cross: { now: 0, expected: 0, best: 0 },
    gbTotal: 0,
    sources: {
      'measured-flows': { services: 0, gbPerMonth: 0 },
      'measured-pod-bytes': { services: 0, gbPerMonth: 0 },
      set: { services: 0, gbPerMonth: 0 },
      assumed: { services: 0, gbPerMonth: 0 },
    },
    lb: { services: 0, gbPerMonth: 0, crossZoneGbPerMonth: 0 },
    columns,
    rows: 0,
    topByCost: topList(columns.values, AT.monthlyCost, flows, TOP_SERVICES),
    topBySaving: topList(columns.values, AT.saving, flows, TOP_SERVICES),
    scratch: { now: scratchPart(), expected: scratchPart(), ifAuto: scratchPart(), fix: scratchPart() },
  };
  // An indexed loop over a module function: this loop runs once a pass, so it would be compiled
  // on the stack (OSR) each pass, that code dropped by the next full collection; the function,
  // called ~10,000 times a pass, keeps its optimised code.
  for (let f = 0; f < flows.length; f++) addFlow(run, flows[f] as ServiceFlow);
  const { keys, volumes, weights, cross, gbTotal, sources, lb, topByCost, topBySaving } = run;

  const byService = new CostRows(rowIndex(keys), flows, volumes, columns);

  // 2. The sums, noting the zones of the matrices as they are read; beyond MAX_MATRIX_ZONES the
  //    columns are lumped as a Service's are, and the sums are made again that way.
  const zones: NamedZones = { named: new Set<string>(), other: false, unknown: false };
  let matrices = scenarioSums(weights, false, zones);
  const lumped = zones.named.size > MAX_MATRIX_ZONES;
  if (lumped) matrices = scenarioSums(weights, true, null);

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
    topByCost: topByCost.rows.map((row) => plainRow(byService.at(row))),
    topBySaving: topBySaving.rows.map((row) => plainRow(byService.at(row))),
    services: flows.length,
  };
  return { report, byService };
}

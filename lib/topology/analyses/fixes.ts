/**
 * The smallest change that turns a Service's topology hints on, each one verified by running the
 * engine again on the changed state (nodes relabelled, endpoints added or removed, annotation set),
 * with the kubectl commands that make the change.
 *
 * The search for endpoint changes is ./endpoint-change-search.ts; the commands that scale the
 * Service's Deployment to a new endpoint count, and what they guarantee, ./scale-commands.ts.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go
 */
import type { HintsEngineResult } from './hints-engine';
import { runHintsEngine } from './hints-engine';
import type { PlainAutoRun } from './plain-auto-run';
import { plainAutoRun, plainSlices } from './plain-auto-run';
import type { GroupedTrafficEndpoints } from './traffic-figures-memo';
import { hintsEnabled as annotationRequestsHints } from '../upstream/annotations';
import { zoneFromProviderID } from './analyze-zones';
import type { ClusterContext } from '../model/cluster-context';
import { proxyReleaseWithHintsGate } from '../model/cluster-context';
import type { ServiceRecord } from '../model/cluster-model';
import { LABEL_TOPOLOGY_ZONE, MESSAGE_NO_ZONE_SPECIFIED, TRAFFIC_DISTRIBUTION_PREFER_CLOSE } from '../upstream/constants';
import type { FixWorkload } from './scale-commands';
import { placementNote, scaleCommands } from './scale-commands';
import type { MechanismAnalysis, TopologyAnnotationChange } from './service-mechanism';
import { sharedEnableChange } from './shared-values';
import { setNodes } from '../upstream/topology-cache';
import { sortedKeysOf } from '../upstream/sorted';
import { searchEndpointChange } from './endpoint-change-search';
import type { AddressType, Endpoint, EndpointSlice, TopologyEvent, TopologyNode, ValueByZone } from '../upstream/types';

/** What a fix changes. */
export type FixKind =
  | 'set-annotation'
  | 'enable-feature-gate'
  | 'label-node'
  | 'fix-node-cpu'
  | 'add-zone'
  | 'label-endpoint-nodes'
  | 'add-endpoints'
  | 'remove-endpoints'
  | 'set-traffic-distribution';

/** The engine re-run on the changed state. */
export interface FixVerification {
  /** The re-run turned hints on. */
  readonly verified: boolean;
  readonly event: TopologyEvent | null;
  /** What the simulation assumed (e.g. the zone used for an unlabelled node). */
  readonly assumption: string | null;
}

/** One suggested change. */
export interface Fix {
  readonly kind: FixKind;
  /** The first fix is the smallest; later ones are alternatives. */
  readonly primary: boolean;
  readonly title: string;
  readonly description: string;
  /** Ready endpoints to add (positive) or remove (negative) per zone. */
  readonly endpointChangeByZone: Readonly<ValueByZone<number>> | null;
  /** Ready endpoints after the change. */
  readonly readyEndpointsAfter: number | null;
  /** Nodes the fix touches. */
  readonly nodes: readonly string[];
  readonly commands: readonly string[];
  readonly verification: FixVerification;
  /** Endpoints donated across zones after the change. */
  readonly donatedAfter: number | null;
  /**
   * The Service's traffic once the change is made and the controller has synced (kube-proxy's
   * selection on the engine's hints for the changed state), `null` when the change is not verified
   * to turn hints on or the traffic was not modelled.
   */
  readonly after: FixTraffic | null;
  /**
   * USD per month the change saves against now at the Service's volume (the report layer prices
   * it; measured traffic gets the model's change applied to it), `null` when `after` is.
   */
  readonly monthlySaving: number | null;
}

/** Shares of a Service's traffic after a fix (0–1). */
export interface FixTraffic {
  /** The model's cross-zone share once the fix is made. */
  readonly crossZoneFraction: number;
  readonly droppedFraction: number;
  /**
   * The share {@link Fix.monthlySaving} is priced at: the model's, or with a measured volume the
   * model's change applied to the measurement. Set by the report layer with the saving.
   */
  readonly pricedCrossZoneFraction?: number;
}

/** What {@link FixInput.trafficAfter} is asked about: the state a fix leaves. */
export interface FixedState {
  /** Every slice after the controller's sync on the changed state (hints included). */
  readonly slices: readonly EndpointSlice[];
  readonly annotations: Readonly<Record<string, string>>;
  /** The fix turns the TopologyAwareHints gate on (kube-proxy's too). */
  readonly gatesOn: boolean;
  /**
   * `slices`' endpoints as the traffic model groups them, when the run that produced the state
   * worked them out without writing the slices (plain-auto-run.ts; `slices` is then empty).
   */
  readonly grouped?: GroupedTrafficEndpoints;
}

/**
 * A {@link FixedState}, made in this one place so that every state has the same hidden class (the
 * traffic model of a fixed state reads it for every fix a pass prices; states spread from
 * objects of different shapes made those reads megamorphic).
 */
function fixedState(slices: readonly EndpointSlice[], annotations: Readonly<Record<string, string>>, gatesOn: boolean, grouped: GroupedTrafficEndpoints | undefined): FixedState {
  return { slices, annotations, gatesOn, grouped };
}

/** The model's traffic of a {@link FixedState}: the shares, and the client zone → endpoint zone fractions. */
export interface FixTrafficModel extends FixTraffic {
  readonly matrix: Readonly<ValueByZone<ValueByZone<number>>>;
}

type AfterMatrix = Readonly<ValueByZone<ValueByZone<number>>>;

/**
 * A modelled fix's `after`, with the fraction matrix kept beside it in a private field: out of the
 * JSON and of the object's keys (it writes and compares as the plain {@link FixTraffic}). A weak
 * table from fix to matrix cost ~35 ms of an analysis with every field at realistic L (tens of
 * thousands of fixes, each entered in it, twice when priced).
 */
class FixAfter implements FixTraffic {
  readonly crossZoneFraction: number;
  readonly droppedFraction: number;
  declare readonly pricedCrossZoneFraction?: number;
  readonly #matrix: AfterMatrix;

  constructor(crossZoneFraction: number, droppedFraction: number, pricedCrossZoneFraction: number | undefined, matrix: AfterMatrix) {
    this.crossZoneFraction = crossZoneFraction;
    this.droppedFraction = droppedFraction;
    if (pricedCrossZoneFraction !== undefined) (this as { pricedCrossZoneFraction?: number }).pricedCrossZoneFraction = pricedCrossZoneFraction;
    this.#matrix = matrix;
  }

  /** The matrix of `after` when it is a modelled fix's (`null` for any other object, e.g. one parsed from JSON). */
  static matrixOf(after: FixTraffic): AfterMatrix | null {
    return #matrix in after ? after.#matrix : null;
  }
}

/** Client zone → endpoint zone fractions of the Service's traffic after `fix`, `null` when not modelled. */
export function fixAfterMatrix(fix: Pick<Fix, 'after'>): AfterMatrix | null {
  return fix.after === null ? null : FixAfter.matrixOf(fix.after);
}

/**
 * A fix from its description and what is known of it: spelled out rather than spread (findFixes
 * and the pricing run for most Services of a cluster pass), keys in the order the report has
 * always written them.
 */
function fixObject(fix: Omit<Fix, 'primary' | 'after' | 'monthlySaving'>, primary: boolean, after: FixTraffic | null, monthlySaving: number | null): Fix {
  return {
    kind: fix.kind,
    title: fix.title,
    description: fix.description,
    endpointChangeByZone: fix.endpointChangeByZone,
    readyEndpointsAfter: fix.readyEndpointsAfter,
    nodes: fix.nodes,
    commands: fix.commands,
    verification: fix.verification,
    donatedAfter: fix.donatedAfter,
    primary,
    after,
    monthlySaving,
  };
}

/** `fix` with its monthly saving and the share it is priced at set (the matrix of its `after` goes with it). */
export function withMonthlySaving(fix: Fix, monthlySaving: number | null, pricedCrossZoneFraction: number): Fix {
  const after = fix.after;
  const matrix = after === null ? null : FixAfter.matrixOf(after);
  const pricedAfter =
    after === null
      ? null
      : matrix === null
        ? { crossZoneFraction: after.crossZoneFraction, droppedFraction: after.droppedFraction, pricedCrossZoneFraction }
        : new FixAfter(after.crossZoneFraction, after.droppedFraction, pricedCrossZoneFraction, matrix);
  return fixObject(fix, fix.primary, pricedAfter, monthlySaving);
}

/** Input of {@link findFixes}. */
export interface FixInput {
  readonly context: ClusterContext;
  readonly service: ServiceRecord;
  readonly mechanism: MechanismAnalysis;
  readonly addressType: AddressType;
  /** Controller-managed slices of the primary address type, as observed. */
  readonly managedSlices: readonly EndpointSlice[];
  /** Whether the controller is expected to leave hints on already. */
  readonly expectedHintsEnabled: boolean;
  /** The engine with the `Auto` annotation applied to the current state. */
  readonly ifAutoResult: HintsEngineResult;
  readonly workload: FixWorkload | null;
  /**
   * Looks the workload up only when a fix needs it (scale commands); when given, used instead of
   * {@link workload}. Lets callers skip the workload lookup for the many Services whose fixes
   * never get that far.
   */
  readonly workloadOf?: () => FixWorkload | null;
  /** The traffic model of a fixed state (each verified fix's `after`); without it fixes carry no `after`. */
  readonly trafficAfter?: (state: FixedState) => FixTrafficModel | null;
  /**
   * What the caller knows already of {@link ifAutoResult}'s state (its slices with the Auto
   * annotation edit, the cluster's own gates), which the annotation fix leaves: its traffic (the
   * "if Auto" scenario) and its donated endpoints ({@link autoStateOf}). With it, findFixes does not
   * read the Auto run's slices, so a caller may keep that run without them. Only for a Service
   * whose slices of the address type are all managed by the controller (else the scenario also
   * holds the others and is not the fixed state).
   */
  readonly autoState?: AutoState | null;
  /**
   * Stop at the primary (smallest) fix: what the cluster-wide best needs, without the alternatives'
   * searches. Its kind, title, verification and traffic after are found as in the full list; its
   * commands and its description (which name the Service and its workload) are left empty.
   */
  readonly primaryOnly?: boolean;
  /**
   * Work the `Auto` run of added endpoints out in one walk where the slices allow it
   * (plain-auto-run.ts; default). `false` runs the engine every time: the reference the tests hold
   * the walk to.
   */
  readonly leanRuns?: boolean;
}

/**
 * The ready endpoints of `slices` in each of `zones` (sorted), comma-separated: the search's memo
 * key. Kept by slice list while the zones are the same array (one per ratios object, and the same
 * zones from one Node change to the next give the same text).
 */
function countsKey(slices: readonly EndpointSlice[], zones: readonly string[]): string {
  const known = COUNTS_KEYS.get(slices);
  if (known !== undefined && (known.zones === zones || sameZones(known.zones, zones))) return known.key;
  const perZone = readyByZone(slices);
  let key = '';
  for (let i = 0; i < zones.length; i++) key += `${i === 0 ? '' : ','}${perZone[zones[i] as string] ?? 0}`;
  COUNTS_KEYS.set(slices, { zones, key });
  return key;
}

function sameZones(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** {@link countsKey} by slice list, with the zones it was made for. */
const COUNTS_KEYS = new WeakMap<readonly EndpointSlice[], { readonly zones: readonly string[]; readonly key: string }>();

/** Ready endpoints per zone (read-only: kept per slice list, see {@link READY_BY_LIST}). */
function readyByZone(slices: readonly EndpointSlice[]): Readonly<ValueByZone<number>> {
  return readyOf(slices).byZone;
}

/** Ready endpoints of a slice list, in all and per zone. */
interface ReadyCounts {
  readonly total: number;
  readonly byZone: Readonly<ValueByZone<number>>;
}

/**
 * {@link ReadyCounts} by slice list: a Service's own list is the same array from one pass to the
 * next (slices are immutable), and a pass after a Node change looks for the fixes of every shape again.
 */
const READY_BY_LIST = new WeakMap<readonly EndpointSlice[], ReadyCounts>();

function readyOf(slices: readonly EndpointSlice[]): ReadyCounts {
  let known = READY_BY_LIST.get(slices);
  if (known === undefined) {
    const byZone: ValueByZone<number> = {};
    let total = 0;
    for (const slice of slices) {
      for (const e of slice.endpoints) {
        if (e.ready !== true) continue;
        total++;
        if (e.zone) byZone[e.zone] = (byZone[e.zone] ?? 0) + 1;
      }
    }
    known = { total, byZone };
    READY_BY_LIST.set(slices, known);
  }
  return known;
}

/** What {@link FixInput.autoState} carries. */
export interface AutoState {
  /** The traffic model of the Auto state, as {@link FixInput.trafficAfter} would give it. */
  readonly traffic: FixTrafficModel;
  /** Its donated endpoints, as a fix's `donatedAfter` counts them. */
  readonly donated: number;
}

/** The {@link AutoState} of an Auto run that turns hints on, with its traffic model. */
export function autoStateOf(result: HintsEngineResult, traffic: FixTrafficModel): AutoState {
  return { traffic, donated: donatedCount(result.slices) };
}

/** Ready endpoints with a zone whose zone hints leave their own zone out (donated). */
function donatedCount(slices: readonly EndpointSlice[]): number {
  let n = 0;
  for (const slice of slices) {
    for (const e of slice.endpoints) {
      const forZones = e.hints?.forZones;
      if (e.ready === true && e.zone && forZones && !forZones.includes(e.zone)) n++;
    }
  }
  return n;
}

function readyCount(slices: readonly EndpointSlice[]): number {
  return readyOf(slices).total;
}

function syntheticEndpoints(change: Readonly<ValueByZone<number>>): EndpointSlice {
  const endpoints: Endpoint[] = [];
  for (const [zone, count] of Object.entries(change)) {
    for (let i = 0; i < count; i++) endpoints.push({ addresses: [`added-${zone}-${i + 1}`], zone, nodeName: null, ready: true, hints: null });
  }
  return { name: 'zonescope-simulated', endpoints };
}

/** Synthetic slices by {@link syntheticKey} (frozen: every run that adds those endpoints shares one); started over beyond 1,024. */
let SYNTHETIC = new Map<string, { readonly key: string; readonly slice: EndpointSlice }>();

/** The zones and counts of a change, in its order: what {@link syntheticEndpoints} spells its endpoints from. */
function syntheticKey(change: Readonly<ValueByZone<number>>): string {
  let key = '';
  for (const zone in change) key += `${zone}\u0000${change[zone] as number}\u0001`;
  return key;
}

/**
 * {@link syntheticEndpoints} of `change`, frozen and shared, with its key (which names its
 * endpoints' zones and addresses in order, as `plainAutoRun`'s `createdKey` asks).
 */
function sharedSyntheticEndpoints(change: Readonly<ValueByZone<number>>): { readonly key: string; readonly slice: EndpointSlice } {
  // The searches are kept for the pass (context.memo): shapes with the same ready endpoints per zone get one change object.
  let kept = SYNTHETIC_BY_CHANGE.get(change);
  if (kept === undefined) {
    kept = syntheticFor(change);
    SYNTHETIC_BY_CHANGE.set(change, kept);
  }
  return kept;
}

const SYNTHETIC_BY_CHANGE = new WeakMap<Readonly<ValueByZone<number>>, { readonly key: string; readonly slice: EndpointSlice }>();

/** {@link sharedSyntheticEndpoints} by the change's key. */
function syntheticFor(change: Readonly<ValueByZone<number>>): { readonly key: string; readonly slice: EndpointSlice } {
  const key = syntheticKey(change);
  let found = SYNTHETIC.get(key);
  if (found === undefined) {
    const slice = syntheticEndpoints(change);
    for (const endpoint of slice.endpoints) Object.freeze(endpoint);
    Object.freeze(slice.endpoints);
    found = Object.freeze({ key, slice: Object.freeze(slice) });
    if (SYNTHETIC.size >= 1_024) SYNTHETIC = new Map();
    SYNTHETIC.set(key, found);
  }
  return found;
}

function withoutEndpoints(slices: readonly EndpointSlice[], change: Readonly<ValueByZone<number>>): EndpointSlice[] {
  const toRemove = new Map(Object.entries(change).filter(([, d]) => d < 0).map(([zone, d]) => [zone, -d]));
  return slices.map((slice) => ({
    ...slice,
    endpoints: slice.endpoints.filter((e) => {
      if (e.ready !== true || !e.zone) return true;
      const left = toRemove.get(e.zone) ?? 0;
      if (left <= 0) return true;
      toRemove.set(e.zone, left - 1);
      return false;
    }),
  }));
}

function zoneList(change: Readonly<ValueByZone<number>>): string {
  let list = ZONE_LISTS.get(change);
  if (list === undefined) {
    list = Object.entries(change)
      .filter(([, d]) => d !== 0)
      .map(([zone, d]) => `${Math.abs(d)} in ${zone}`)
      .join(', ');
    ZONE_LISTS.set(change, list);
  }
  return list;
}

/** {@link zoneList} by change object (shapes share the searches' changes: see {@link sharedSyntheticEndpoints}). */
const ZONE_LISTS = new WeakMap<Readonly<ValueByZone<number>>, string>();

/**
 * The fewest endpoints to add or remove ({@link searchEndpointChange}). The search depends only on
 * the ratios and the counts: with the cluster's own ratios, Services with the same ready endpoints
 * per zone share it (most small Services look alike).
 */
function searchFor(
  context: ClusterContext,
  ratios: Readonly<ValueByZone<number>>,
  slices: readonly EndpointSlice[],
  perZone: Readonly<ValueByZone<number>>,
  n: number,
  direction: 'add' | 'remove',
): ReturnType<typeof searchEndpointChange> {
  if (ratios !== context.cpuRatiosByZone) return searchEndpointChange(ratios, perZone, n, direction);
  return context.memo(`fix-search/${direction}/${n}/${countsKey(slices, sortedKeysOf(ratios))}`, () => searchEndpointChange(ratios, perZone, n, direction));
}

/**
 * What {@link findFixes} carries from step to step: its input, the toggle's edit, the Service's key,
 * the fixes so far, and whether the steps so far assume the TopologyAwareHints gate on. A record
 * read by module functions, not closures made per call (a pass looks for ~2,000 primary fixes, and
 * a closure's optimised code goes with the last closure made from it).
 */
interface FixRun {
  readonly input: FixInput;
  readonly change: TopologyAnnotationChange;
  readonly key: string;
  readonly fixes: Fix[];
  gatesOn: boolean;
}

/** What {@link engineRun} changes of the Service's own sync. */
interface EngineOverrides {
  readonly ratios?: Readonly<ValueByZone<number>> | null;
  readonly unchanged?: readonly EndpointSlice[];
  readonly toCreate?: readonly EndpointSlice[];
  readonly annotations?: Readonly<Record<string, string>>;
  readonly trafficDistribution?: string | null;
}

/**
 * The controller's sync of the Service with the toggle's annotations, and `over` in place of its
 * own, under the run's gates (the hints gate on once the first step assumed it).
 */
function engineRun(run: FixRun, over: EngineOverrides): HintsEngineResult {
  const { input, change, gatesOn } = run;
  const { context, service } = input;
  return runHintsEngine({
    serviceKey: run.key,
    annotations: over.annotations ?? change.annotations,
    trafficDistribution: over.trafficDistribution === undefined ? service.trafficDistribution : over.trafficDistribution,
    addressType: input.addressType,
    unchanged: over.unchanged ?? input.managedSlices,
    toCreate: over.toCreate ?? [],
    cpuRatiosByZone: over.ratios === undefined ? context.cpuRatiosByZone : over.ratios,
    minor: context.release.minor,
    // The release's gates with the hints gate on: one shared object, so the engine's kept runs find it again.
    gates: gatesOn ? proxyReleaseWithHintsGate(context.proxyRelease).gates : context.gates,
    topologyCacheEnabled: gatesOn ? true : context.topologyCacheEnabled,
  });
}

/** Whether the search may stop: only the primary is asked for, and it is found. */
function isDone(run: FixRun): boolean {
  return run.input.primaryOnly === true && run.fixes.length > 0;
}

/**
 * Adds `fix` to the run's fixes with the traffic after it: the first one is the primary. `state`:
 * the fixed state's annotations and gates (and grouped endpoints), by default the toggle's edit and
 * the run's gates.
 */
function pushFix(run: FixRun, fix: Omit<Fix, 'primary' | 'after' | 'monthlySaving'>, result: HintsEngineResult | null, state?: Omit<FixedState, 'slices'>): void {
  const { input, change, fixes } = run;
  const annotations = state === undefined ? change.annotations : state.annotations;
  const gatesOn = state === undefined ? run.gatesOn : state.gatesOn;
  const modelled = result !== null && result.hintsEnabled && fix.verification.verified && input.trafficAfter !== undefined;
  // The Auto state as it stands (the annotation fix) is the caller's "if Auto" scenario when it passed that.
  const known = modelled && result === input.ifAutoResult && !gatesOn && annotations === change.annotations ? (input.autoState?.traffic ?? null) : null;
  // A run worked out in one walk carries its grouped endpoints in `state` instead of slices.
  const model = !modelled ? null : known !== null ? known : (input.trafficAfter as (state: FixedState) => FixTrafficModel | null)(fixedState((result as HintsEngineResult).slices, annotations, gatesOn, state?.grouped));
  fixes.push(fixObject(fix, fixes.length === 0, model === null ? null : new FixAfter(model.crossZoneFraction, model.droppedFraction, undefined, model.matrix), null));
}

/**
 * Adding endpoints to slices without hints, on the cluster's own ratios and gates: the Auto run
 * worked out in one walk (plain-auto-run.ts), with its donations and grouped endpoints; `null`
 * where that walk does not apply.
 */
function leanAddRun(run: FixRun, unchanged: readonly EndpointSlice[], ratios: Readonly<ValueByZone<number>>, changeByZone: Readonly<ValueByZone<number>>): PlainAutoRun | null {
  const { input, change } = run;
  const { context, service } = input;
  const { minor } = context.release;
  // (The traffic model takes grouped endpoints only without internalTrafficPolicy: Local.)
  if (input.leanRuns === false || run.gatesOn || !context.topologyCacheEnabled || service.internalTrafficPolicy === 'Local' || !annotationRequestsHints(change.annotations, minor) || !plainSlices(unchanged)) return null;
  const created = sharedSyntheticEndpoints(changeByZone);
  const lean = plainAutoRun({ addressType: input.addressType, slices: unchanged, created: created.slice, createdKey: created.key, cpuRatiosByZone: ratios, table: null, minor, nodeZoneByName: context.nodeZoneByName });
  return lean === null || !lean.result.hintsEnabled || lean.grouped === null ? null : lean;
}

/** Endpoints donated across zones after a run that turns hints on (`null` when it does not). */
function donatedAfter(input: FixInput, result: HintsEngineResult): number | null {
  return !result.hintsEnabled ? null : result === input.ifAutoResult && input.autoState ? input.autoState.donated : donatedCount(result.slices);
}

/** The workload the placement note and scale commands read. */
function workloadNowOf(input: FixInput): FixInput['workload'] {
  return input.workloadOf ? input.workloadOf() : input.workload;
}

/**
 * Suggested fixes for a Service whose hints are off, smallest first, each verified by the engine:
 * 1. the annotation, when nothing requests hints yet and `Auto` would work as things are;
 * 2. the TopologyAwareHints gate, when it is off;
 * 3. the nodes that make the cluster ineligible (label / CPU), re-running SetNodes;
 * 4. the nodes hosting endpoints without a zone;
 * 5. the fewest ready endpoints to add (and, when smaller, to remove) and in which zones;
 * 6. `trafficDistribution: PreferClose` as an alternative that needs no minimums (1.30+ with its gate).
 * Returns `[]` when hints are expected on or the controller does not manage the Service.
 */
export function findFixes(input: FixInput): Fix[] {
  const { context, service, mechanism } = input;
  if (input.expectedHintsEnabled || service.selector === null || service.type === 'ExternalName') return [];
  const { minor } = context.release;
  const fixes: Fix[] = [];
  // The same edit object for every Service with this annotation map (shared-values.ts).
  const change = sharedEnableChange(context, service.annotations);
  const needsAnnotation = !mechanism.annotationActive;
  // The primary alone is read for its kind, title and traffic after: no commands or description spelled out.
  const spelled = input.primaryOnly !== true;
  const annotateCommands = needsAnnotation && spelled
    ? [
        ...Object.entries(change.set).map(([key, value]) => `kubectl annotate service ${service.name} -n ${service.namespace} ${key}=${value} --overwrite`),
        ...change.remove.map((key) => `kubectl annotate service ${service.name} -n ${service.namespace} ${key}-`),
      ]
    : [];
  const key = `${service.namespace}/${service.name}`;
  const run: FixRun = { input, change, key, fixes, gatesOn: false };

  // 1. The gate.
  if (!context.topologyCacheEnabled) {
    run.gatesOn = true;
    const result = engineRun(run, {});
    pushFix(run, {
      kind: 'enable-feature-gate',
      title: 'Enable the TopologyAwareHints feature gate',
      description: `On ${context.release.release} the TopologyAwareHints gate is off, so the controller never hints. Enable it on kube-apiserver, kube-controller-manager and kube-proxy.`,
      endpointChangeByZone: null,
      readyEndpointsAfter: null,
      nodes: [],
      commands: ['--feature-gates=TopologyAwareHints=true', ...annotateCommands],
      verification: { verified: result.hintsEnabled, event: result.event ?? result.reason, assumption: 'gate on in every component' },
      donatedAfter: donatedAfter(input, result),
    }, result);
    if (result.hintsEnabled || isDone(run)) return fixes;
  }

  // 2. Auto as things are.
  const auto = run.gatesOn ? engineRun(run, {}) : input.ifAutoResult;
  if (auto.hintsEnabled) {
    if (needsAnnotation) {
      pushFix(run, {
        kind: 'set-annotation',
        title: `Set ${Object.keys(change.set)[0]}: ${Object.values(change.set)[0]}`,
        description: 'Nothing requests hints yet; with the annotation the controller would enable them as the cluster stands.',
        endpointChangeByZone: null,
        readyEndpointsAfter: null,
        nodes: [],
        commands: annotateCommands,
        verification: { verified: true, event: auto.event ?? auto.reason, assumption: null },
        donatedAfter: donatedAfter(input, auto),
      }, auto);
    }
    return fixes;
  }

  // 3. Nodes that make the cluster ineligible.
  let ratios = context.cpuRatiosByZone;
  const cause = context.nodeTopology.insufficientCause;
  if (ratios === null && (cause === 'node-missing-zone' || cause === 'node-missing-cpu')) {
    const fallbackZone = context.zoneNames[0] ?? 'zone-a';
    const byName = new Map(context.index.snapshot.nodes.map((n) => [n.name, n]));
    const offenders = context.topologyNodes.filter((n) => {
      const status = context.nodeStatusByName.get(n.name);
      return status === 'missing-zone' || status === 'missing-cpu';
    });
    const fixedNodes: TopologyNode[] = [];
    const assumptions: string[] = [];
    for (const node of context.topologyNodes) {
      const status = context.nodeStatusByName.get(node.name);
      if (status === 'missing-cpu') continue;
      if (status === 'missing-zone') {
        const zone = zoneFromProviderID(byName.get(node.name)?.providerID ?? null) ?? fallbackZone;
        assumptions.push(`${node.name} in ${zone}`);
        fixedNodes.push({ ...node, zone });
      } else fixedNodes.push(node);
    }
    ratios = setNodes(fixedNodes, minor).cpuRatiosByZone;
    const result = engineRun(run, { ratios });
    const missingZone = offenders.filter((n) => context.nodeStatusByName.get(n.name) === 'missing-zone');
    const missingCpu = offenders.filter((n) => context.nodeStatusByName.get(n.name) === 'missing-cpu');
    pushFix(run, {
      kind: missingZone.length > 0 ? 'label-node' : 'fix-node-cpu',
      title: missingZone.length > 0 ? `Label ${missingZone.map((n) => n.name).join(', ')} with its zone` : `Fix allocatable CPU on ${missingCpu.map((n) => n.name).join(', ')}`,
      description:
        'A Ready worker without a zone label or allocatable CPU leaves the controller without CPU ratios, which turns hints off for every Service in the cluster.' +
        (result.hintsEnabled ? '' : ' After this fix the Service still needs the change below.'),
      endpointChangeByZone: null,
      readyEndpointsAfter: null,
      nodes: offenders.map((n) => n.name),
      commands: [
        ...missingZone.map((n) => `kubectl label node ${n.name} ${LABEL_TOPOLOGY_ZONE}=${zoneFromProviderID(byName.get(n.name)?.providerID ?? null) ?? '<zone>'}`),
        ...missingCpu.map((n) => `kubectl drain ${n.name} --ignore-daemonsets --delete-emptydir-data && kubectl delete node ${n.name}`),
        ...annotateCommands,
      ],
      verification: {
        verified: result.hintsEnabled,
        event: result.event ?? result.reason,
        assumption: [assumptions.length > 0 ? `labelled ${assumptions.join(', ')}` : null, missingCpu.length > 0 ? 'CPU-less nodes removed' : null].filter(Boolean).join('; ') || null,
      },
      donatedAfter: donatedAfter(input, result),
    }, result);
    if (result.hintsEnabled || isDone(run)) return fixes;
  } else if (ratios === null) {
    pushFix(run, {
      kind: 'add-zone',
      title: cause === 'single-zone' ? 'Run nodes in a second zone' : 'Bring Ready worker nodes with CPU',
      description:
        cause === 'single-zone'
          ? 'All counted nodes are in one zone; hints need at least two zones with Ready workers.'
          : 'No Ready worker with allocatable CPU exists, so there is nothing to proportion endpoints by.',
      endpointChangeByZone: null,
      readyEndpointsAfter: null,
      nodes: [],
      commands: [],
      verification: { verified: false, event: auto.reason, assumption: 'needs new capacity; not simulated' },
      donatedAfter: null,
    }, null);
    return fixes;
  }

  // 4. Endpoints without a zone.
  let slices = input.managedSlices;
  // With the cluster's own ratios and gates, that run is the Auto run the caller made already.
  const afterNodes = !run.gatesOn && ratios === context.cpuRatiosByZone ? auto : engineRun(run, { ratios });
  if (afterNodes.reason?.message.startsWith(MESSAGE_NO_ZONE_SPECIFIED) && ratios) {
    const nodeNames = new Set<string>();
    const fallbackZone = Object.keys(ratios).sort()[0] ?? 'zone-a';
    slices = slices.map((slice) => ({
      ...slice,
      endpoints: slice.endpoints.map((e) => {
        if (e.ready !== true || (e.zone !== null && e.zone !== '')) return e;
        if (e.nodeName) nodeNames.add(e.nodeName);
        const nodeZone = e.nodeName ? (context.nodeZoneByName.get(e.nodeName) ?? null) : null;
        return { ...e, zone: nodeZone ?? fallbackZone };
      }),
    }));
    const result = engineRun(run, { ratios, unchanged: slices });
    const names = [...nodeNames].sort();
    pushFix(run, {
      kind: 'label-endpoint-nodes',
      title: names.length > 0 ? `Give ${names.join(', ')} a zone label` : 'Give every endpoint a zone',
      description: 'Some ready endpoints have no zone (their node has no zone label), and one zone-less endpoint turns the Service\'s hints off.',
      endpointChangeByZone: null,
      readyEndpointsAfter: null,
      nodes: names,
      commands: [...names.map((n) => `kubectl label node ${n} ${LABEL_TOPOLOGY_ZONE}=<zone>`), ...annotateCommands],
      verification: { verified: result.hintsEnabled, event: result.event ?? result.reason, assumption: `endpoints given their node's zone (else ${fallbackZone})` },
      donatedAfter: donatedAfter(input, result),
    }, result);
    if (result.hintsEnabled || isDone(run)) return fixes;
  }

  // 5. Endpoint counts.
  if (ratios) {
    const n = readyCount(slices);
    const perZone = readyByZone(slices);
    const add = searchFor(context, ratios, slices, perZone, n, 'add');
    // Adding, when it can, is tried first and is then the primary: stopping there, no removal is sought.
    const remove = input.primaryOnly === true && add !== null ? null : searchFor(context, ratios, slices, perZone, n, 'remove');
    for (const found of [add, remove]) {
      if (!found) continue;
      const isAdd = found === add;
      if (!isAdd && add && found.total >= add.total) continue;
      const lean = isAdd ? leanAddRun(run, slices, ratios, found.changeByZone) : null;
      const result =
        lean?.result ??
        (isAdd ? engineRun(run, { ratios, unchanged: slices, toCreate: [syntheticEndpoints(found.changeByZone)] }) : engineRun(run, { ratios, unchanged: withoutEndpoints(slices, found.changeByZone) }));
      const where = zoneList(found.changeByZone);
      pushFix(run, {
        kind: isAdd ? 'add-endpoints' : 'remove-endpoints',
        title: `${isAdd ? 'Add' : 'Remove'} ${found.total} ready endpoint${found.total === 1 ? '' : 's'}, to ${found.readyAfter} (fewest donations with ${where})`,
        description: !spelled
          ? ''
          : `${n} ready endpoints cannot be allocated (${auto.reason?.message ?? 'minimums do not fit'}); with ${found.readyAfter} the per-zone minimums fit` +
            (found.donatedAfter > 0 ? `, though ${found.donatedAfter} endpoint(s) would still be donated across zones.` : ' and no endpoint is donated across zones.') +
            ' ' +
            placementNote(isAdd, found.readyAfter, workloadNowOf(input), ratios),
        endpointChangeByZone: found.changeByZone,
        readyEndpointsAfter: found.readyAfter,
        nodes: [],
        commands: spelled ? [...annotateCommands, ...scaleCommands(workloadNowOf(input), service.namespace, isAdd ? found.total : -found.total, where)] : [],
        verification: { verified: result.hintsEnabled, event: result.event ?? result.reason, assumption: `ready endpoints ${isAdd ? 'added' : 'removed'}: ${where}` },
        donatedAfter: lean === null ? donatedAfter(input, result) : lean.donated,
      }, result, lean === null ? undefined : { annotations: change.annotations, gatesOn: run.gatesOn, grouped: lean.grouped ?? undefined });
      if (isDone(run)) return fixes;
    }
  }

  // 6. trafficDistribution instead of Auto.
  if (isDone(run)) return fixes;
  const tdAvailable = minor >= 33 || (minor >= 30 && context.gates.ServiceTrafficDistribution);
  if (tdAvailable && service.trafficDistribution === null) {
    const dropped = new Set([...Object.keys(change.set), ...change.remove]);
    const withoutAuto = Object.fromEntries(Object.entries(service.annotations).filter(([k]) => !dropped.has(k)));
    const result = engineRun(run, { ratios, unchanged: slices, annotations: withoutAuto, trafficDistribution: TRAFFIC_DISTRIBUTION_PREFER_CLOSE });
    if (result.hintsEnabled) {
      pushFix(run, {
        kind: 'set-traffic-distribution',
        title: 'Or: trafficDistribution: PreferClose',
        description:
          'Hints every ready endpoint for its own zone with no CPU proportions and no minimums, so it works at any replica count; zones with few endpoints take all their own traffic (risk of overload), and zones without endpoints fall back to all endpoints.',
        endpointChangeByZone: null,
        readyEndpointsAfter: null,
        nodes: [],
        commands: [
          ...(mechanism.annotationKey ? [`kubectl annotate service ${service.name} -n ${service.namespace} ${mechanism.annotationKey}-`] : []),
          `kubectl patch service ${service.name} -n ${service.namespace} --type merge -p '{"spec":{"trafficDistribution":"PreferClose"}}'`,
        ],
        verification: { verified: true, event: null, assumption: null },
        donatedAfter: donatedAfter(input, result),
      }, result, { annotations: withoutAuto, gatesOn: run.gatesOn });
    }
  }
  return fixes;
}

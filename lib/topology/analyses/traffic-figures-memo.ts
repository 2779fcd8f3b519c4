/**
 * Services whose endpoints look alike to the traffic model share its figures: a key that spells
 * out what `computeTrafficFigures` (traffic.ts) reads of a Service's endpoints and settings (never
 * addresses, pod names or — without node-by-node evaluation — node names), and the figures shared
 * by that key for one set of clients and one release, with what each key keeps across client sets
 * (`sharedGroupedFigures`).
 */
import { endpointShapeParts, shapeCodeOfParts, SliceListMemo } from './endpoint-shape';
import type { FiguresPlan, TrafficClientZone, TrafficEndpoint, TrafficFigures, TrafficInput } from './traffic';
import { computeGroupedFigures, toTrafficEndpoint } from './traffic';
import type { EndpointSlice } from '../upstream/types';
import { flatString } from '../model/flat-string';

/**
 * A key for `computeTrafficFigures` of the endpoints of `slices` (as `toTrafficEndpoints`
 * reads them) under `input`'s Service settings: two inputs with the same key and the same clients
 * and release get the same figures, because the figures never depend on addresses, pod names or —
 * without node-by-node evaluation — node names. `null` when node names may matter
 * (`internalTrafficPolicy: Local` or node hints), so the figures must be computed.
 */
export function trafficFiguresKey(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>, input: Pick<TrafficInput, 'service' | 'honoursHints' | 'proxied'>): string | null {
  return figuresKeyOf(input, groupTrafficEndpoints(slices, nodeZoneByName));
}

/** {@link trafficFiguresKey} of endpoints already grouped. */
function figuresKeyOf(input: Pick<TrafficInput, 'service' | 'honoursHints' | 'proxied'>, endpoints: TrafficEndpointsKey): string | null {
  const { service } = input;
  if (service.internalTrafficPolicy === 'Local' || endpoints.key === null) return null;
  return `${service.externalTrafficPolicy}|${service.externallyAccessible ? 1 : 0}|${input.honoursHints ? 1 : 0}|${input.proxied ? 1 : 0}|${JSON.stringify(service.hintsAnnotation)}${endpoints.key}`;
}

/** The endpoints' part of a {@link trafficFiguresKey}, computed once for slices that several keys read (see there). */
export interface TrafficEndpointsKey {
  readonly key: string | null;
}

/**
 * The endpoints of some slices as the traffic model reads them, one entry per shape: what
 * `computeTrafficFigures` needs with `counts` (see there), and the key part that spells it.
 */
export interface GroupedTrafficEndpoints extends TrafficEndpointsKey {
  /** The first endpoint of each shape, in the order the shapes first appear. */
  readonly endpoints: readonly TrafficEndpoint[];
  /** How many endpoints each entry stands for. */
  readonly counts: readonly number[];
}

const NODE_HINTED: GroupedTrafficEndpoints = { key: null, endpoints: [], counts: [] };

/**
 * The endpoints `toTrafficEndpoints` keeps of `slices` (the first of each address; with
 * `addressesDistinct`, no two share one, every endpoint with an address), grouped by their traffic
 * shape (`endpointShapeCode`, not exact) in the order each shape first appears, with the key part
 * that spells the groups: each shape's code followed by its count in decimal (codes are single
 * characters above Latin-1 or marked text, so never digits). Two lists with the same groups get
 * the same figures (see `computeTrafficFigures`). `key: null` (and no entries) when an endpoint
 * carries node hints: node names then matter.
 */
export function groupTrafficEndpoints(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>, addressesDistinct = false): GroupedTrafficEndpoints {
  const seen = addressesDistinct ? null : new Set<string>();
  // Groups by their shape's number (a short list scanned in place: a Service has few shapes), or
  // by code for the unusual shape without one (they cannot meet: a shape has a number or not).
  const partsOf: number[] = [];
  let byParts: Map<number, number> | null = null;
  let byCode: Map<string, number> | null = null;
  const codes: string[] = [];
  const endpoints: TrafficEndpoint[] = [];
  const counts: number[] = [];
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const address = endpoint.addresses[0];
      if (address === undefined) continue;
      if (seen !== null) {
        if (seen.has(address)) continue;
        seen.add(address);
      }
      if ((endpoint.hints?.forNodes?.length ?? 0) > 0) return NODE_HINTED;
      const parts = endpointShapeParts(endpoint, nodeZoneByName, false);
      let group = -1;
      let code: string | null = null;
      if (parts >= 0) {
        if (byParts !== null) group = byParts.get(parts) ?? -1;
        else {
          for (let i = 0; i < partsOf.length; i++) {
            if (partsOf[i] === parts) {
              group = i;
              break;
            }
          }
        }
      } else {
        code = shapeCodeOfParts(parts, endpoint, nodeZoneByName, false);
        group = byCode?.get(code) ?? -1;
      }
      if (group >= 0) {
        counts[group] = (counts[group] as number) + 1;
        continue;
      }
      group = codes.length;
      codes.push(code ?? shapeCodeOfParts(parts, endpoint, nodeZoneByName, false));
      partsOf.push(parts);
      if (parts < 0) (byCode ??= new Map()).set(code as string, group);
      else if (byParts !== null) byParts.set(parts, group);
      else if (partsOf.length > GROUPS_SCANNED) {
        byParts = new Map();
        partsOf.forEach((value, i) => {
          if (value >= 0) (byParts as Map<number, number>).set(value, i);
        });
      }
      endpoints.push(toTrafficEndpoint(endpoint, address, nodeZoneByName));
      counts.push(1);
    }
  }
  return groupedEndpoints(codes, endpoints, counts);
}

/** {@link groupSliceList}'s groups, by whether they were asked with distinct addresses. */
const GROUPS_BY_LIST = { distinct: new SliceListMemo<GroupedTrafficEndpoints>(), repeats: new SliceListMemo<GroupedTrafficEndpoints>() };

/**
 * {@link groupTrafficEndpoints} of a Service's own slice list (as the index holds it), kept by the
 * list ({@link SliceListMemo}): a pass after a Node change analyses every Service again and finds
 * the groups of every unchanged list.
 */
export function groupSliceList(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>, addressesDistinct: boolean): GroupedTrafficEndpoints {
  const memo = addressesDistinct ? GROUPS_BY_LIST.distinct : GROUPS_BY_LIST.repeats;
  return memo.kept(slices, nodeZoneByName) ?? memo.keep(slices, nodeZoneByName, groupTrafficEndpoints(slices, nodeZoneByName, addressesDistinct));
}

/**
 * The groups found for {@link groupTrafficEndpoints} (each shape's code, first endpoint and count,
 * in the order the shapes first appear) with their key part: each code followed by its count.
 */
export function groupedEndpoints(codes: readonly string[], endpoints: readonly TrafficEndpoint[], counts: readonly number[]): GroupedTrafficEndpoints {
  let key = '';
  for (let i = 0; i < codes.length; i++) key += `${codes[i] as string}${counts[i] as number}`;
  return new GroupedList(key, endpoints, counts);
}

/** The groups {@link groupedEndpoints} makes, with the plans of their figures kept on them (see {@link sharedGroupedFigures}). */
class GroupedList implements GroupedTrafficEndpoints {
  /** Plans by the settings a figures key spells (found without a lookup by object). */
  slots: PlanSlot[] | null = null;

  constructor(
    readonly key: string,
    readonly endpoints: readonly TrafficEndpoint[],
    readonly counts: readonly number[],
  ) {}
}

/** Groups {@link groupTrafficEndpoints} finds by scanning before it keeps a map. */
const GROUPS_SCANNED = 12;

/** Plans {@link sharedGroupedFigures} keeps by key before it starts over (a realistic 10,000-Service pass asks for ~5,300 keys). */
export const FIGURES_PLANS_LIMIT = 16_384;

/** Figures computed on a plan, with the clients and release they were computed for. */
interface PlannedFigures {
  readonly clients: readonly TrafficClientZone[];
  readonly release: TrafficInput['release'];
  readonly figures: TrafficFigures;
}

/** A {@link FiguresPlan} with its key and the figures of the last two sets of clients it was asked for. */
interface KeptPlan extends FiguresPlan {
  readonly key: string;
  last: PlannedFigures | null;
  before: PlannedFigures | null;
}

/** Plans by figures key (with the caller's prefix). */
let PLANS = new Map<string, KeptPlan>();

/** What a {@link trafficFiguresKey} spells besides the grouped endpoints, with the plan of that key. */
interface PlanSlot {
  readonly externalTrafficPolicy: string;
  readonly externallyAccessible: boolean;
  readonly hintsAnnotation: string | null;
  readonly honoursHints: boolean;
  readonly proxied: boolean;
  readonly prefix: string;
  readonly plan: KeptPlan;
}

/** Settings a grouped list keeps plans for (a list meets few). */
const SLOTS_PER_GROUPS = 8;

/** The plan of `grouped` under `input`'s settings (see {@link sharedGroupedFigures}). */
function planOf(input: Pick<TrafficInput, 'service' | 'honoursHints' | 'proxied'>, grouped: GroupedTrafficEndpoints, prefix: string): KeptPlan | null {
  const { service } = input;
  // Lists made by groupedEndpoints (every one the analysis makes) keep their plans' slots.
  const list = grouped instanceof GroupedList ? grouped : null;
  if (list !== null && list.slots !== null) {
    for (const slot of list.slots) {
      if (
        slot.externalTrafficPolicy === service.externalTrafficPolicy &&
        slot.externallyAccessible === service.externallyAccessible &&
        slot.hintsAnnotation === service.hintsAnnotation &&
        slot.honoursHints === input.honoursHints &&
        slot.proxied === input.proxied &&
        slot.prefix === prefix
      )
        return slot.plan;
    }
  }
  const spelled = figuresKeyOf(input, grouped);
  if (spelled === null) return null;
  const key = prefix + spelled;
  let plan = PLANS.get(key);
  if (plan === undefined) {
    // Keys are built piece by piece; the ones kept are laid out in one piece (model/flat-string.ts).
    plan = { key: flatString(key), selections: [], modelled: null, scan: null, last: null, before: null };
    if (PLANS.size >= FIGURES_PLANS_LIMIT) PLANS = new Map();
    PLANS.set(plan.key, plan);
  }
  if (list === null) return plan;
  const slots = (list.slots ??= []);
  if (slots.length < SLOTS_PER_GROUPS) {
    slots.push({
      externalTrafficPolicy: service.externalTrafficPolicy,
      externallyAccessible: service.externallyAccessible,
      hintsAnnotation: service.hintsAnnotation,
      honoursHints: input.honoursHints,
      proxied: input.proxied,
      prefix,
      plan,
    });
  }
  return plan;
}

/**
 * The figures of grouped endpoints under `input` (`computeTrafficFigures` with `counts`), shared
 * by every caller with the same {@link trafficFiguresKey} (`prefix` keeps a state with other gates
 * apart), the same clients object and the same release: one figures object for them all. `null`
 * when the key declines (`internalTrafficPolicy: Local` or node hints: node names matter).
 *
 * Each key keeps a plan (traffic.ts `FiguresPlan`): kube-proxy's selections and the endpoints as
 * the model reads them, found again when the same endpoints and settings meet other clients — after
 * a Node change, every figure of a pass is computed again under new client shares, and only that
 * arithmetic runs. A grouped list kept by its slice list finds its plans without spelling the key.
 * Plans keep the figures of the last two sets of clients (a dashboard and a what-if alternate).
 */
export function sharedGroupedFigures(input: Omit<TrafficInput, 'endpoints' | 'counts'>, grouped: GroupedTrafficEndpoints, prefix = ''): TrafficFigures | null {
  if (input.service.internalTrafficPolicy === 'Local') return null;
  const plan = planOf(input, grouped, prefix);
  if (plan === null) return null;
  const { clients, release } = input;
  const last = plan.last;
  if (last !== null && last.clients === clients && last.release === release) return last.figures;
  const before = plan.before;
  if (before !== null && before.clients === clients && before.release === release) {
    plan.before = last;
    plan.last = before;
    return before.figures;
  }
  const figures = computeGroupedFigures(input, grouped.endpoints, grouped.counts, plan);
  plan.before = last;
  plan.last = { clients, release, figures };
  return figures;
}

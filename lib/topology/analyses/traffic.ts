/**
 * Expected traffic of a Service: which share of its requests goes from each client zone to each
 * endpoint zone under kube-proxy's endpoint selection, how loaded each endpoint is relative to a
 * fair share, the cross-zone fraction, and what that costs per month.
 *
 * Model:
 * - Clients are spread over the client nodes (ready workers with zone and CPU). A zone's share of
 *   the Service's traffic is its CPU share by default — the controller's own assumption — and can
 *   be overridden per zone. Inside a zone, traffic is spread over nodes in proportion to their CPU.
 * - Every client node runs kube-proxy's `CategorizeEndpoints` for the Service with its own zone
 *   and name; in-cluster traffic uses the cluster set (or the local set with
 *   `internalTrafficPolicy: Local`), and each selected endpoint gets an equal share of the node's
 *   traffic (iptables' random rules and IPVS round robin both spread connections evenly).
 * - A node whose selection is empty drops its traffic (counted as dropped, not cross-zone).
 * - Nodes of a zone get the same selection unless the choice depends on the node itself
 *   (`internalTrafficPolicy: Local`, or node hints); only then are nodes hosting endpoints
 *   evaluated one by one, which keeps large Services cheap.
 *
 * What the figures cost is cross-zone-cost.ts; Services whose endpoints look alike share their
 * figures through traffic-figures-memo.ts.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 * @see https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/#how-it-works
 */
import type { ProxyEndpoint, ProxyNode, ProxyRelease, TopologyMode } from '../upstream/proxy-topology';
import type { ProxyServicePort } from '../upstream/proxy-service-port';
import { categorizeEndpointsWithDecision, topologyModeForService } from '../upstream/proxy-topology';
import { sortedKeys } from '../upstream/sorted';
import type { Endpoint, EndpointSlice, ValueByZone } from '../upstream/types';
import { endpointZone } from './endpoint-shape';
import { sharedText } from '../model/flat-string';

/** Column used for endpoints whose zone is unknown (a label value can never look like this). */
export const UNKNOWN_ZONE = '(no zone)';

/**
 * Zones (client and endpoint zones together) beyond which the matrix keeps, per client zone, only
 * its own zone, {@link UNKNOWN_ZONE} and {@link OTHER_ZONES}: a full matrix has zones² cells
 * (10⁸ at 10,000 zones, more than memory holds). The fractions stay exact.
 */
export const MAX_MATRIX_ZONES = 64;

/** Column of a lumped matrix ({@link MAX_MATRIX_ZONES}): every other known zone (a label value can never look like this). */
export const OTHER_ZONES = '(other zones)';

/**
 * Most client zones whose traffic is modelled: kube-proxy's endpoint choice is worked out once per
 * client zone over all of a Service's endpoints, so the work grows with zones × endpoints. Beyond
 * this many zones (no real cluster has more than a few dozen) the cross-zone figures are reported
 * as unknown instead of taking minutes per Service.
 */
export const MAX_TRAFFIC_ZONES = 1_000;

/** The `unknown` message of the cross-zone figures when a cluster has more than {@link MAX_TRAFFIC_ZONES} client zones. */
export function tooManyTrafficZones(zoneCount: number): string {
  return `unknown: the cluster has ${zoneCount} zones with client traffic, more than the ${MAX_TRAFFIC_ZONES} zonescope models traffic for; so many zones usually means a wrong topology.kubernetes.io/zone label`;
}

/** An endpoint as the traffic model sees it: kube-proxy's view plus where it runs. */
export interface TrafficEndpoint extends ProxyEndpoint {
  /** Zone of the endpoint (its `zone` field, else its node's zone), `null` when unknown. */
  readonly zone: string | null;
  readonly nodeName: string | null;
  readonly podName: string | null;
}

/** The client nodes of one zone and the zone's share of the Service's traffic. */
export interface TrafficClientZone {
  readonly zone: string;
  /** Share of all client traffic originating in this zone (shares sum to 1). */
  readonly share: number;
  /** Client nodes with a relative weight inside the zone (e.g. their CPU). */
  readonly nodes: readonly { readonly weight: number; readonly proxyNode: ProxyNode }[];
  /** Σ weight of `nodes`, when the caller has it already (saves a pass over large zones). */
  readonly totalWeight?: number;
}

/** Input of {@link computeTrafficMatrix}. */
export interface TrafficInput {
  readonly endpoints: readonly TrafficEndpoint[];
  readonly service: ProxyServicePort;
  readonly release: ProxyRelease;
  readonly clients: readonly TrafficClientZone[];
  /** `false` when the Service dataplane ignores hints (e.g. Cilium without service topology). */
  readonly honoursHints: boolean;
  /** `false` for headless Services: clients resolve pod IPs through DNS and use any ready one. */
  readonly proxied: boolean;
  /** Sort `endpointLoads` by zone and address (default); `false` keeps slice order, which is cheaper. */
  readonly sortLoads?: boolean;
  /**
   * Every endpoint string is distinct (as {@link toTrafficEndpoints} returns them), so loads can be
   * tracked by position instead of by string. Leave unset for arbitrary lists: equal strings then
   * share one load, as kube-proxy would program them once.
   */
  readonly uniqueEndpoints?: boolean;
  /**
   * How many endpoints each entry of `endpoints` stands for (figures only, see
   * {@link computeTrafficFigures}): entries are then one endpoint per shape, in the order each
   * shape first appears (traffic-figures-memo.ts `groupTrafficEndpoints`). Absent: one each.
   */
  readonly counts?: readonly number[];
}

/** A {@link TrafficInput} without its endpoints: what the figures memo (traffic-figures-memo.ts) takes. */
export type FiguresInput = Omit<TrafficInput, 'endpoints' | 'counts'>;

/**
 * A {@link FiguresInput}, made in this one place so that every caller's object has the same hidden
 * class: the figures code reads these fields for each of the ~5,000 figures of a pass, and objects
 * of several shapes (a spread in one caller, literals in others) made those reads megamorphic.
 */
export function figuresInput(
  release: ProxyRelease,
  clients: readonly TrafficClientZone[],
  honoursHints: boolean,
  proxied: boolean,
  sortLoads: boolean,
  uniqueEndpoints: boolean,
  service: ProxyServicePort,
): FiguresInput {
  return { release, clients, honoursHints, proxied, sortLoads, uniqueEndpoints, service };
}

/** Load of one endpoint. */
export interface EndpointLoad {
  readonly endpoint: string;
  readonly zone: string;
  readonly nodeName: string | null;
  readonly podName: string | null;
  /** Share of the Service's total traffic it receives. */
  readonly load: number;
  /** Load divided by the fair share (delivered traffic / ready endpoints); 1 = fair. */
  readonly relativeLoad: number;
}

/** What kube-proxy did on a zone's nodes. */
export interface ZoneSelection {
  readonly zone: string;
  /** Mode on the zone's representative node; `local` with internalTrafficPolicy Local, `dns` for headless. */
  readonly mode: TopologyMode | 'local' | 'dns';
  readonly message: string;
  /** Endpoints the representative node selects (what it programs for in-cluster traffic). */
  readonly selectedEndpoints: number;
  /** Share of this zone's traffic that is dropped (no endpoint selected). */
  readonly droppedShare: number;
}

/** Result of {@link computeTrafficMatrix}. All fractions are of the Service's total traffic. */
export interface TrafficMatrix {
  readonly clientZones: readonly string[];
  /** Endpoint zones (sorted; {@link UNKNOWN_ZONE} last when present). */
  readonly endpointZones: readonly string[];
  readonly clientShareByZone: Readonly<ValueByZone<number>>;
  /** client zone → endpoint zone → fraction. A row plus its dropped share equals the zone's share. */
  readonly matrix: Readonly<ValueByZone<ValueByZone<number>>>;
  readonly droppedByZone: Readonly<ValueByZone<number>>;
  readonly deliveredFraction: number;
  readonly droppedFraction: number;
  /** Traffic delivered to an endpoint in another (known) zone. */
  readonly crossZoneFraction: number;
  readonly sameZoneFraction: number;
  /** Traffic delivered to endpoints of unknown zone. */
  readonly unknownZoneFraction: number;
  readonly endpointLoads: readonly EndpointLoad[];
  readonly maxRelativeLoad: number;
  readonly selectionByZone: readonly ZoneSelection[];
}

/**
 * kube-proxy's view of the endpoints in `slices` (topology-semantics §11.1): ready and serving are
 * "absent or true", terminating "present and true"; identity is the first address; duplicates keep
 * the first copy. The zone falls back to the endpoint's node zone.
 */
export function toTrafficEndpoints(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>, addressesDistinct = false): TrafficEndpoint[] {
  // With `addressesDistinct` (the caller knows no two endpoints share a first address) no copy is looked for.
  const seen = addressesDistinct ? null : new Set<string>();
  const out: TrafficEndpoint[] = [];
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const address = endpoint.addresses[0];
      if (address === undefined) continue;
      if (seen !== null) {
        if (seen.has(address)) continue;
        seen.add(address);
      }
      out.push(toTrafficEndpoint(endpoint, address, nodeZoneByName));
    }
  }
  return out;
}

/** One endpoint as {@link toTrafficEndpoints} sees it, its first address given. */
export function toTrafficEndpoint(endpoint: Endpoint, address: string, nodeZoneByName: ReadonlyMap<string, string | null>): TrafficEndpoint {
  const zone = endpointZone(endpoint, nodeZoneByName);
  return {
    endpoint: address,
    zoneHints: endpoint.hints?.forZones ?? null,
    nodeHints: endpoint.hints?.forNodes ?? null,
    ready: endpoint.ready !== false,
    serving: endpoint.serving !== false,
    terminating: endpoint.terminating === true,
    isLocal: false,
    zone,
    nodeName: endpoint.nodeName,
    podName: endpoint.podName ?? null,
  };
}

function withoutHints(endpoint: TrafficEndpoint): TrafficEndpoint {
  return { ...endpoint, zoneHints: null, nodeHints: null };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts zones by name with {@link UNKNOWN_ZONE} last. */
function zoneSortKey(zone: string): string {
  return zone === UNKNOWN_ZONE ? '\uffff' : zone;
}

function sortZones(zones: Iterable<string>): string[] {
  return [...zones].sort((a, b) => compareText(zoneSortKey(a), zoneSortKey(b)));
}

/**
 * Σ of a matrix's cells (`total`), and of those whose endpoint zone is another known zone than the
 * client's (`cross`), the client's own (`same`) and {@link UNKNOWN_ZONE} (`unknown`), each added up
 * in the order for…in visits rows and cells (the order Object.entries lists them).
 */
export function matrixSums(matrix: Readonly<ValueByZone<ValueByZone<number>>>): { total: number; cross: number; same: number; unknown: number } {
  let total = 0;
  let cross = 0;
  let same = 0;
  let unknown = 0;
  for (const client in matrix) {
    const row = matrix[client] as ValueByZone<number>;
    for (const zone in row) {
      const value = row[zone] as number;
      total += value;
      if (zone === UNKNOWN_ZONE) unknown += value;
      else if (zone === client) same += value;
      else cross += value;
    }
  }
  return { total, cross, same, unknown };
}

/** The figures of a {@link TrafficMatrix} a cluster-wide report keeps (see {@link computeTrafficFigures}). */
export interface TrafficFigures {
  readonly clientShareByZone: Readonly<ValueByZone<number>>;
  readonly droppedFraction: number;
  readonly crossZoneFraction: number;
  readonly maxRelativeLoad: number;
  readonly selectionByZone: readonly ZoneSelection[];
  /** `endpointLoads.length` of the matrix. */
  readonly loadedEndpoints: number;
  /**
   * client zone → endpoint zone → fraction, as {@link TrafficMatrix.matrix} (lumped the same way
   * beyond {@link MAX_MATRIX_ZONES}): what the cluster-wide flow figures sum, at no extra cost.
   */
  readonly matrix: Readonly<ValueByZone<ValueByZone<number>>>;
}

/**
 * The client zone → endpoint zone traffic matrix of one Service under kube-proxy's selection
 * (model in this file's header), with per-endpoint load, dropped and cross-zone fractions.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go (CategorizeEndpoints)
 */
export function computeTrafficMatrix(input: TrafficInput): TrafficMatrix {
  return trafficModel(input, true) as TrafficMatrix;
}

/**
 * The figures of {@link computeTrafficMatrix} without the per-endpoint load list (same arithmetic,
 * same values), for analyses of every Service where only the totals are kept.
 *
 * With `counts`, each entry stands for that many endpoints of the same shape (zone, zone hints,
 * conditions; no node hints, no `internalTrafficPolicy: Local`: nothing node by node). The figures
 * are then bit for bit those of the list spelled out, as long as the entries keep the order in
 * which their shapes first appear: kube-proxy's choice is a filter by shape plus checks that some
 * or every endpoint passes one, every endpoint of a shape gets the same load, a row's zones are
 * added in the order their first selected endpoint comes, and each cell adds `each × count` once
 * either way.
 */
export function computeTrafficFigures(input: TrafficInput): TrafficFigures {
  return trafficModel(input, false) as TrafficFigures;
}

/** Client zones sorted by zone (the list as given when it is sorted already). */
function clientsByZone(clients: readonly TrafficClientZone[]): readonly TrafficClientZone[] {
  for (let i = 1; i < clients.length; i++) {
    if ((clients[i - 1] as TrafficClientZone).zone > (clients[i] as TrafficClientZone).zone) {
      return [...clients].sort((a, b) => (a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0));
    }
  }
  return clients;
}

/**
 * Whether the zones of `byZone` (sorted) come out of a record keyed by them in their own order:
 * none repeats and none reads as an array index (those keys come first, by number). Kept by list
 * (the clients' lists are made once per preparation).
 */
function zonesKeepOrder(byZone: readonly TrafficClientZone[]): boolean {
  let known = KEEP_ORDER.get(byZone);
  if (known === undefined) {
    known = true;
    for (let i = 0; i < byZone.length && known; i++) {
      const zone = (byZone[i] as TrafficClientZone).zone;
      if (isIndexKey(zone)) known = false;
      else if (i > 0 && (byZone[i - 1] as TrafficClientZone).zone === zone) known = false;
    }
    KEEP_ORDER.set(byZone, known);
  }
  return known;
}

const KEEP_ORDER = new WeakMap<readonly TrafficClientZone[], boolean>();
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** Whether a record's key `key` is an array index (such keys come first, by number, not in the order they were set). */
function isIndexKey(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) < 4_294_967_295;
}

// Per-call scratch buffers for loads by position (the model is synchronous and not re-entrant).
let loadsBuffer = new Float64Array(64);
let loadedBuffer = new Uint8Array(64);

function scratchLoads(length: number): Float64Array {
  if (loadsBuffer.length < length) loadsBuffer = new Float64Array(Math.max(length, loadsBuffer.length * 2));
  loadsBuffer.fill(0, 0, length);
  return loadsBuffer;
}

function scratchLoaded(length: number): Uint8Array {
  if (loadedBuffer.length < length) loadedBuffer = new Uint8Array(Math.max(length, loadedBuffer.length * 2));
  loadedBuffer.fill(0, 0, length);
  return loadedBuffer;
}

/** Where each selected endpoint sits in the list it was selected from (selections are filters, so in order). */
function positionsOf(base: readonly TrafficEndpoint[], selected: readonly TrafficEndpoint[], visit: (position: number) => void): void {
  let i = 0;
  for (const endpoint of selected) {
    while (i < base.length && base[i] !== endpoint) i++;
    if (i < base.length) {
      visit(i++);
      continue;
    }
    // Not an in-order sub-list of `base` (not produced by the selection functions): match by identity string.
    const found = base.findIndex((e) => e.endpoint === endpoint.endpoint);
    if (found >= 0) visit(found);
    i = 0;
  }
}

function trafficModel(input: TrafficInput, full: boolean): TrafficMatrix | TrafficFigures {
  const { service, release, counts } = input;
  const endpoints = input.honoursHints && input.proxied ? input.endpoints : input.endpoints.map(withoutHints);
  if (counts !== undefined && (full || counts.length !== endpoints.length)) throw new Error('traffic model: counts apply to the figures of a grouped endpoint list only');
  if (counts !== undefined && input.uniqueEndpoints === true) return groupedFigures(input, endpoints, counts);
  // How many endpoints an entry stands for (1 each without `counts`).
  let countOf: ((endpoint: TrafficEndpoint) => number) | null = null;
  if (counts !== undefined) {
    const byEntry = new Map<TrafficEndpoint, number>();
    endpoints.forEach((endpoint, i) => byEntry.set(endpoint, counts[i] as number));
    countOf = (endpoint) => byEntry.get(endpoint) ?? 1;
  }
  const countAll = (list: readonly TrafficEndpoint[]): number => {
    if (countOf === null) return list.length;
    let total = 0;
    for (const endpoint of list) total += countOf(endpoint);
    return total;
  };
  const internalLocal = service.internalTrafficPolicy === 'Local' && (release.minor >= 26 || release.gates.ServiceInternalTrafficPolicy);
  let hasNodeHints = false;
  for (const endpoint of endpoints) {
    if (endpoint.nodeHints && endpoint.nodeHints.length > 0) {
      hasNodeHints = true;
      break;
    }
  }
  const perNode = input.proxied && (internalLocal || hasNodeHints);
  if (perNode && counts !== undefined) throw new Error('traffic model: grouped endpoints cannot be evaluated node by node');
  const hostNodes = new Set<string>();
  if (perNode) {
    for (const endpoint of endpoints) {
      if (endpoint.nodeName !== null) hostNodes.add(endpoint.nodeName);
      if (endpoint.nodeHints) for (const name of endpoint.nodeHints) hostNodes.add(name);
    }
  }

  const matrix: ValueByZone<ValueByZone<number>> = {};
  const droppedByZone: ValueByZone<number> = {};
  const clientShareByZone: ValueByZone<number> = {};
  // Load per endpoint: by position when endpoint strings are distinct, else by endpoint string.
  const byPosition = input.uniqueEndpoints === true;
  const loadByEndpoint = new Map<string, number>();
  const loadAt = byPosition ? scratchLoads(endpoints.length) : null;
  const loadedAt = byPosition ? scratchLoaded(endpoints.length) : null;
  const selectionByZone: ZoneSelection[] = [];
  const endpointZone = (endpoint: TrafficEndpoint) => endpoint.zone ?? UNKNOWN_ZONE;
  const endpointZones = new Set<string>();
  for (const endpoint of endpoints) if (endpoint.ready) endpointZones.add(endpointZone(endpoint));
  let lumped = endpointZones.size > MAX_MATRIX_ZONES;
  if (!lumped) {
    const allZones = new Set(endpointZones);
    for (const client of input.clients) allZones.add(client.zone);
    lumped = allZones.size > MAX_MATRIX_ZONES;
  }

  // 1. Walk client zones; evaluate each distinct node situation once. Without any hint the
  //    selection is the same on every node, so it is computed once and its load added at the end.
  const zoneIndependent = !perNode && endpoints.every((e) => (e.zoneHints?.length ?? 0) === 0 && (e.nodeHints?.length ?? 0) === 0);
  type Selection = {
    selected: readonly TrafficEndpoint[];
    /** The list `selected` was filtered from (positions match `endpoints`). */
    base: readonly TrafficEndpoint[];
    selection: Omit<ZoneSelection, 'droppedShare' | 'selectedEndpoints'>;
    selectedByZone: Map<string, number>;
    /** Endpoints selected (entries times their counts). */
    selectedCount: number;
  };
  let shared: Selection | null = null;
  let sharedLoad = 0;
  const select = (node: ProxyNode, zone: string): Selection => {
    let selected: readonly TrafficEndpoint[];
    let base: readonly TrafficEndpoint[] = endpoints;
    let selection: Selection['selection'];
    if (!input.proxied) {
      selected = endpoints.filter((e) => e.ready);
      selection = { zone, mode: 'dns', message: 'headless: clients pick any ready pod IP from DNS' };
    } else {
      // isLocal only changes the local set, which only node-by-node evaluation reads.
      const local = perNode ? endpoints.map((e) => (e.nodeName === node.name ? { ...e, isLocal: true } : e)) : endpoints;
      base = local;
      const { categorized, decision } = categorizeEndpointsWithDecision(local, service, node, release);
      selected = (internalLocal ? categorized.localEndpoints : categorized.clusterEndpoints) ?? [];
      if (internalLocal) {
        selection = { zone, mode: 'local', message: 'internalTrafficPolicy: Local — only endpoints on the client node' };
      } else {
        const chosen = decision ?? topologyModeForService(local, service, node, release);
        selection = { zone, mode: chosen.mode, message: chosen.message };
      }
    }
    const selectedByZone = new Map<string, number>();
    for (const endpoint of selected) {
      const z = endpointZone(endpoint);
      // The zones of selected endpoints that are not ready (fallbacks) are listed only with the full matrix.
      if (full) endpointZones.add(z);
      selectedByZone.set(z, (selectedByZone.get(z) ?? 0) + (countOf === null ? 1 : countOf(endpoint)));
    }
    return { selected, base, selection, selectedByZone, selectedCount: countAll(selected) };
  };
  for (const client of clientsByZone(input.clients)) {
    clientShareByZone[client.zone] = client.share;
    const row: ValueByZone<number> = {};
    matrix[client.zone] = row;
    droppedByZone[client.zone] = 0;
    const totalWeight = client.totalWeight ?? client.nodes.reduce((sum, node) => sum + node.weight, 0);
    if (client.nodes.length === 0 || client.share === 0) {
      selectionByZone.push({ zone: client.zone, mode: 'none', message: 'no client traffic from this zone', selectedEndpoints: 0, droppedShare: 0 });
      continue;
    }
    const groups: { node: ProxyNode; weight: number }[] = [];
    if (perNode) {
      let rest: { node: ProxyNode; weight: number } | null = null;
      for (const node of client.nodes) {
        if (hostNodes.has(node.proxyNode.name)) groups.push({ node: node.proxyNode, weight: node.weight });
        else if (rest) rest.weight += node.weight;
        else rest = { node: node.proxyNode, weight: node.weight };
      }
      if (rest) groups.unshift(rest);
    } else {
      const first = client.nodes[0];
      if (first) groups.push({ node: first.proxyNode, weight: totalWeight });
    }
    let zoneDropped = 0;
    let representative: ZoneSelection | null = null;
    for (const group of groups) {
      const share = client.share * (totalWeight > 0 ? group.weight / totalWeight : 1 / groups.length);
      const current: Selection = zoneIndependent && shared ? shared : select(group.node, client.zone);
      if (zoneIndependent) shared = current;
      const { selected, selection, selectedByZone, selectedCount } = current;
      if (!representative) representative = { zone: client.zone, mode: selection.mode, message: selection.message, selectedEndpoints: selectedCount, droppedShare: 0 };
      if (selectedCount === 0) {
        zoneDropped += share;
        continue;
      }
      const each = share / selectedCount;
      if (lumped) {
        // Own zone, unknown zone, and the rest in one column: O(1) per client zone.
        const own = selectedByZone.get(client.zone) ?? 0;
        const unknownCount = selectedByZone.get(UNKNOWN_ZONE) ?? 0;
        const others = selectedCount - own - unknownCount;
        if (own > 0) row[client.zone] = (row[client.zone] ?? 0) + each * own;
        if (unknownCount > 0) row[UNKNOWN_ZONE] = (row[UNKNOWN_ZONE] ?? 0) + each * unknownCount;
        if (others > 0) row[OTHER_ZONES] = (row[OTHER_ZONES] ?? 0) + each * others;
      } else {
        for (const [zone, count] of selectedByZone) row[zone] = (row[zone] ?? 0) + each * count;
      }
      if (zoneIndependent) sharedLoad += each;
      else if (loadAt && loadedAt) {
        positionsOf(current.base, selected, (i) => {
          loadAt[i] = (loadAt[i] as number) + each;
          loadedAt[i] = 1;
        });
      } else for (const endpoint of selected) loadByEndpoint.set(endpoint.endpoint, (loadByEndpoint.get(endpoint.endpoint) ?? 0) + each);
    }
    droppedByZone[client.zone] = zoneDropped;
    if (representative) {
      selectionByZone.push({
        zone: representative.zone,
        mode: representative.mode,
        // Most zones of most Services say the same: one copy of each text (model/flat-string.ts).
        message: sharedText(representative.message),
        selectedEndpoints: representative.selectedEndpoints,
        droppedShare: client.share > 0 ? zoneDropped / client.share : 0,
      });
    }
  }

  if (shared) {
    const { base, selected } = shared;
    if (loadAt && loadedAt) {
      positionsOf(base, selected, (i) => {
        loadAt[i] = sharedLoad;
        loadedAt[i] = 1;
      });
    } else for (const endpoint of selected) loadByEndpoint.set(endpoint.endpoint, sharedLoad);
  }

  // 2. Totals.
  const { total: delivered, cross, same, unknown } = matrixSums(matrix);
  let totalShare = 0;
  for (const zone in clientShareByZone) totalShare += clientShareByZone[zone] as number;
  let dropped = 0;
  for (const zone in droppedByZone) dropped += droppedByZone[zone] as number;
  const norm = (value: number) => (totalShare > 0 ? clamp01(value / totalShare) : 0);

  // 3. Per-endpoint load against a fair share.
  const rawLoad = (e: TrafficEndpoint, i: number): number => (loadAt ? (loadAt[i] as number) : (loadByEndpoint.get(e.endpoint) ?? 0));
  const hasLoad = (e: TrafficEndpoint, i: number): boolean => (loadedAt ? loadedAt[i] === 1 : loadByEndpoint.has(e.endpoint));
  const pool: number[] = [];
  endpoints.forEach((e, i) => {
    if (e.ready) pool.push(i);
  });
  if (pool.length === 0) {
    endpoints.forEach((e, i) => {
      if (hasLoad(e, i)) pool.push(i);
    });
  }
  let poolCount = pool.length;
  if (countOf !== null) {
    poolCount = 0;
    for (const i of pool) poolCount += countOf(endpoints[i] as TrafficEndpoint);
  }
  const fair = poolCount > 0 ? delivered / poolCount : 0;
  const crossZoneFraction = norm(cross);
  const droppedFraction = norm(dropped);
  if (!full) {
    let maxRelativeLoad = 0;
    for (const i of pool) {
      const e = endpoints[i] as TrafficEndpoint;
      maxRelativeLoad = Math.max(maxRelativeLoad, fair > 0 ? rawLoad(e, i) / fair : 0);
    }
    const figures: TrafficFigures = { clientShareByZone, droppedFraction, crossZoneFraction, maxRelativeLoad, selectionByZone, loadedEndpoints: poolCount, matrix };
    return figures;
  }
  const endpointLoads: EndpointLoad[] = pool.map((i) => {
    const e = endpoints[i] as TrafficEndpoint;
    const raw = rawLoad(e, i);
    return { endpoint: e.endpoint, zone: endpointZone(e), nodeName: e.nodeName, podName: e.podName, load: norm(raw), relativeLoad: fair > 0 ? raw / fair : 0 };
  });
  if (input.sortLoads !== false) endpointLoads.sort((a, b) => compareText(zoneSortKey(a.zone), zoneSortKey(b.zone)) || compareText(a.endpoint, b.endpoint));

  return {
    clientZones: sortedKeys(matrix),
    endpointZones: lumped ? lumpedColumns(matrix) : sortZones(endpointZones),
    clientShareByZone,
    matrix,
    droppedByZone,
    deliveredFraction: norm(delivered),
    droppedFraction,
    crossZoneFraction,
    sameZoneFraction: norm(same),
    unknownZoneFraction: norm(unknown),
    endpointLoads,
    maxRelativeLoad: endpointLoads.reduce((m, e) => Math.max(m, e.relativeLoad), 0),
    selectionByZone,
  };
}

/** The columns of a lumped matrix: the zones its rows name, {@link OTHER_ZONES} then {@link UNKNOWN_ZONE} last. */
function lumpedColumns(matrix: Readonly<ValueByZone<ValueByZone<number>>>): string[] {
  const columns = new Set<string>();
  for (const clientZone in matrix) for (const zone in matrix[clientZone]) columns.add(zone);
  const named = sortZones([...columns].filter((z) => z !== OTHER_ZONES && z !== UNKNOWN_ZONE));
  return [...named, ...(columns.has(OTHER_ZONES) ? [OTHER_ZONES] : []), ...(columns.has(UNKNOWN_ZONE) ? [UNKNOWN_ZONE] : [])];
}

function clamp01(value: number): number {
  return value < 0 ? 0 : value > 1 ? 1 : value;
}

/** `value` over the clients' total share, within 0–1 (0 without clients). */
function shareOf(value: number, totalShare: number): number {
  return totalShare > 0 ? clamp01(value / totalShare) : 0;
}

const CLIENT_SHARES = new WeakMap<readonly TrafficClientZone[], { readonly clientShareByZone: Readonly<ValueByZone<number>>; readonly totalShare: number }>();

/** `clientShareByZone` as {@link trafficModel} builds it (zones in order) and its sum, once per clients list. */
function clientShares(clients: readonly TrafficClientZone[]): { readonly clientShareByZone: Readonly<ValueByZone<number>>; readonly totalShare: number } {
  let known = CLIENT_SHARES.get(clients);
  if (known === undefined) {
    const clientShareByZone: ValueByZone<number> = {};
    for (const client of clientsByZone(clients)) clientShareByZone[client.zone] = client.share;
    let totalShare = 0;
    for (const zone in clientShareByZone) totalShare += clientShareByZone[zone] as number;
    known = { clientShareByZone: Object.freeze(clientShareByZone), totalShare };
    CLIENT_SHARES.set(clients, known);
  }
  return known;
}

/** The endpoints kube-proxy selects on one client node, as {@link groupedFigures} adds them up. */
interface GroupSelection {
  readonly mode: ZoneSelection['mode'];
  /** The decision's message, one copy per text (model/flat-string.ts). */
  readonly message: string;
  /** Positions of the selected entries in the grouped list, in order. */
  readonly positions: readonly number[];
  /** Zones of the selected endpoints in the order they first come, and how many each has. */
  readonly zones: readonly string[];
  readonly zoneCounts: readonly number[];
  /** Endpoints selected (entries times their counts). */
  readonly count: number;
  /** No zone of `zones` reads as an array index: a row keyed by them keeps their order. */
  readonly zonesInOrder: boolean;
  /** Its `selectionByZone` entries by client zone position (see `clientsByZone`), made when first asked (see {@link zoneSelectionOf}). */
  entries: (ZoneSelection | undefined)[] | null;
}

/**
 * A zone's entry of `selectionByZone` for a selection: one frozen object per selection and zone
 * (figures are kept by the thousand, and a selection kept across passes serves many), made afresh
 * only for a dropped share other than a selection's own (all of it when nothing is selected, else none).
 */
function zoneSelectionOf(selection: GroupSelection, position: number, zone: string, droppedShare: number): ZoneSelection {
  const fresh = (): ZoneSelection => ({ zone, mode: selection.mode, message: selection.message, selectedEndpoints: selection.count, droppedShare });
  if (droppedShare !== (selection.count === 0 ? 1 : 0)) return fresh();
  // By the client zone's position (an array read, not a lookup by name: this runs for every client
  // zone of every figures object); the entry is the zone's own only when it names the same zone.
  const entries = (selection.entries ??= []);
  let entry = entries[position];
  if (entry === undefined || entry.zone !== zone) {
    entry = Object.freeze(fresh());
    entries[position] = entry;
  }
  return entry;
}

const NO_CLIENT_TRAFFIC = new Map<string, ZoneSelection>();

/** The entry of a zone without client traffic, one frozen object per zone. */
function noClientTraffic(zone: string): ZoneSelection {
  let entry = NO_CLIENT_TRAFFIC.get(zone);
  if (entry === undefined) {
    if (NO_CLIENT_TRAFFIC.size >= MAX_TRAFFIC_ZONES) NO_CLIENT_TRAFFIC.clear();
    entry = Object.freeze({ zone, mode: 'none', message: 'no client traffic from this zone', selectedEndpoints: 0, droppedShare: 0 } as const);
    NO_CLIENT_TRAFFIC.set(zone, entry);
  }
  return entry;
}

/** A selection a {@link FiguresPlan} keeps for one client zone's position, with the release and node it was made on. */
interface PlannedSelection {
  readonly release: ProxyRelease;
  readonly node: ProxyNode;
  readonly selection: GroupSelection;
}

/**
 * What the figures of one grouped endpoint list under one set of Service settings (one
 * `trafficFiguresKey`) keep from one computation to the next: kube-proxy's selection for each
 * client zone (by its position in the clients), with the release and node object it was made on,
 * and the endpoints as the model reads them. A pass after a Node change computes the figures of
 * every such list again under the new client shares; the selections and endpoints are found here,
 * without a lookup by key. The caller keeps one plan per key (traffic-figures-memo.ts); a plan
 * holds nothing of a particular computation's clients.
 */
export interface FiguresPlan {
  /** By client zone position (see `clientsByZone`); a slot is used only for the same release and node object. */
  readonly selections: (PlannedSelection | undefined)[];
  /** The endpoints as {@link trafficModel} reads them (hints dropped when not honoured), for the `endpoints` object they were made from. */
  modelled: { readonly from: readonly TrafficEndpoint[]; readonly endpoints: readonly TrafficEndpoint[] } | null;
  /** What the figures read of the modelled endpoints whatever the clients (hints, readiness), for the list it was made for. */
  scan: GroupScan | null;
}

/**
 * {@link computeTrafficFigures} of a grouped endpoint list (`counts`; `uniqueEndpoints`), with what
 * `plan` kept of earlier computations on the same endpoints and settings: the same figures, bit for
 * bit, as without it.
 */
export function computeGroupedFigures(input: GroupedInput, grouped: readonly TrafficEndpoint[], counts: readonly number[], plan: FiguresPlan): TrafficFigures {
  if (input.uniqueEndpoints !== true || counts.length !== grouped.length) throw new Error('traffic model: a figures plan applies to the figures of a grouped endpoint list only');
  let endpoints = grouped;
  if (!(input.honoursHints && input.proxied)) {
    const modelled = plan.modelled;
    if (modelled !== null && modelled.from === grouped) endpoints = modelled.endpoints;
    else {
      endpoints = grouped.map(withoutHints);
      plan.modelled = { from: grouped, endpoints };
    }
  }
  return groupedFigures(input, endpoints, counts, plan);
}

/** What {@link groupedFigures} reads of a {@link TrafficInput} besides the endpoints it is given. */
type GroupedInput = Omit<TrafficInput, 'endpoints' | 'counts'>;

/** What {@link groupedFigures} reads of a grouped list whatever the clients (see {@link scanOf}). */
interface GroupScan {
  /** The list it was made for. */
  readonly endpoints: readonly TrafficEndpoint[];
  readonly hasNodeHints: boolean;
  /** No entry carries hints: every client zone selects the same endpoints. */
  readonly zoneIndependent: boolean;
  readonly anyReady: boolean;
  /** Endpoints of the ready entries (entries times their counts). */
  readonly readyCount: number;
}

/** The {@link GroupScan} of `endpoints`: `plan`'s when it was made for the same list. */
function scanOf(endpoints: readonly TrafficEndpoint[], counts: readonly number[], plan: FiguresPlan | null): GroupScan {
  const kept = plan === null ? null : plan.scan;
  if (kept !== null && kept.endpoints === endpoints) return kept;
  let hasNodeHints = false;
  let zoneIndependent = true;
  let anyReady = false;
  let readyCount = 0;
  for (let i = 0; i < endpoints.length; i++) {
    const endpoint = endpoints[i] as TrafficEndpoint;
    const nodeHinted = (endpoint.nodeHints?.length ?? 0) > 0;
    if (nodeHinted) hasNodeHints = true;
    if (nodeHinted || (endpoint.zoneHints?.length ?? 0) > 0) zoneIndependent = false;
    if (endpoint.ready) {
      anyReady = true;
      readyCount += counts[i] as number;
    }
  }
  const scan: GroupScan = { endpoints, hasNodeHints, zoneIndependent, anyReady, readyCount };
  if (plan !== null) plan.scan = scan;
  return scan;
}

/** The endpoints kube-proxy selects on `node` among a grouped list (see {@link GroupSelection}). */
function selectGroups(input: GroupedInput, endpoints: readonly TrafficEndpoint[], counts: readonly number[], node: ProxyNode): GroupSelection {
  const { service, release } = input;
  let selected: readonly TrafficEndpoint[];
  let mode: ZoneSelection['mode'];
  let message: string;
  if (!input.proxied) {
    selected = endpoints.filter((e) => e.ready);
    mode = 'dns';
    message = 'headless: clients pick any ready pod IP from DNS';
  } else {
    const { categorized, decision } = categorizeEndpointsWithDecision(endpoints, service, node, release);
    selected = categorized.clusterEndpoints ?? [];
    const chosen = decision ?? topologyModeForService(endpoints, service, node, release);
    mode = chosen.mode;
    message = chosen.message;
  }
  const positions: number[] = [];
  const zones: string[] = [];
  const zoneCounts: number[] = [];
  let count = 0;
  let at = 0;
  for (const endpoint of selected) {
    while (at < endpoints.length && endpoints[at] !== endpoint) at++;
    let position: number;
    let each: number;
    if (at < endpoints.length) {
      position = at++;
      each = counts[position] as number;
    } else {
      // Not an in-order sub-list (the selection functions are filters): as trafficModel does.
      position = endpoints.findIndex((e) => e.endpoint === endpoint.endpoint);
      each = 1;
      at = 0;
    }
    if (position >= 0) positions.push(position);
    const z = endpoint.zone ?? UNKNOWN_ZONE;
    const known = zones.indexOf(z);
    if (known >= 0) zoneCounts[known] = (zoneCounts[known] as number) + each;
    else {
      zones.push(z);
      zoneCounts.push(each);
    }
    count += each;
  }
  let zonesInOrder = true;
  for (let k = 0; k < zones.length && zonesInOrder; k++) zonesInOrder = !isIndexKey(zones[k] as string);
  return { mode, message: sharedText(message), positions, zones, zoneCounts, count, zonesInOrder, entries: null };
}

/**
 * The selection on `node` for the client zone at `position`: `plan`'s when it was made on the same
 * release and node. (Module functions, not closures in {@link groupedFigures}: a pass computes a
 * few thousand figures, and two closures with their context for each were garbage at once.)
 */
function selectGroupsAt(input: GroupedInput, endpoints: readonly TrafficEndpoint[], counts: readonly number[], plan: FiguresPlan | null, position: number, node: ProxyNode): GroupSelection {
  if (plan === null) return selectGroups(input, endpoints, counts, node);
  const { release } = input;
  const planned = plan.selections[position];
  if (planned !== undefined && planned.node === node && planned.release === release) return planned.selection;
  const selection = selectGroups(input, endpoints, counts, node);
  plan.selections[position] = { release, node, selection };
  return selection;
}

/**
 * {@link trafficModel}'s figures of a grouped endpoint list (`counts`, `uniqueEndpoints`): the same
 * arithmetic in the same order, so the same values bit for bit, without the general path's
 * per-call maps and closures (a cluster pass asks for a few thousand such figures). Each client
 * zone is one group of nodes here: grouped endpoints never need node-by-node evaluation.
 */
function groupedFigures(input: GroupedInput, endpoints: readonly TrafficEndpoint[], counts: readonly number[], plan: FiguresPlan | null = null): TrafficFigures {
  const { service, release } = input;
  const internalLocal = service.internalTrafficPolicy === 'Local' && (release.minor >= 26 || release.gates.ServiceInternalTrafficPolicy);
  const { hasNodeHints, zoneIndependent, anyReady, readyCount } = scanOf(endpoints, counts, plan);
  // The zones are counted only where there can be more than the matrix shows (one per entry at most).
  const endpointZones = endpoints.length + input.clients.length > MAX_MATRIX_ZONES ? new Set<string>() : null;
  if (endpointZones !== null) for (const endpoint of endpoints) if (endpoint.ready) endpointZones.add(endpoint.zone ?? UNKNOWN_ZONE);
  if (input.proxied && (internalLocal || hasNodeHints)) throw new Error('traffic model: grouped endpoints cannot be evaluated node by node');
  let lumped = endpointZones !== null && endpointZones.size > MAX_MATRIX_ZONES;
  if (endpointZones !== null && !lumped && endpointZones.size + input.clients.length > MAX_MATRIX_ZONES) {
    const allZones = new Set(endpointZones);
    for (const client of input.clients) allZones.add(client.zone);
    lumped = allZones.size > MAX_MATRIX_ZONES;
  }
  const matrix: ValueByZone<ValueByZone<number>> = {};
  // The same for every figures object of these clients: one shared (read-only) record and its sum.
  const { clientShareByZone, totalShare } = clientShares(input.clients);
  const loadAt = scratchLoads(endpoints.length);
  const loadedAt = scratchLoaded(endpoints.length);
  let shared: GroupSelection | null = null;
  let sharedLoad = 0;
  // Indexed loops in this function: a for…of makes an iterator result per step until the JIT has
  // optimised the function, and a pass asks for thousands of figures.
  const byZone = clientsByZone(input.clients);
  // The dropped shares add up in the order of the zones as keys of a record (trafficModel's
  // order): that is the clients' order unless a zone repeats or reads as an array index (see
  // zonesKeepOrder), and only then is the record made.
  const droppedByZone: ValueByZone<number> | null = zonesKeepOrder(byZone) ? null : {};
  let dropped = 0;
  // The matrix's totals are added up as its cells are set when its rows and columns keep the
  // order they are set in (matrixSums reads them in the records' order), else read afterwards.
  let sumsInline = droppedByZone === null;
  let delivered = 0;
  let cross = 0;
  const selectionByZone: ZoneSelection[] = new Array<ZoneSelection>(byZone.length);
  for (let position = 0; position < byZone.length; position++) {
    const client = byZone[position] as TrafficClientZone;
    const row: ValueByZone<number> = {};
    matrix[client.zone] = row;
    if (droppedByZone !== null) droppedByZone[client.zone] = 0;
    const first = client.nodes[0];
    if (first === undefined || client.share === 0) {
      selectionByZone[position] = noClientTraffic(client.zone);
      continue;
    }
    const totalWeight = client.totalWeight ?? client.nodes.reduce((sum, node) => sum + node.weight, 0);
    // The zone's nodes as one group: its weight over the zone's is the whole share.
    const share = client.share * (totalWeight > 0 ? totalWeight / totalWeight : 1);
    const current: GroupSelection = zoneIndependent && shared !== null ? shared : selectGroupsAt(input, endpoints, counts, plan, position, first.proxyNode);
    if (zoneIndependent) shared = current;
    let zoneDropped = 0;
    if (current.count === 0) zoneDropped += share;
    else {
      const each = share / current.count;
      if (lumped) {
        let own = 0;
        let unknownCount = 0;
        for (let k = 0; k < current.zones.length; k++) {
          if (current.zones[k] === client.zone) own = current.zoneCounts[k] as number;
          else if (current.zones[k] === UNKNOWN_ZONE) unknownCount = current.zoneCounts[k] as number;
        }
        const others = current.count - own - unknownCount;
        // A fresh row: each of its three cells is set once, `0 + x`, in this order.
        if (own > 0) {
          const value = 0 + each * own;
          row[client.zone] = value;
          delivered += value;
        }
        if (unknownCount > 0) {
          const value = 0 + each * unknownCount;
          row[UNKNOWN_ZONE] = value;
          delivered += value;
        }
        if (others > 0) {
          // (A client zone cannot be named like the lumped column, but were it so, its cell adds up.)
          const prior = row[OTHER_ZONES];
          if (prior !== undefined) sumsInline = false;
          const value = (prior ?? 0) + each * others;
          row[OTHER_ZONES] = value;
          delivered += value;
          cross += value;
        }
      } else {
        if (!current.zonesInOrder) sumsInline = false;
        // Each zone once per row (the selection's zones are distinct), so `(row[zone] ?? 0) + x` is `0 + x`.
        for (let k = 0; k < current.zones.length; k++) {
          const zone = current.zones[k] as string;
          const value = 0 + each * (current.zoneCounts[k] as number);
          row[zone] = value;
          delivered += value;
          if (zone !== client.zone && zone !== UNKNOWN_ZONE) cross += value;
        }
      }
      if (zoneIndependent) sharedLoad += each;
      else {
        const { positions } = current;
        for (let k = 0; k < positions.length; k++) {
          const i = positions[k] as number;
          loadAt[i] = (loadAt[i] as number) + each;
          loadedAt[i] = 1;
        }
      }
    }
    if (droppedByZone !== null) droppedByZone[client.zone] = zoneDropped;
    else dropped += zoneDropped;
    selectionByZone[position] = zoneSelectionOf(current, position, client.zone, client.share > 0 ? zoneDropped / client.share : 0);
  }
  if (shared !== null) {
    const { positions } = shared;
    for (let k = 0; k < positions.length; k++) {
      const i = positions[k] as number;
      loadAt[i] = sharedLoad;
      loadedAt[i] = 1;
    }
  }

  // Totals, added up in trafficModel's order.
  if (!sumsInline) {
    const sums = matrixSums(matrix);
    delivered = sums.total;
    cross = sums.cross;
  }
  if (droppedByZone !== null) for (const zone in droppedByZone) dropped += droppedByZone[zone] as number;
  // Load against a fair share, over the ready endpoints (else those that got any).
  let poolCount = readyCount;
  if (!anyReady) for (let i = 0; i < endpoints.length; i++) if (loadedAt[i] === 1) poolCount += counts[i] as number;
  const fair = poolCount > 0 ? delivered / poolCount : 0;
  let maxRelativeLoad = 0;
  for (let i = 0; i < endpoints.length; i++) {
    if (anyReady ? !(endpoints[i] as TrafficEndpoint).ready : loadedAt[i] !== 1) continue;
    maxRelativeLoad = Math.max(maxRelativeLoad, fair > 0 ? (loadAt[i] as number) / fair : 0);
  }
  return { clientShareByZone, droppedFraction: shareOf(dropped, totalShare), crossZoneFraction: shareOf(cross, totalShare), maxRelativeLoad, selectionByZone, loadedEndpoints: poolCount, matrix };
}

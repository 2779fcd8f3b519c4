/**
 * Layout of the Service zone map (see `service-zone-map.tsx`): which endpoints go where, tiles or
 * per-kind bars, donation arrows and every text, as a plain serialisable model. Pure: the page
 * computes it on the server and `ZoneMapFigure` draws it in the browser.
 */
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';
import type { Kind, ZoneMapArrow, ZoneMapColumn, ZoneMapModel, ZoneMapTile } from './zone-map-style';
import { BAR_ROW, BAR_X, GAP, HEADER, KINDS, LANE, ORDER, PAD, STYLE, TILE, TILE_GAP, WIDTH } from './zone-map-style';

/** Up to this many endpoints, one tile each; above, one bar per kind of endpoint per zone. */
export const MAX_TILE_ENDPOINTS = 60;
/** Above this many donated endpoints, arrows are drawn per zone pair instead of per endpoint. */
const MAX_ARROWS = 12;

interface Tile {
  readonly endpoint: EndpointView;
  readonly kind: Kind;
  readonly targets: readonly string[];
  x: number;
  y: number;
}

interface ZoneSummary {
  ready: number;
  notReady: number;
  own: number;
  donatedOut: number;
  received: number;
  noHint: number;
  readonly byKind: Record<Kind, number>;
  /** Donated or shared endpoints of this zone per zone they are hinted for. */
  readonly targets: Map<string, number>;
}

function classify(endpoint: EndpointView, hints: readonly string[] | null): { kind: Kind; targets: readonly string[] } {
  if (endpoint.ready === false) return { kind: 'not-ready', targets: [] };
  if (!hints || hints.length === 0) return { kind: 'none', targets: [] };
  const others = hints.filter((z) => z !== endpoint.zone);
  if (others.length === 0) return { kind: 'own', targets: [] };
  return { kind: others.length === hints.length ? 'donated' : 'shared', targets: others };
}

function shortLabel(endpoint: EndpointView): string {
  const address = endpoint.address;
  if (address.includes(':')) return address.split(':').filter(Boolean).pop()?.slice(-4) ?? address;
  const last = address.split('.').pop();
  return last ? `.${last}` : address;
}

function truncate(text: string, width: number, charWidth = 7.6): string {
  const max = Math.max(4, Math.floor(width / charWidth));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Lays the map out: columns, tiles or bars, arrows and every text. Pure. */
export function zoneMapModel(endpoints: readonly EndpointView[], zones: readonly string[], mode: 'observed' | 'expected'): ZoneMapModel {
  const columns = [...zones];
  if (endpoints.some((e) => e.zone === null) && !columns.includes(UNKNOWN_ZONE)) columns.push(UNKNOWN_ZONE);
  const columnIndex = new Map(columns.map((z, i) => [z, i]));
  const n = Math.max(1, columns.length);
  const colWidth = (WIDTH - GAP * (n - 1)) / n;
  const perRow = Math.max(1, Math.floor((colWidth - 2 * PAD + TILE_GAP) / (TILE + TILE_GAP)));
  const tiled = endpoints.length <= MAX_TILE_ENDPOINTS;
  const byZone = new Map<string, Tile[]>(columns.map((z) => [z, []]));
  const summaries = new Map<string, ZoneSummary>(
    columns.map((z) => [z, { ready: 0, notReady: 0, own: 0, donatedOut: 0, received: 0, noHint: 0, byKind: { own: 0, donated: 0, shared: 0, none: 0, 'not-ready': 0 }, targets: new Map() }]),
  );
  const pairCounts = new Map<string, { from: string; to: string; count: number }>();
  for (const endpoint of endpoints) {
    const zone = endpoint.zone ?? UNKNOWN_ZONE;
    const hints = mode === 'observed' ? endpoint.observedHints : endpoint.expectedHints;
    const { kind, targets } = classify(endpoint, hints);
    const summary = summaries.get(zone);
    if (!summary) continue;
    if (tiled) byZone.get(zone)?.push({ endpoint, kind, targets, x: 0, y: 0 });
    summary.byKind[kind]++;
    if (kind === 'not-ready') summary.notReady++;
    else summary.ready++;
    if (kind === 'own' || kind === 'shared') summary.own++;
    if (kind === 'donated' || kind === 'shared') summary.donatedOut++;
    if (kind === 'none') summary.noHint++;
    for (const target of targets) {
      const t = summaries.get(target);
      if (t) t.received++;
      summary.targets.set(target, (summary.targets.get(target) ?? 0) + 1);
      if (!columnIndex.has(target)) continue;
      const key = `${zone}->${target}`;
      const pair = pairCounts.get(key) ?? { from: zone, to: target, count: 0 };
      pair.count++;
      pairCounts.set(key, pair);
    }
  }
  const colX = (zone: string) => (columnIndex.get(zone) ?? 0) * (colWidth + GAP);
  const hops = (from: string, to: string) => Math.abs((columnIndex.get(to) ?? 0) - (columnIndex.get(from) ?? 0));

  // Tiles (small Services).
  let maxRows = 1;
  const tiles: ZoneMapTile[] = [];
  for (const [zone, zoneTiles] of byZone) {
    // Donations to farther zones first (leftmost): their arrows arc higher, so arcs nest instead of crossing.
    const reach = (tile: Tile) => Math.max(0, ...tile.targets.map((t) => hops(zone, t)));
    zoneTiles.sort((a, b) => ORDER[a.kind] - ORDER[b.kind] || reach(b) - reach(a) || a.endpoint.address.localeCompare(b.endpoint.address));
    const column = columnIndex.get(zone) ?? 0;
    zoneTiles.forEach((tile, i) => {
      tile.x = PAD + (i % perRow) * (TILE + TILE_GAP);
      tile.y = HEADER + LANE + 8 + Math.floor(i / perRow) * (TILE + TILE_GAP);
      const e = tile.endpoint;
      const hintText = (mode === 'observed' ? e.observedHints : e.expectedHints)?.join(', ') ?? 'none';
      const title = `${e.address}${e.podName ? ` (${e.podName})` : ''} on ${e.nodeName ?? 'unknown node'} — ${STYLE[tile.kind].label}; hints: ${hintText}${e.terminating ? '; terminating' : ''}`;
      tiles.push([column, tile.x, tile.y, tile.kind, shortLabel(e), title]);
    });
    maxRows = Math.max(maxRows, Math.ceil(zoneTiles.length / perRow));
  }

  // Bars (large Services): one row per kind that some zone has, aligned across the columns.
  const barKinds = tiled ? [] : KINDS.filter((kind) => [...summaries.values()].some((s) => s.byKind[kind] > 0));
  const barMax = Math.max(1, ...[...summaries.values()].flatMap((s) => KINDS.map((kind) => s.byKind[kind])));
  const track = Math.max(10, colWidth - BAR_X - PAD);
  const height = tiled ? HEADER + LANE + 8 + maxRows * (TILE + TILE_GAP) + PAD : HEADER + LANE + 8 + Math.max(1, barKinds.length) * BAR_ROW + PAD;

  // Arrows: per donated endpoint while few, else per zone pair.
  const arrows: ZoneMapArrow[] = [];
  const arrowsPerTarget = new Map<string, number>();
  for (const [zone, zoneTiles] of byZone) {
    for (const tile of zoneTiles) {
      for (const target of tile.targets) {
        if (!columnIndex.has(target)) continue;
        const fx = colX(zone) + tile.x + TILE / 2;
        const fy = tile.y;
        const slot = arrowsPerTarget.get(target) ?? 0;
        arrowsPerTarget.set(target, slot + 1);
        const tx = colX(target) + colWidth - PAD - 10 - (slot % 4) * 12;
        const ty = HEADER + 24;
        // Farther targets arc higher (never above the column header), so an arrow does not run through a nearer zone's arrowhead.
        const lane = Math.max(HEADER, HEADER + 22 - 10 * hops(zone, target));
        arrows.push({ key: `${tile.endpoint.address}->${target}`, d: `M${fx},${fy} C${fx},${lane} ${tx},${lane} ${tx},${ty}`, count: null, fx, fy });
      }
    }
  }
  const perPair = !tiled || arrows.length > MAX_ARROWS;
  if (perPair) {
    arrows.length = 0;
    const pairs = [...pairCounts.values()];
    for (const pair of pairs) {
      const sameTarget = pairs.filter((p) => p.to === pair.to);
      const fx = colX(pair.from) + colWidth / 2;
      const fy = HEADER + 34;
      const tx = colX(pair.to) + colWidth - PAD - 120 + sameTarget.indexOf(pair) * 28;
      const ty = HEADER + 22;
      const lane = HEADER + 6;
      arrows.push({ key: `${pair.from}->${pair.to}`, d: `M${fx},${fy} C${fx},${lane} ${tx},${lane} ${tx},${ty}`, count: pair.count, fx, fy });
    }
  }

  const modelColumns: ZoneMapColumn[] = columns.map((zone) => {
    const s = summaries.get(zone) as ZoneSummary;
    const targets = [...s.targets].sort(([a], [b]) => compareText(a, b));
    return {
      zone,
      title: truncate(zone, colWidth - 2 * PAD, 8.2),
      counts: truncate(`${s.ready} ready${s.notReady > 0 ? ` · ${s.notReady} not ready` : ''}`, colWidth - 2 * PAD, 6.8),
      flows: truncate(s.received > 0 || s.donatedOut > 0 ? `receives ${s.received} · donates ${s.donatedOut}` : s.own > 0 ? `${s.own} hinted for this zone` : 'no zone hints', colWidth - 2 * PAD, 6.4),
      donations: targets.map(([target, n]) => `${n} → ${target}`).join(', '),
      x: colX(zone),
      bad: zone === UNKNOWN_ZONE,
      ready: s.ready,
      notReady: s.notReady,
      own: s.own,
      donatedOut: s.donatedOut,
      received: s.received,
      noHint: s.noHint,
      bars: barKinds.map((kind) => {
        const count = s.byKind[kind];
        const style = STYLE[kind];
        const away = kind === 'donated' || kind === 'shared' ? targets : [];
        const where = kind === 'donated' && count > 0 ? (away.length === 1 ? ` → ${away[0]?.[0] ?? ''}` : away.length > 1 ? ` → ${away.length} zones` : '') : '';
        return {
          kind,
          count,
          text: truncate(`${count} ${style.counted}${where}`, track, 6.4),
          title: `${zone}: ${count} endpoint(s) ${style.counted}${away.length > 0 ? ` (hinted for ${away.map(([z, c]) => `${z}: ${c}`).join(', ')})` : ''}`,
          width: count > 0 ? Math.max(2, (count / barMax) * track) : 0,
        };
      }),
    };
  });
  const label =
    `Endpoints by zone, hints ${mode === 'observed' ? 'on the slices now' : 'expected after the controller\u2019s next sync'}. ` +
    modelColumns.map((s) => `${s.zone}: ${s.ready} ready, ${s.own} hinted for own zone, ${s.donatedOut} donated out, receives ${s.received}, ${s.noHint} without hint, ${s.notReady} not ready`).join('; ') +
    '.';
  return {
    mode,
    height,
    colWidth,
    label,
    tiled,
    maxTileEndpoints: MAX_TILE_ENDPOINTS,
    columns: modelColumns,
    tiles,
    arrows,
    perPair,
    totalDonated: modelColumns.reduce((sum, c) => sum + c.donatedOut, 0),
  };
}

const MODELS = new WeakMap<readonly EndpointView[], Map<string, ZoneMapModel>>();

/** {@link zoneMapModel}, memoised per endpoint list (the analysis hands out the same list until the Service changes). */
export function cachedZoneMapModel(endpoints: readonly EndpointView[], zones: readonly string[], mode: 'observed' | 'expected'): ZoneMapModel {
  let byKey = MODELS.get(endpoints);
  if (!byKey) {
    byKey = new Map();
    MODELS.set(endpoints, byKey);
  }
  const key = `${mode}\n${zones.join('\n')}`;
  let model = byKey.get(key);
  if (!model) {
    model = zoneMapModel(endpoints, zones, mode);
    byKey.set(key, model);
  }
  return model;
}


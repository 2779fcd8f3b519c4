/**
 * Geometry and the vocabulary of the Service zone map, shared by the server (which lays the map
 * out, see `service-zone-map.tsx`) and the browser component that draws it (`zone-map-figure.tsx`).
 */

export const WIDTH = 1160;
export const GAP = 28;
export const HEADER = 64;
/** Band under the column header where donation arrows arrive. */
export const LANE = 44;
export const PAD = 12;
export const TILE = 34;
export const TILE_GAP = 8;
/** Height of one bar row of the aggregated columns. */
export const BAR_ROW = 40;
/** Left edge of a bar and its label in an aggregated column (right of the kind's tile). */
export const BAR_X = PAD + 34;

export type Kind = 'own' | 'donated' | 'shared' | 'none' | 'not-ready';

export const STYLE: Record<Kind, { fill: string; stroke: string; dash?: string; glyph: string; label: string; counted: string }> = {
  own: { fill: 'var(--map-hint-own)', stroke: 'var(--map-hint-own-stroke)', glyph: '✓', label: 'Hinted for its own zone', counted: 'hinted for own zone' },
  donated: { fill: 'var(--map-hint-donated)', stroke: 'var(--map-hint-donated-stroke)', glyph: '→', label: 'Donated: hinted for another zone', counted: 'donated' },
  shared: { fill: 'var(--map-hint-donated)', stroke: 'var(--map-hint-donated-stroke)', dash: '4 2', glyph: '+', label: 'Hinted for its zone and others', counted: 'hinted for own zone and others' },
  none: { fill: 'var(--map-hint-none)', stroke: 'var(--map-hint-none-stroke)', glyph: '', label: 'Ready, no zone hint', counted: 'ready, no zone hint' },
  'not-ready': { fill: 'none', stroke: 'var(--map-hint-none-stroke)', dash: '3 3', glyph: '×', label: 'Not ready (not routed to)', counted: 'not ready' },
};

/** Drawing order of the kinds (tiles and bars): donations first, so their arrows start leftmost. */
export const ORDER: Record<Kind, number> = { donated: 0, shared: 1, own: 2, none: 3, 'not-ready': 4 };
export const KINDS: readonly Kind[] = (Object.keys(ORDER) as Kind[]).sort((a, b) => ORDER[a] - ORDER[b]);

/** One zone of the map, with every text already laid out. */
export interface ZoneMapColumn {
  readonly zone: string;
  /** Zone name shortened to the column width. */
  readonly title: string;
  /** `84 ready · 2 not ready`, shortened. */
  readonly counts: string;
  /** `receives 12 · donates 0`, shortened. */
  readonly flows: string;
  /** Where this zone's donated endpoints go, whole (`2 → us-east-1c, 1 → us-east-1b`); `''` when none. */
  readonly donations: string;
  readonly x: number;
  /** The column of endpoints without a zone (drawn as a problem). */
  readonly bad: boolean;
  readonly ready: number;
  readonly notReady: number;
  readonly own: number;
  readonly donatedOut: number;
  readonly received: number;
  readonly noHint: number;
  /** Aggregated map: one bar per kind in {@link ZoneMapModel.barKinds} order. */
  readonly bars: readonly ZoneMapBar[];
}

export interface ZoneMapBar {
  readonly kind: Kind;
  readonly count: number;
  /** `3 donated → us-east-1c`, shortened. */
  readonly text: string;
  /** The full sentence for the tooltip. */
  readonly title: string;
  readonly width: number;
}

/** One endpoint's tile: column, position in the column, kind, short label, tooltip. */
export type ZoneMapTile = readonly [column: number, x: number, y: number, kind: Kind, label: string, title: string];

/** A donation arrow: per endpoint (`count` null) or per zone pair with its count at the source. */
export interface ZoneMapArrow {
  readonly key: string;
  readonly d: string;
  readonly count: number | null;
  /** Source point of a per-pair arrow (where its count is labelled). */
  readonly fx: number;
  readonly fy: number;
}

/** Everything the figure draws: computed on the server, so the browser gets numbers and texts, not endpoints. */
export interface ZoneMapModel {
  readonly mode: 'observed' | 'expected';
  readonly height: number;
  readonly colWidth: number;
  readonly label: string;
  /** One tile per endpoint (small Services) or one bar per kind and zone. */
  readonly tiled: boolean;
  /** Endpoints up to which the map draws tiles. */
  readonly maxTileEndpoints: number;
  readonly columns: readonly ZoneMapColumn[];
  readonly tiles: readonly ZoneMapTile[];
  readonly arrows: readonly ZoneMapArrow[];
  /** Arrows join zone pairs (many donations) instead of endpoints. */
  readonly perPair: boolean;
  readonly totalDonated: number;
}

/**
 * The Overview zone map: zones as columns, nodes as tiles whose area follows allocatable CPU, with
 * the topology cache's view of each node as colour + glyph + legend (never colour alone). Nodes
 * without a zone label get their own highlighted column; the node that switches hints off for the
 * whole cluster is outlined and named.
 *
 * Each zone's head says what sets it apart (./zone-glance.ts): its CPU share against an even share
 * (a bar with the even mark) and its share of the ready endpoints (a second bar), the endpoints the
 * `Auto` heuristic moves in or out, and the share of its clients' traffic served in another zone.
 * The same facts are the SVG's text alternative, and a few sentences above the map sum them up.
 *
 * Large zones (thousands of nodes) are drawn with counted nodes grouped by CPU size (`×N`), while
 * every flagged node keeps its own tile, so the SVG stays a few hundred elements at 5,000 nodes.
 */
import type { ClusterReport } from '@/lib/topology/report/analysis-schema';
import type { NodeReport } from '@/lib/topology/analyses/analyze-zones';
import { formatCount, formatCpu, formatPercent } from '../ui/format';
import type { ZoneGlance, ZoneMapGlance } from './zone-glance';
import { formatPoints } from './zone-glance';

const WIDTH = 1160;
const GAP = 16;
const HEADER = 148;
const PAD = 10;
const TILE_GAP = 6;
const MIN_SIDE = 16;
const MAX_SIDE = 46;
/** Largest side of a grouped tile (many nodes of one size). */
const MAX_GROUP_SIDE = 150;
/** Above this many nodes in a zone, counted nodes are grouped by CPU size. */
const GROUP_ABOVE = 80;
/** Flagged tiles drawn per zone at most (the rest are counted in a "+N" note). */
const MAX_FLAGGED = 60;
export const NO_ZONE_COLUMN = '(no zone label)';

type TileKind = NodeReport['status'];

interface Tile {
  readonly key: string;
  readonly kind: TileKind;
  readonly side: number;
  readonly label: string;
  readonly sublabel?: string;
  readonly count: number;
  readonly disablesHints: boolean;
  readonly title: string;
  x: number;
  y: number;
}

interface Column {
  readonly name: string;
  readonly noZone: boolean;
  readonly ratio: number | null;
  readonly cpuMillis: number;
  readonly nodes: number;
  readonly counted: number;
  readonly tiles: Tile[];
  readonly hiddenFlagged: number;
  x: number;
  width: number;
  height: number;
}

const GLYPH: Record<TileKind, string> = {
  counted: '',
  'excluded-control-plane': 'CP',
  'not-ready': '!',
  'missing-zone': '?',
  'missing-cpu': '∅',
};

/** CSS classes of a tile kind (fill/stroke via theme variables). */
function tileStyle(kind: TileKind): { fill: string; stroke: string; dash?: string } {
  switch (kind) {
    case 'counted':
      return { fill: 'var(--map-counted)', stroke: 'var(--map-counted-stroke)' };
    case 'excluded-control-plane':
      return { fill: 'url(#zs-hatch)', stroke: 'var(--map-tile-stroke)', dash: '3 2' };
    case 'not-ready':
      return { fill: 'var(--map-notready)', stroke: 'var(--map-notready-stroke)', dash: '4 2' };
    default:
      return { fill: 'var(--map-bad)', stroke: 'var(--map-bad-stroke)' };
  }
}

function sideFor(cpu: number | null, maxCpu: number): number {
  if (cpu === null || cpu <= 0 || maxCpu <= 0) return 24;
  return Math.round(MIN_SIDE + (MAX_SIDE - MIN_SIDE) * Math.sqrt(cpu / maxCpu));
}

function nodeTitle(node: NodeReport): string {
  return `${node.name}: ${node.note}${node.unschedulable ? ' (cordoned)' : ''}`;
}

/** Builds the columns and tiles (positions filled by {@link layout}). */
function buildColumns(cluster: ClusterReport): Column[] {
  const maxCpu = Math.max(0, ...cluster.nodes.map((n) => n.allocatableCpuMillis ?? 0));
  const byZone = new Map<string, NodeReport[]>();
  for (const node of cluster.nodes) {
    const key = node.zone === null || node.zone === '' ? NO_ZONE_COLUMN : node.zone;
    const list = byZone.get(key);
    if (list) list.push(node);
    else byZone.set(key, [node]);
  }
  const names = cluster.zones.map((z) => z.name);
  for (const key of byZone.keys()) if (key !== NO_ZONE_COLUMN && !names.includes(key)) names.push(key);
  names.sort();
  if (byZone.has(NO_ZONE_COLUMN)) names.push(NO_ZONE_COLUMN);
  // Large clusters: counted nodes are grouped by CPU size in every zone (one scale for all zones).
  const grouped = [...byZone.values()].some((nodes) => nodes.length > GROUP_ABOVE);
  let maxGroupCpu = 0;
  if (grouped) {
    for (const nodes of byZone.values()) {
      const totals = new Map<number, number>();
      for (const node of nodes) if (node.status === 'counted') totals.set(node.allocatableCpuMillis ?? 0, (totals.get(node.allocatableCpuMillis ?? 0) ?? 0) + (node.allocatableCpuMillis ?? 0));
      for (const total of totals.values()) maxGroupCpu = Math.max(maxGroupCpu, total);
    }
  }
  return names.map((name) => {
    const nodes = byZone.get(name) ?? [];
    const zone = cluster.zones.find((z) => z.name === name);
    const tiles: Tile[] = [];
    let hiddenFlagged = 0;
    const flagged = nodes.filter((n) => n.status !== 'counted');
    const counted = nodes.filter((n) => n.status === 'counted');
    // Flagged first (they matter most), the disabling node(s) at the very front.
    flagged.sort((a, b) => Number(b.disablesHints) - Number(a.disablesHints) || a.name.localeCompare(b.name));
    for (const [i, node] of flagged.entries()) {
      if (i >= MAX_FLAGGED) {
        hiddenFlagged++;
        continue;
      }
      tiles.push({ key: node.name, kind: node.status, side: sideFor(node.allocatableCpuMillis, maxCpu), label: GLYPH[node.status], count: 1, disablesHints: node.disablesHints, title: nodeTitle(node), x: 0, y: 0 });
    }
    if (grouped) {
      const groups = new Map<number, number>();
      for (const node of counted) groups.set(node.allocatableCpuMillis ?? 0, (groups.get(node.allocatableCpuMillis ?? 0) ?? 0) + 1);
      for (const [cpu, count] of [...groups.entries()].sort((a, b) => b[0] - a[0])) {
        // A group's area follows its total CPU, so zones of different size still look different.
        const side = Math.round(MAX_SIDE + (MAX_GROUP_SIDE - MAX_SIDE) * Math.sqrt((cpu * count) / Math.max(1, maxGroupCpu)));
        tiles.push({ key: `group-${cpu}`, kind: 'counted', side, label: `×${count}`, sublabel: `${formatCpu(cpu)} each`, count, disablesHints: false, title: `${count} counted node(s) with ${formatCpu(cpu)} each (${formatCpu(cpu * count)} in total)`, x: 0, y: 0 });
      }
    } else {
      counted.sort((a, b) => (b.allocatableCpuMillis ?? 0) - (a.allocatableCpuMillis ?? 0) || a.name.localeCompare(b.name));
      for (const node of counted) tiles.push({ key: node.name, kind: 'counted', side: sideFor(node.allocatableCpuMillis, maxCpu), label: '', count: 1, disablesHints: false, title: nodeTitle(node), x: 0, y: 0 });
    }
    return {
      name,
      noZone: name === NO_ZONE_COLUMN,
      ratio: zone?.cpuRatio ?? null,
      cpuMillis: zone?.cpuMillis ?? 0,
      nodes: nodes.length,
      counted: zone?.countedNodes ?? 0,
      tiles,
      hiddenFlagged,
      x: 0,
      width: 0,
      height: 0,
    };
  });
}

/** Places columns side by side and flows tiles into rows inside each column. */
function layout(columns: Column[]): number {
  const n = Math.max(1, columns.length);
  const width = (WIDTH - GAP * (n - 1)) / n;
  let maxHeight = 0;
  columns.forEach((column, i) => {
    column.x = i * (width + GAP);
    column.width = width;
    let x = PAD;
    let y = HEADER + PAD;
    let rowHeight = 0;
    for (const tile of column.tiles) {
      if (x + tile.side > width - PAD && x > PAD) {
        x = PAD;
        y += rowHeight + TILE_GAP;
        rowHeight = 0;
      }
      tile.x = x;
      tile.y = y;
      x += tile.side + TILE_GAP;
      rowHeight = Math.max(rowHeight, tile.side);
    }
    column.height = y + rowHeight + PAD + (column.hiddenFlagged > 0 || column.tiles.some((t) => t.disablesHints) ? 22 : 0);
    maxHeight = Math.max(maxHeight, column.height);
  });
  return Math.max(maxHeight, HEADER + 60);
}

function truncate(text: string, width: number, charWidth = 7.2): string {
  const max = Math.max(4, Math.floor(width / charWidth));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Columns laid out once per cluster report: at 5,000 nodes building them is the map's main cost, and every render of one analysis draws the same. */
const LAYOUTS = new WeakMap<ClusterReport, { readonly columns: readonly Column[]; readonly height: number }>();

function laidOut(cluster: ClusterReport): { readonly columns: readonly Column[]; readonly height: number } {
  let laid = LAYOUTS.get(cluster);
  if (!laid) {
    const columns = buildColumns(cluster);
    laid = { columns, height: layout(columns) };
    LAYOUTS.set(cluster, laid);
  }
  return laid;
}

/** The lines of a zone's head after its name and CPU bar (the SVG draws them; the text alternative says them). */
export function zoneLines(zone: ZoneGlance | undefined, glance: ZoneMapGlance): { readonly cpu: string | null; readonly endpoints: string; readonly donated: string; readonly crossZone: string } {
  if (zone === undefined) return { cpu: null, endpoints: 'no endpoint counted', donated: 'Auto: not counted', crossZone: 'cross-zone: not counted' };
  const cpu = zone.cpuShare !== null && zone.deviationPoints !== null ? `${formatPercent(zone.cpuShare)} of CPU · ${formatPoints(zone.deviationPoints)} vs even` : null;
  const endpoints = `${formatCount(zone.readyEndpoints)} ready endpoint${zone.readyEndpoints === 1 ? '' : 's'}${zone.endpointShare !== null ? ` · ${formatPercent(zone.endpointShare)}` : ''}`;
  const n = Math.abs(zone.donatedIn);
  const donated =
    glance.autoServices === 0
      ? 'Auto: no Service has its hints on'
      : zone.donatedIn > 0
        ? `Auto: ${formatCount(n)} endpoint${n === 1 ? '' : 's'} donated in`
        : zone.donatedIn < 0
          ? `Auto: ${formatCount(n)} endpoint${n === 1 ? '' : 's'} donated out`
          : 'Auto: none donated in or out';
  const crossZone = zone.crossZoneShare === null ? 'cross-zone: no traffic from here' : `cross-zone: ${formatPercent(zone.crossZoneShare)} of its clients' traffic`;
  return { cpu, endpoints, donated, crossZone };
}

/** The map's text alternative: every column with its nodes and the facts of its head. */
export function zoneMapSummary(cluster: ClusterReport, glance: ZoneMapGlance): string {
  const { columns } = laidOut(cluster);
  const byZone = new Map(glance.zones.map((z) => [z.zone, z]));
  const disabling = cluster.nodes.filter((n) => n.disablesHints);
  const zones = columns.map((c) => {
    if (c.noZone) return `${c.name}: ${c.nodes} nodes, not counted`;
    const lines = zoneLines(byZone.get(c.name), glance);
    return [`${c.name}: ${c.counted} of ${c.nodes} nodes counted`, lines.cpu ?? 'no CPU ratio', lines.endpoints, lines.donated, lines.crossZone].join(', ');
  });
  return `${columns.length} zone column(s), ${cluster.nodes.length} nodes. ${zones.join('; ')}${disabling.length > 0 ? `. ${disabling.map((n) => n.name).join(', ')} disables hints cluster-wide.` : '.'}`;
}

export function ClusterZoneMap({ cluster, glance }: { readonly cluster: ClusterReport; readonly glance: ZoneMapGlance }) {
  const { columns, height } = laidOut(cluster);
  const summary = zoneMapSummary(cluster, glance);
  const byZone = new Map(glance.zones.map((z) => [z.zone, z]));
  return (
    <figure className="space-y-2">
      <p className="text-sm" data-testid="zone-map-verdict">
        {glance.sentences.join(' ')}
      </p>
      <ZoneFactsList glance={glance} />
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Node tiles by zone, scrollable sideways">
        <svg viewBox={`0 0 ${WIDTH} ${height}`} className="h-auto w-full min-w-[720px]" role="img" aria-label={`Zone map. ${summary}`}>
          <defs>
            <pattern id="zs-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="6" height="6" fill="var(--map-excluded)" />
              <line x1="0" y1="0" x2="0" y2="6" stroke="var(--map-tile-stroke)" strokeWidth="1.5" />
            </pattern>
          </defs>
          {columns.map((column) => (
            <g key={column.name} transform={`translate(${column.x},0)`}>
              <rect
                width={column.width}
                height={height}
                rx={8}
                fill={column.noZone ? 'var(--map-bad)' : 'var(--map-column)'}
                stroke={column.noZone ? 'var(--map-bad-stroke)' : 'var(--map-column-stroke)'}
                strokeWidth={column.noZone ? 2 : 1}
                strokeDasharray={column.noZone ? '6 3' : undefined}
              />
              <text x={PAD} y={20} fontSize={14} fontWeight={600} fill="var(--map-text)">
                <title>{column.name}</title>
                {truncate(column.noZone ? '⚠ no zone label' : column.name, column.width - 2 * PAD, 8)}
              </text>
              <ZoneHead column={column} zone={byZone.get(column.name)} glance={glance} />
              {column.tiles.map((tile) => {
                const style = tileStyle(tile.kind);
                return (
                  <g key={tile.key} transform={`translate(${tile.x},${tile.y})`}>
                    <title>{tile.title}</title>
                    <rect
                      width={tile.side}
                      height={tile.side}
                      rx={3}
                      fill={style.fill}
                      stroke={tile.disablesHints ? 'var(--map-bad-stroke)' : style.stroke}
                      strokeWidth={tile.disablesHints ? 3 : 1.25}
                      strokeDasharray={tile.disablesHints ? undefined : style.dash}
                    />
                    {tile.label ? (
                      <text x={tile.side / 2} y={tile.side / 2 + (tile.sublabel && tile.side >= 64 ? -2 : 4)} textAnchor="middle" fontSize={tile.side >= 64 ? 13 : tile.label.length > 2 ? 10 : 11} fontWeight={700} fill="var(--map-text)">
                        {tile.label}
                      </text>
                    ) : null}
                    {tile.sublabel && tile.side >= 64 ? (
                      <text x={tile.side / 2} y={tile.side / 2 + 14} textAnchor="middle" fontSize={10} fill="var(--map-text)">
                        {tile.sublabel}
                      </text>
                    ) : null}
                  </g>
                );
              })}
              {column.hiddenFlagged > 0 ? (
                <text x={PAD} y={height - 10} fontSize={11} fill="var(--map-muted)">
                  +{column.hiddenFlagged} more flagged node(s) (listed below)
                </text>
              ) : column.tiles.some((t) => t.disablesHints) ? (
                <text x={PAD} y={height - 10} fontSize={11} fontWeight={600} fill="var(--map-bad-stroke)">
                  <title>{`${column.tiles.filter((t) => t.disablesHints).map((t) => t.key).join(', ')} disable(s) hints for every Service`}</title>
                  {truncate(`${column.tiles.find((t) => t.disablesHints)?.key ?? ''}: hints off cluster-wide`, column.width - 2 * PAD, 6.2)}
                </text>
              ) : null}
            </g>
          ))}
        </svg>
      </div>
      <figcaption>
        <ul className="flex flex-wrap gap-x-5 gap-y-1 text-xs text-slate-700 dark:text-slate-300">
          <LegendItem fill="var(--map-counted)" stroke="var(--map-counted-stroke)" label="Counted (Ready worker with zone and CPU)" />
          <LegendItem fill="var(--map-notready)" stroke="var(--map-notready-stroke)" dash="4 2" glyph="!" label="Not Ready (skipped)" />
          <LegendItem fill="url(#zs-hatch-legend)" stroke="var(--map-tile-stroke)" dash="3 2" glyph="CP" label="Control plane (excluded)" hatch />
          <LegendItem fill="var(--map-bad)" stroke="var(--map-bad-stroke)" glyph="?" label="Missing zone label" />
          <LegendItem fill="var(--map-bad)" stroke="var(--map-bad-stroke)" glyph="∅" label="Missing allocatable CPU" />
          <LegendItem fill="var(--map-bad)" stroke="var(--map-bad-stroke)" thick label="Thick outline: disables hints cluster-wide" />
          <li>Tile area ∝ allocatable CPU{columns.some((c) => c.tiles.some((t) => t.count > 1)) ? '; “×N” groups counted nodes of one size' : ''}. Hover a tile for the node.</li>
          <li>
            Bars: the zone&apos;s share of CPU (blue) and of ready endpoints (green); the mark is an even share. Auto gives each zone endpoints in proportion to its CPU and donates
            the difference from other zones.
          </li>
        </ul>
      </figcaption>
    </figure>
  );
}

/**
 * The zones' heads as text, on a phone only: there the map scrolls sideways at a scale too small to
 * read its heads. Hidden from screen readers, which have the same facts as the map's text alternative.
 */
function ZoneFactsList({ glance }: { readonly glance: ZoneMapGlance }) {
  return (
    <ul className="grid gap-2 text-xs sm:hidden" aria-hidden="true" data-testid="zone-facts-phone">
      {glance.zones.map((zone) => {
        const lines = zoneLines(zone, glance);
        return (
          <li key={zone.zone} className="rounded-md border border-slate-200 px-2.5 py-1.5 dark:border-slate-700">
            <p className="font-mono font-semibold">{zone.zone}</p>
            {lines.cpu !== null ? <p>{lines.cpu}</p> : null}
            <p>{lines.endpoints}</p>
            <p className={zone.donatedIn !== 0 ? 'font-semibold text-violet-800 dark:text-violet-300' : undefined}>{lines.donated}</p>
            <p>{lines.crossZone}</p>
          </li>
        );
      })}
    </ul>
  );
}

/** A bar of a share (0–1) with the even share marked: `y` is its top. */
function ShareBar({ width, y, share, even, fill, label }: { readonly width: number; readonly y: number; readonly share: number; readonly even: number | null; readonly fill: string; readonly label: string }) {
  return (
    <g>
      <title>{label}</title>
      <rect x={PAD} y={y} width={width} height={7} rx={3.5} fill="var(--map-tile)" />
      <rect x={PAD} y={y} width={Math.max(2, width * Math.min(1, share))} height={7} rx={3.5} fill={fill} />
      {even !== null ? <line x1={PAD + width * even} x2={PAD + width * even} y1={y - 3} y2={y + 10} stroke="var(--map-text)" strokeWidth={1.5} /> : null}
    </g>
  );
}

/**
 * A zone's head: its name; its CPU share against an even share (bar with the even mark) and its
 * share of the ready endpoints (bar); the endpoints Auto moves in or out; the share of its clients'
 * traffic served in another zone; its counted nodes.
 */
function ZoneHead({ column, zone, glance }: { readonly column: Column; readonly zone: ZoneGlance | undefined; readonly glance: ZoneMapGlance }) {
  const inner = column.width - 2 * PAD;
  if (column.noZone) {
    return (
      <>
        <text x={PAD} y={42} fontSize={12} fill="var(--map-muted)">
          {truncate('not counted: hints off cluster-wide', inner, 6.6)}
        </text>
        <text x={PAD} y={HEADER - 12} fontSize={11} fill="var(--map-muted)">
          {truncate(`${column.nodes} node(s) without a zone label`, inner, 6.2)}
        </text>
      </>
    );
  }
  const lines = zoneLines(zone, glance);
  const deviation = zone?.deviationPoints ?? 0;
  return (
    <>
      {column.ratio !== null ? (
        <>
          <ShareBar width={inner} y={30} share={column.ratio} even={glance.evenShare} fill="var(--map-counted-stroke)" label={`CPU: ${formatPercent(column.ratio)}; the mark is an even share (${formatPercent(glance.evenShare)})`} />
          <text x={PAD} y={55} fontSize={12} fill="var(--map-text)" fontWeight={Math.abs(deviation) >= 5 ? 600 : 400}>
            {truncate(`${lines.cpu ?? ''} · ${formatCpu(column.cpuMillis)}`, inner, 6.6)}
          </text>
        </>
      ) : (
        <text x={PAD} y={42} fontSize={12} fill="var(--map-muted)">
          {truncate('no CPU ratio (cluster not eligible)', inner, 6.6)}
        </text>
      )}
      {zone?.endpointShare != null ? (
        <ShareBar width={inner} y={64} share={zone.endpointShare} even={glance.evenShare} fill="var(--map-hint-own-stroke)" label={`Ready endpoints: ${formatPercent(zone.endpointShare)} of the cluster's`} />
      ) : null}
      <text x={PAD} y={89} fontSize={12} fill="var(--map-text)">
        {truncate(lines.endpoints, inner, 6.6)}
      </text>
      <text x={PAD} y={106} fontSize={12} fill={zone !== undefined && zone.donatedIn !== 0 ? 'var(--map-hint-donated-stroke)' : 'var(--map-text)'} fontWeight={zone !== undefined && zone.donatedIn !== 0 ? 600 : 400}>
        {truncate(lines.donated, inner, 6.6)}
      </text>
      <text x={PAD} y={123} fontSize={12} fill="var(--map-text)">
        {truncate(lines.crossZone, inner, 6.6)}
      </text>
      <text x={PAD} y={HEADER - 12} fontSize={11} fill="var(--map-muted)">
        {truncate(`${column.counted} of ${column.nodes} node(s) counted`, inner, 6.2)}
      </text>
    </>
  );
}

function LegendItem({ fill, stroke, label, glyph, dash, thick, hatch }: { readonly fill: string; readonly stroke: string; readonly label: string; readonly glyph?: string; readonly dash?: string; readonly thick?: boolean; readonly hatch?: boolean }) {
  return (
    <li className="flex items-center gap-1.5">
      <svg viewBox="0 0 18 18" className="h-4 w-4" aria-hidden="true">
        {hatch ? (
          <defs>
            <pattern id="zs-hatch-legend" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="4" height="4" fill="var(--map-excluded)" />
              <line x1="0" y1="0" x2="0" y2="4" stroke="var(--map-tile-stroke)" strokeWidth="1.2" />
            </pattern>
          </defs>
        ) : null}
        <rect x="1.5" y="1.5" width="15" height="15" rx="2" fill={fill} stroke={stroke} strokeWidth={thick ? 3 : 1.25} strokeDasharray={dash} />
        {glyph ? (
          <text x="9" y="12.5" textAnchor="middle" fontSize={glyph.length > 1 ? 7 : 10} fontWeight={700} fill="var(--map-text)">
            {glyph}
          </text>
        ) : null}
      </svg>
      {label}
    </li>
  );
}

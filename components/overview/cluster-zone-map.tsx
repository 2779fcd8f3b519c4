/**
 * The Overview zone map: zones as columns, nodes as tiles whose area follows allocatable CPU, with
 * the topology cache's view of each node as colour + glyph + legend (never colour alone). Nodes
 * without a zone label get their own highlighted column; the node that switches hints off for the
 * whole cluster is outlined and named.
 *
 * Large zones (thousands of nodes) are drawn with counted nodes grouped by CPU size (`×N`), while
 * every flagged node keeps its own tile, so the SVG stays a few hundred elements at 5,000 nodes.
 */
import type { ClusterReport } from '@/lib/topology/report/analysis-schema';
import type { NodeReport } from '@/lib/topology/analyses/analyze-zones';
import { formatCpu, formatPercent } from '../ui/format';

const WIDTH = 1160;
const GAP = 16;
const HEADER = 74;
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

export function ClusterZoneMap({ cluster }: { readonly cluster: ClusterReport }) {
  const { columns, height } = laidOut(cluster);
  const disabling = cluster.nodes.filter((n) => n.disablesHints);
  const summary =
    `${columns.length} zone column(s), ${cluster.nodes.length} nodes. ` +
    columns.map((c) => `${c.name}: ${c.nodes} nodes${c.ratio !== null ? `, ${formatPercent(c.ratio)} of CPU` : ''}`).join('; ') +
    (disabling.length > 0 ? `. ${disabling.map((n) => n.name).join(', ')} disables hints cluster-wide.` : '.');
  return (
    <figure className="space-y-2">
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
              {column.ratio !== null ? (
                <>
                  <rect x={PAD} y={30} width={column.width - 2 * PAD} height={8} rx={4} fill="var(--map-tile)" />
                  <rect x={PAD} y={30} width={Math.max(2, (column.width - 2 * PAD) * column.ratio)} height={8} rx={4} fill="var(--map-counted-stroke)" />
                  <text x={PAD} y={55} fontSize={12} fill="var(--map-text)">
                    {truncate(`${formatPercent(column.ratio)} of CPU · ${formatCpu(column.cpuMillis)}`, column.width - 2 * PAD, 6.6)}
                  </text>
                </>
              ) : (
                <text x={PAD} y={42} fontSize={12} fill="var(--map-muted)">
                  {truncate(column.noZone ? 'not counted: hints off cluster-wide' : 'no CPU ratio (cluster not eligible)', column.width - 2 * PAD, 6.6)}
                </text>
              )}
              <text x={PAD} y={69} fontSize={11} fill="var(--map-muted)">
                {truncate(`${column.counted} of ${column.nodes} node(s) counted`, column.width - 2 * PAD, 6.2)}
              </text>
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
                  <title>{column.tiles.filter((t) => t.disablesHints).map((t) => t.key).join(', ')} disable(s) hints for every Service</title>
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
        </ul>
      </figcaption>
    </figure>
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

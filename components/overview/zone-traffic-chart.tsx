'use client';

/**
 * The cluster's zone traffic as a Sankey: client zones on the left, endpoint zones on the right,
 * link widths in GB per month. Same-zone links are muted grey, cross-zone links highlighted amber
 * (and named so in their tooltips; the matrix table beside the chart is the text alternative).
 */
import { Sankey, Tooltip } from 'recharts';
import type { SankeyNodeProps } from 'recharts';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';
import type { ValueByZone } from '@/lib/topology/upstream/types';
import { shortZoneName } from '../ui/format';
import { ChartFrame } from '../shared/chart-frame';
import { useDark } from '../shared/use-dark';
import { formatGb } from './zone-traffic-source';

const COLORS = {
  light: { same: '#94a3b8', cross: '#d97706', client: '#0284c7', endpoint: '#475569', sameOpacity: 0.35, crossOpacity: 0.75 },
  dark: { same: '#64748b', cross: '#fbbf24', client: '#38bdf8', endpoint: '#cbd5e1', sameOpacity: 0.45, crossOpacity: 0.7 },
} as const;

/** Links under this many GB per month are left out (they would be hairlines and crowd the labels). */
const MIN_LINK_GB = 1e-6;

interface FlowNode {
  readonly name: string;
  readonly zone: string;
  readonly side: 'client' | 'endpoint';
}

interface FlowLink {
  readonly source: number;
  readonly target: number;
  readonly value: number;
  readonly stroke: string;
  readonly strokeOpacity: number;
  readonly cross: boolean;
}

/** The Sankey's nodes and links of one matrix (only zones that send or receive traffic). */
export function sankeyData(zones: readonly string[], matrix: Readonly<ValueByZone<ValueByZone<number>>>, dark: boolean): { nodes: FlowNode[]; links: FlowLink[] } {
  const colors = dark ? COLORS.dark : COLORS.light;
  const pairs: { from: string; to: string; gb: number }[] = [];
  for (const from of zones) {
    for (const to of zones) {
      const gb = matrix[from]?.[to] ?? 0;
      if (Number.isFinite(gb) && gb > MIN_LINK_GB) pairs.push({ from, to, gb });
    }
  }
  const nodes: FlowNode[] = [];
  const index = new Map<string, number>();
  const node = (side: FlowNode['side'], zone: string) => {
    const key = `${side}:${zone}`;
    let i = index.get(key);
    if (i === undefined) {
      i = nodes.length;
      nodes.push({ name: `${side === 'client' ? 'from' : 'to'} ${zone === UNKNOWN_ZONE ? 'no zone' : zone}`, zone, side });
      index.set(key, i);
    }
    return i;
  };
  // Clients first in zone order, then endpoints in zone order: the layout keeps this order.
  for (const zone of zones) if (pairs.some((p) => p.from === zone)) node('client', zone);
  for (const zone of zones) if (pairs.some((p) => p.to === zone)) node('endpoint', zone);
  const links = pairs.map((p): FlowLink => {
    const cross = p.from !== p.to;
    return {
      source: node('client', p.from),
      target: node('endpoint', p.to),
      value: p.gb,
      stroke: cross ? colors.cross : colors.same,
      strokeOpacity: cross ? colors.crossOpacity : colors.sameOpacity,
      cross,
    };
  });
  return { nodes, links };
}

function nodeRenderer(zones: readonly string[], colors: (typeof COLORS)['light' | 'dark']) {
  function FlowNodeShape(props: SankeyNodeProps) {
    const { x, y, width, height, payload } = props;
    const data = payload as unknown as FlowNode & { value?: number };
    const client = data.side === 'client';
    const label = shortZoneName(zones, data.zone, UNKNOWN_ZONE);
    // Labels outside the nodes (clients left, endpoints right), in the chart's margins.
    const textX = client ? x - 6 : x + width + 6;
    return (
      <g>
        <rect x={x} y={y} width={width} height={Math.max(1, height)} fill={client ? colors.client : colors.endpoint} />
        <text x={textX} y={y + height / 2} textAnchor={client ? 'end' : 'start'} dominantBaseline="middle" fontSize={12} fill="var(--chart-text)">
          <tspan fontWeight={600}>{label}</tspan>
          <tspan dx={4}>{formatGb(data.value ?? 0)}</tspan>
        </text>
      </g>
    );
  }
  return FlowNodeShape;
}

export function ZoneTrafficChart({
  zones,
  matrix,
  label,
  summary,
}: {
  readonly zones: readonly string[];
  readonly matrix: Readonly<ValueByZone<ValueByZone<number>>>;
  readonly label: string;
  readonly summary: string;
}) {
  const dark = useDark();
  const colors = dark ? COLORS.dark : COLORS.light;
  const data = sankeyData(zones, matrix, dark);
  const sides = Math.max(data.nodes.filter((n) => n.side === 'client').length, data.nodes.filter((n) => n.side === 'endpoint').length);
  const height = Math.max(200, 64 * sides + 40);
  if (data.links.length === 0) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">No traffic to draw: the Services counted move no bytes in this scenario.</p>;
  }
  return (
    <ChartFrame label={label} summary={summary} height={height}>
      <Sankey
        width="100%"
        height="100%"
        data={{ nodes: data.nodes, links: data.links }}
        node={nodeRenderer(zones, colors)}
        nodePadding={28}
        nodeWidth={12}
        sort={false}
        iterations={0}
        linkCurvature={0.5}
        margin={{ top: 8, right: 92, bottom: 8, left: 92 }}
      >
        <Tooltip
          formatter={(value, name, item) => {
            const gb = typeof value === 'number' ? formatGb(value) : String(value);
            const payload = (item as { payload?: { payload?: { cross?: boolean } } }).payload?.payload;
            return [payload?.cross === undefined ? `${gb} a month` : `${gb} a month, ${payload.cross ? 'cross-zone' : 'same zone'}`, String(name ?? '').replace(/^from /, '').replace(' - to ', ' → ')];
          }}
        />
      </Sankey>
    </ChartFrame>
  );
}

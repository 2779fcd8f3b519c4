'use client';

/**
 * Ready endpoints per zone (bars) against the controller's allocation: minimum, desired and maximum
 * drawn side by side over each bar (minimum left, desired middle, maximum right; solid, dashed,
 * dotted — not colour alone), so equal values never hide one another, each with its number above
 * it where the bars are wide enough. The figure's caption states every number for screen readers.
 */
import { useState } from 'react';
import { Bar, CartesianGrid, Cell, ComposedChart, Legend, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';
import { formatDecimal, shortZoneName } from '../ui/format';
import { AXIS_TICK, CHART_COLORS, ChartFrame, DARK_CHART_COLORS } from '../shared/chart-frame';
import { useDark } from '../shared/use-dark';

export interface DistributionDatum {
  readonly zone: string;
  readonly ready: number;
  readonly minimum: number | null;
  readonly desired: number | null;
  readonly maximum: number | null;
}

type Allocation = 'minimum' | 'desired' | 'maximum';
type MarkerProps = { cx?: number; cy?: number; payload?: Partial<Record<Allocation, number | null>> };

/** Half the width of the three markers together, and of the gap between two. */
const SPAN = 36;
const GAP = 2;
/** Horizontal extent of one marker, relative to the bar's centre: three equal thirds of the span. */
const SLOT: Record<Allocation, readonly [number, number]> = {
  minimum: [-SPAN, -SPAN / 3 - GAP],
  desired: [-SPAN / 3 + GAP, SPAN / 3 - GAP],
  maximum: [SPAN / 3 + GAP, SPAN],
};

/** The text of a marker's number: whole counts as they are, desired with one decimal. */
export function allocationLabel(value: number | null | undefined): string {
  return formatDecimal(value, 1);
}

/** One third of the space over a bar, with the value's number above it when `labelled`. */
function marker(key: Allocation, color: string, dash: string | undefined, width: number, labelled: boolean) {
  function Marker(props: MarkerProps) {
    const { cx, cy, payload } = props;
    if (cx === undefined || cy === undefined || !Number.isFinite(cy)) return <g />;
    const [from, to] = SLOT[key];
    return (
      <g>
        <line x1={cx + from} x2={cx + to} y1={cy} y2={cy} stroke={color} strokeWidth={width} strokeDasharray={dash} />
        {labelled ? (
          <text
            x={cx + (from + to) / 2}
            y={cy - 5}
            textAnchor="middle"
            fontSize={11}
            fontWeight={600}
            fill="var(--chart-text)"
            stroke="var(--map-column)"
            strokeWidth={3}
            paintOrder="stroke"
          >
            {allocationLabel(payload?.[key])}
          </text>
        ) : null}
      </g>
    );
  }
  return Marker;
}

/** The chart's text alternative: every zone's numbers. */
export function distributionSummary(data: readonly DistributionDatum[]): string {
  return data
    .map((d) =>
      d.minimum === null
        ? `${d.zone}: ${d.ready} ready`
        : `${d.zone}: ${d.ready} ready, minimum ${d.minimum}, desired ${formatDecimal(d.desired)}, maximum ${formatDecimal(d.maximum)}${d.ready < d.minimum ? ' (below minimum)' : ''}`,
    )
    .join('; ');
}

export function DistributionChart({ data, fits }: { readonly data: readonly DistributionDatum[]; readonly fits: boolean | null }) {
  const dark = useDark();
  const c = (key: keyof typeof CHART_COLORS) => (dark ? (DARK_CHART_COLORS[key] ?? CHART_COLORS[key]) : CHART_COLORS[key]);
  const rows = data.map((d) => ({ ...d, low: d.minimum !== null && d.ready < d.minimum }));
  const summary = distributionSummary(data);
  const top = Math.max(1, ...rows.flatMap((d) => [d.ready, d.minimum ?? 0, d.desired ?? 0, d.maximum ?? 0]));
  // Under ~120 px per zone whole names overlap (phones): the axis drops the shared region prefix.
  // Under ~90 px the markers' numbers would touch: the legend and the table beside carry them.
  const [narrow, setNarrow] = useState(false);
  const [cramped, setCramped] = useState(false);
  const zones = rows.map((d) => d.zone);
  return (
    <ChartFrame label={`Ready endpoints per zone against minimum, desired and maximum${fits === false ? '; the minimums do not fit' : ''}`} summary={summary} height={280}>
      <ResponsiveContainer
        width="100%"
        height="100%"
        onResize={(width) => {
          setNarrow(width < 120 * Math.max(1, rows.length));
          setCramped(width < 90 * Math.max(1, rows.length));
        }}
      >
        <ComposedChart data={rows} margin={{ top: 18, right: 16, bottom: 4, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="zone" tick={AXIS_TICK} interval={0} tickFormatter={narrow ? (zone: string) => shortZoneName(zones, zone, UNKNOWN_ZONE) : undefined} />
          <YAxis allowDecimals={false} tick={AXIS_TICK} domain={[0, Math.ceil(top + 1)]} width={36} />
          <Tooltip formatter={(value, name) => [typeof value === 'number' ? formatDecimal(value) : String(value), String(name)]} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="ready" name="Ready endpoints (red: below minimum)" fill={c('ready')} isAnimationActive={false} maxBarSize={90}>
            {rows.map((d) => (
              <Cell key={d.zone} fill={d.low ? c('readyLow') : c('ready')} />
            ))}
          </Bar>
          <Scatter dataKey="minimum" name="Minimum (solid, left)" fill={c('minimum')} shape={marker('minimum', c('minimum'), undefined, 4, !cramped)} legendType="plainline" isAnimationActive={false} />
          <Scatter dataKey="desired" name="Desired (dashed, middle)" fill={c('desired')} shape={marker('desired', c('desired'), '6 3', 3, !cramped)} legendType="plainline" isAnimationActive={false} />
          <Scatter dataKey="maximum" name="Maximum (dotted, right)" fill={c('maximum')} shape={marker('maximum', c('maximum'), '2 2', 4, !cramped)} legendType="plainline" isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

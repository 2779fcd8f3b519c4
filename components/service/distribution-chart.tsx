'use client';

/**
 * Ready endpoints per zone (bars) against the controller's allocation: minimum, desired and maximum
 * drawn as distinct horizontal markers (solid, dashed, dotted — not colour alone).
 */
import { useState } from 'react';
import { Bar, CartesianGrid, Cell, ComposedChart, Legend, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';
import { shortZoneName } from '../ui/format';
import { AXIS_TICK, CHART_COLORS, ChartFrame, DARK_CHART_COLORS } from '../shared/chart-frame';
import { useDark } from '../shared/use-dark';

export interface DistributionDatum {
  readonly zone: string;
  readonly ready: number;
  readonly minimum: number | null;
  readonly desired: number | null;
  readonly maximum: number | null;
}

type MarkerProps = { cx?: number; cy?: number };

/** A horizontal marker over the bar: minimum on the left half, maximum on the right, desired across. */
function marker(color: string, dash: string | undefined, width: number, part: 'left' | 'right' | 'full') {
  function Marker(props: MarkerProps) {
    const { cx, cy } = props;
    if (cx === undefined || cy === undefined || !Number.isFinite(cy)) return <g />;
    const x1 = part === 'right' ? cx + 2 : cx - 36;
    const x2 = part === 'left' ? cx - 2 : cx + 36;
    return <line x1={x1} x2={x2} y1={cy} y2={cy} stroke={color} strokeWidth={width} strokeDasharray={dash} />;
  }
  return Marker;
}

export function DistributionChart({ data, fits }: { readonly data: readonly DistributionDatum[]; readonly fits: boolean | null }) {
  const dark = useDark();
  const c = (key: keyof typeof CHART_COLORS) => (dark ? (DARK_CHART_COLORS[key] ?? CHART_COLORS[key]) : CHART_COLORS[key]);
  const rows = data.map((d) => ({ ...d, low: d.minimum !== null && d.ready < d.minimum }));
  const summary = rows.map((d) => `${d.zone}: ${d.ready} ready, minimum ${d.minimum ?? 'n/a'}, desired ${d.desired?.toFixed(2) ?? 'n/a'}, maximum ${d.maximum ?? 'n/a'}`).join('; ');
  const top = Math.max(1, ...rows.flatMap((d) => [d.ready, d.minimum ?? 0, d.desired ?? 0, d.maximum ?? 0]));
  // Under ~120 px per zone whole names overlap (phones): the axis drops the shared region prefix.
  const [narrow, setNarrow] = useState(false);
  const zones = rows.map((d) => d.zone);
  return (
    <ChartFrame label={`Ready endpoints per zone against minimum, desired and maximum${fits === false ? '; the minimums do not fit' : ''}`} summary={summary} height={280}>
      <ResponsiveContainer width="100%" height="100%" onResize={(width) => setNarrow(width < 120 * Math.max(1, rows.length))}>
        <ComposedChart data={rows} margin={{ top: 10, right: 16, bottom: 4, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="zone" tick={AXIS_TICK} interval={0} tickFormatter={narrow ? (zone: string) => shortZoneName(zones, zone, UNKNOWN_ZONE) : undefined} />
          <YAxis allowDecimals={false} tick={AXIS_TICK} domain={[0, Math.ceil(top + 1)]} width={36} />
          <Tooltip formatter={(value, name) => [typeof value === 'number' ? (Number.isInteger(value) ? value : value.toFixed(2)) : String(value), String(name)]} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="ready" name="Ready endpoints (red: below minimum)" fill={c('ready')} isAnimationActive={false} maxBarSize={90}>
            {rows.map((d) => (
              <Cell key={d.zone} fill={d.low ? c('readyLow') : c('ready')} />
            ))}
          </Bar>
          <Scatter dataKey="minimum" name="Minimum (solid, left)" fill={c('minimum')} shape={marker(c('minimum'), undefined, 4, 'left')} legendType="plainline" isAnimationActive={false} />
          <Scatter dataKey="desired" name="Desired (dashed)" fill={c('desired')} shape={marker(c('desired'), '6 4', 2, 'full')} legendType="plainline" isAnimationActive={false} />
          <Scatter dataKey="maximum" name="Maximum (dotted, right)" fill={c('maximum')} shape={marker(c('maximum'), '2 2', 4, 'right')} legendType="plainline" isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

'use client';

/**
 * The request-sample histogram: one horizontal bar per pod with the answers it gave in the seeded
 * sample (green same zone as the client, amber another zone), and a thinner bar beside it with the
 * exact expected count. The table next to it carries the same numbers for screen readers.
 */
import { Bar, BarChart, CartesianGrid, Cell, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { AXIS_TICK, CHART_COLORS, ChartFrame, DARK_CHART_COLORS } from '../shared/chart-frame';
import { useDark } from '../shared/use-dark';

export interface SampleBar {
  readonly label: string;
  readonly sampled: number;
  readonly expected: number;
  readonly sameZone: boolean;
}

export function RequestSampleChart({ bars, summary }: { readonly bars: readonly SampleBar[]; readonly summary: string }) {
  const dark = useDark();
  const c = (key: keyof typeof CHART_COLORS) => (dark ? (DARK_CHART_COLORS[key] ?? CHART_COLORS[key]) : CHART_COLORS[key]);
  const cross = dark ? '#fbbf24' : '#d97706';
  const height = Math.max(120, bars.length * 30 + 60);
  const longest = bars.reduce((m, b) => Math.max(m, b.label.length), 0);
  return (
    <ChartFrame label="Answers per pod: sampled and expected" summary={summary} height={height}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={bars as SampleBar[]} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 4 }} barGap={1}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={AXIS_TICK} />
          <YAxis type="category" dataKey="label" tick={{ ...AXIS_TICK, fontSize: 11 }} width={Math.min(220, Math.max(80, longest * 6.5))} interval={0} />
          <Tooltip formatter={(value, name) => [name === 'Expected' ? Number(value).toFixed(2) : String(value), String(name)]} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="sampled" name="Answers (sample; green: client's zone, amber: another zone)" fill={c('on')} isAnimationActive={false} maxBarSize={14}>
            {bars.map((b) => (
              <Cell key={b.label} fill={b.sameZone ? c('on') : cross} />
            ))}
          </Bar>
          <Bar dataKey="expected" name="Expected" fill={c('line')} fillOpacity={0.45} isAnimationActive={false} maxBarSize={6} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

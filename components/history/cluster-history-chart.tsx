'use client';

/**
 * The cluster's history as two time charts on one UTC axis: cross-zone spend ($/month now, after
 * the controller's next sync, at each Service's best mechanism) and the node count (total and per
 * zone). Stretches where the cluster was ineligible are shaded red behind both; node-count changes
 * and other marks are vertical lines. The panel around it carries the eligibility strip, the text
 * alternative and the Changes table.
 */
import { CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, YAxis } from 'recharts';
import type { ClusterHistory } from '@/lib/shared/history-types';
import { AXIS_TICK, ChartFrame } from '../shared/chart-frame';
import { chartRows, closeValuesDomain, formatUtc } from './history-format';
import { PLOT_INSET } from './history-parts';
import { useDark } from '../shared/use-dark';
import { formatUsd } from '../ui/format';
import { markLines, shadedAreas, timeAxis, zoneColor } from './service-history-chart';

const SPEND_STYLE: Record<string, { readonly light: string; readonly dark: string; readonly dash?: string }> = {
  now: { light: '#b45309', dark: '#fbbf24' },
  'after-sync': { light: '#0369a1', dark: '#38bdf8', dash: '6 3' },
  best: { light: '#047857', dark: '#34d399', dash: '2 3' },
};

/** `$1.2k`, `$340`, `$0.52` for the spend axis. */
export function compactUsd(value: number): string {
  if (!Number.isFinite(value)) return '';
  const a = Math.abs(value);
  if (a >= 1e6) return `$${(value / 1e6).toFixed(1)}M`;
  if (a >= 1e3) return `$${(value / 1e3).toFixed(a >= 1e4 ? 0 : 1)}k`;
  return a >= 10 || a === 0 ? `$${value.toFixed(0)}` : `$${value.toFixed(2)}`;
}

export function ClusterHistoryChart({ history }: { readonly history: ClusterHistory }) {
  const dark = useDark();
  const { start, end, range } = history;
  const spendRows = chartRows([{ prefix: 'spend:', series: history.spend }]);
  const nodeRows = chartRows([{ prefix: 'nodes:', series: history.nodes }]);
  const margin = { top: 18, right: PLOT_INSET.right, bottom: 0, left: 0 };
  const tooltipLabel = (t: unknown) => (typeof t === 'number' ? formatUtc(t) : String(t));
  const zoneSeries = history.nodes.filter((s) => s.key !== 'nodes');
  // Spend now, after sync and best are often within a few percent of each other: an axis from $0
  // would draw them as one line and hide the saving.
  const spendAxis = closeValuesDomain(history.spend);
  const axisNote = spendAxis !== null && !spendAxis.zeroBased ? ` The value axis starts at ${compactUsd(spendAxis.domain[0])}, not $0, so the gaps between the lines show.` : '';
  return (
    <div className="space-y-2 overflow-hidden">
      <ChartFrame label="Cross-zone spend over time, in dollars per month" summary={`Cross-zone $/month (${history.spend.map((s) => s.label).join(', ')}) from ${formatUtc(start)} to ${formatUtc(end)}; shaded where the cluster was ineligible.${axisNote} Listed under "The charts as text".`} height={220}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={spendRows} margin={margin} syncId="cluster-history">
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--chart-grid)" />
            {shadedAreas(history.eligibility, end, dark)}
            {timeAxis(start, end, range)}
            <YAxis tick={AXIS_TICK} width={PLOT_INSET.left} tickFormatter={compactUsd} domain={spendAxis !== null ? [...spendAxis.domain] : undefined} allowDataOverflow={false} />
            <Tooltip labelFormatter={tooltipLabel} formatter={(value, name) => [typeof value === 'number' ? `${formatUsd(value)}/month` : 'no sample', String(name)]} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {history.spend.map((s) => {
              const style = SPEND_STYLE[s.key] ?? { light: '#475569', dark: '#cbd5e1' };
              return (
                <Line
                  key={s.key}
                  dataKey={`spend:${s.key}`}
                  name={s.label}
                  stroke={dark ? style.dark : style.light}
                  strokeWidth={2}
                  strokeDasharray={style.dash}
                  dot={false}
                  type="stepAfter"
                  isAnimationActive={false}
                  connectNulls={false}
                />
              );
            })}
            {markLines(history.marks, start, end, true)}
          </ComposedChart>
        </ResponsiveContainer>
      </ChartFrame>
      <ChartFrame label="Nodes over time, in total and per zone" summary={`Nodes (${history.nodes.map((s) => s.label).join(', ')}) from ${formatUtc(start)} to ${formatUtc(end)}. Listed under "The charts as text".`} height={180}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={nodeRows} margin={margin} syncId="cluster-history">
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--chart-grid)" />
            {shadedAreas(history.eligibility, end, dark)}
            {timeAxis(start, end, range)}
            <YAxis allowDecimals={false} tick={AXIS_TICK} width={PLOT_INSET.left} />
            <Tooltip labelFormatter={tooltipLabel} formatter={(value, name) => [value === null || value === undefined ? 'no sample' : String(value), String(name)]} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {history.nodes
              .filter((s) => s.key === 'nodes')
              .map((s) => (
                <Line key={s.key} dataKey={`nodes:${s.key}`} name={s.label} stroke="var(--chart-text)" strokeWidth={2.5} dot={false} type="stepAfter" isAnimationActive={false} connectNulls={false} />
              ))}
            {zoneSeries.map((s, i) => (
              <Line key={s.key} dataKey={`nodes:${s.key}`} name={s.label} stroke={zoneColor(i, dark)} strokeWidth={1.5} dot={false} type="stepAfter" isAnimationActive={false} connectNulls={false} />
            ))}
            {markLines(history.marks.filter((m) => m.kind === 'nodes'), start, end, false)}
          </ComposedChart>
        </ResponsiveContainer>
      </ChartFrame>
    </div>
  );
}

'use client';

/**
 * A Service's history as two time charts on one UTC axis: ready endpoints per zone (solid) with
 * the per-zone minimum (dashed, same colour), and the predicted and measured cross-zone share (%).
 * Periods with hints off or partial are shaded red/amber behind both; the Service's events, toggles
 * and node-count changes are vertical marks with a short label. The panel around it carries the
 * hints strip, the text alternative and the Changes table.
 */
import { CartesianGrid, ComposedChart, Legend, Line, ReferenceArea, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { HistoryInterval, HistoryMark, HistoryRange, ServiceHistory } from '@/lib/shared/history-types';
import { AXIS_TICK, ChartFrame } from '../shared/chart-frame';
import { chartRows, formatTick, formatUtc, labelledMarks, shortMark, timeTicks } from './history-format';
import { PLOT_INSET } from './history-parts';
import { useDark } from '../shared/use-dark';

/** Distinct zone colours (light, dark), in zone order. */
export const ZONE_COLORS = [
  ['#0284c7', '#38bdf8'],
  ['#7c3aed', '#c4b5fd'],
  ['#059669', '#34d399'],
  ['#c2410c', '#fdba74'],
  ['#be185d', '#f9a8d4'],
  ['#4d7c0f', '#bef264'],
] as const;

export function zoneColor(index: number, dark: boolean): string {
  const pair = ZONE_COLORS[index % ZONE_COLORS.length] ?? ZONE_COLORS[0];
  return dark ? pair[1] : pair[0];
}

const SHADE = { off: ['#dc2626', '#f87171'], partial: ['#d97706', '#fbbf24'], ineligible: ['#dc2626', '#f87171'] } as const;

/** Off/partial/ineligible stretches as shaded areas (on and eligible stay unshaded). */
export function shadedAreas(intervals: readonly HistoryInterval[], end: number, dark: boolean) {
  return intervals
    .filter((i): i is HistoryInterval & { value: keyof typeof SHADE } => i.value in SHADE)
    .map((i) => (
      <ReferenceArea key={`${i.from}-${i.value}`} x1={i.from} x2={i.to ?? end} fill={SHADE[i.value][dark ? 1 : 0]} fillOpacity={dark ? 0.18 : 0.12} strokeOpacity={0} ifOverflow="hidden" />
    ));
}

/** Vertical marks; only marks far enough apart carry a label. */
export function markLines(marks: readonly HistoryMark[], start: number, end: number, labels: boolean) {
  const labelled = labels ? labelledMarks(marks, start, end) : new Set<HistoryMark>();
  return marks
    .filter((m) => m.at >= start && m.at <= end)
    .map((m, i) => (
      <ReferenceLine
        key={`${m.at}-${i}`}
        x={m.at}
        stroke="var(--chart-text)"
        strokeOpacity={0.6}
        strokeDasharray={m.kind === 'event' ? '2 3' : m.kind === 'toggle' ? undefined : '6 3'}
        // Labels point into the plot: right of marks in the first half, left of those in the second.
        label={labelled.has(m) ? { value: shortMark(m), position: m.at > (start + end) / 2 ? 'insideTopRight' : 'insideTopLeft', fontSize: 10, fill: 'var(--chart-text)', angle: 0 } : undefined}
        ifOverflow="hidden"
      />
    ));
}

export function timeAxis(start: number, end: number, range: HistoryRange) {
  return (
    <XAxis
      dataKey="t"
      type="number"
      scale="time"
      domain={[start, end]}
      ticks={timeTicks(start, end, range)}
      tickFormatter={(t: number) => formatTick(t, range)}
      tick={AXIS_TICK}
      minTickGap={16}
      height={30}
      allowDataOverflow
    />
  );
}

export function HistoryChart({ history }: { readonly history: ServiceHistory }) {
  const dark = useDark();
  const { start, end, range } = history;
  const zones = history.readyEndpoints.map((s) => s.key);
  const colorOf = (zone: string) => zoneColor(Math.max(0, zones.indexOf(zone)), dark);
  const endpointRows = chartRows([
    { prefix: 'ready:', series: history.readyEndpoints },
    { prefix: 'min:', series: history.minimumEndpoints },
  ]);
  const shareRows = chartRows([{ prefix: 'share:', series: history.crossZone, scale: 100 }]);
  const predictedColor = dark ? '#fbbf24' : '#b45309';
  const measuredColor = dark ? '#38bdf8' : '#0369a1';
  const margin = { top: 18, right: PLOT_INSET.right, bottom: 0, left: 0 };
  const tooltipLabel = (t: unknown) => (typeof t === 'number' ? formatUtc(t) : String(t));
  return (
    <div className="space-y-2 overflow-hidden">
      <ChartFrame label="Ready endpoints per zone and the per-zone minimum over time" summary={endpointSummary(history)} height={240}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={endpointRows} margin={margin} syncId={`history-${history.namespace}-${history.name}`}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--chart-grid)" />
            {shadedAreas(history.hintsObserved, end, dark)}
            {timeAxis(start, end, range)}
            <YAxis allowDecimals={false} tick={AXIS_TICK} width={PLOT_INSET.left} label={{ value: 'endpoints', angle: -90, position: 'insideLeft', fontSize: 11, fill: 'var(--chart-text)' }} />
            <Tooltip labelFormatter={tooltipLabel} formatter={(value, name) => [value === null || value === undefined ? 'no sample' : String(value), String(name)]} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {history.readyEndpoints.map((s) => (
              <Line key={`ready:${s.key}`} dataKey={`ready:${s.key}`} name={`${s.label} ready`} stroke={colorOf(s.key)} strokeWidth={2} dot={false} type="stepAfter" isAnimationActive={false} connectNulls={false} />
            ))}
            {history.minimumEndpoints.map((s) => (
              <Line
                key={`min:${s.key}`}
                dataKey={`min:${s.key}`}
                name={`${s.label} minimum`}
                stroke={colorOf(s.key)}
                strokeWidth={1.5}
                strokeDasharray="5 4"
                dot={false}
                type="stepAfter"
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
            {markLines(history.marks, start, end, true)}
          </ComposedChart>
        </ResponsiveContainer>
      </ChartFrame>
      <ChartFrame label="Predicted and measured cross-zone share over time, in percent" summary={shareSummary(history)} height={180}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={shareRows} margin={margin} syncId={`history-${history.namespace}-${history.name}`}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="var(--chart-grid)" />
            {shadedAreas(history.hintsObserved, end, dark)}
            {timeAxis(start, end, range)}
            <YAxis domain={[0, 100]} ticks={[0, 25, 50, 75, 100]} tickFormatter={(v: number) => `${v} %`} tick={AXIS_TICK} width={PLOT_INSET.left} />
            <Tooltip labelFormatter={tooltipLabel} formatter={(value, name) => [typeof value === 'number' ? `${value.toFixed(1)} %` : 'no sample', String(name)]} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {history.crossZone.map((s) => (
              <Line
                key={s.key}
                dataKey={`share:${s.key}`}
                name={`${s.label} cross-zone`}
                stroke={s.key === 'measured' ? measuredColor : predictedColor}
                strokeWidth={2}
                strokeDasharray={s.key === 'measured' ? '6 3' : undefined}
                dot={false}
                type={s.key === 'measured' ? 'linear' : 'stepAfter'}
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
            {markLines(history.marks, start, end, false)}
          </ComposedChart>
        </ResponsiveContainer>
      </ChartFrame>
    </div>
  );
}

function endpointSummary(history: ServiceHistory): string {
  const zones = history.readyEndpoints.map((s) => s.label).join(', ');
  return `Ready endpoints per zone (${zones || 'no zones'}) from ${formatUtc(history.start)} to ${formatUtc(history.end)}; shaded where hints were off or partial. The same figures are listed under "The charts as text".`;
}

function shareSummary(history: ServiceHistory): string {
  return `Cross-zone share (${history.crossZone.map((s) => s.label).join(', ') || 'no series'}) from ${formatUtc(history.start)} to ${formatUtc(history.end)}. Listed under "The charts as text".`;
}

'use client';

/**
 * The HPA replica scan: for every replica count from minReplicas to maxReplicas, Σ minimum against
 * the ready endpoints (= replicas). Bars where hints are off are red and hatched-labelled "off";
 * the line shows the replica count itself, and the donated endpoints of the worst placement the
 * spread constraint allows are a second line. A range wider than `MAX_SCAN_BARS` counts is
 * drawn as runs of consecutive counts ({@link scanBars}), which the chart says under the plot; the
 * table beside it keeps every count.
 */
import { Bar, CartesianGrid, Cell, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { AXIS_TICK, CHART_COLORS, ChartFrame, DARK_CHART_COLORS } from '../shared/chart-frame';
import { useDark } from '../shared/use-dark';
import { formatCount } from '../ui/format';
import type { ScanBar, ScanTuple } from './hpa-scan-data';
import { scanBars } from './hpa-scan-data';

/** About this many replica counts are labelled on the axis (a numeric interval: recharts then measures no tick text). */
const AXIS_LABELS = 10;

interface ScanDatum extends ScanBar {
  /** The x category: the run's first count. */
  readonly x: number;
  readonly ready: number;
}

function runText(d: ScanBar): string {
  return d.from === d.to ? `${d.from} replicas` : `${d.from}–${d.to} replicas (${d.to - d.from + 1} counts, shown: ${d.replicas})`;
}

export function HpaScanChart({ scan, current }: { readonly scan: readonly ScanTuple[]; readonly current: number | null }) {
  const dark = useDark();
  const c = (key: keyof typeof CHART_COLORS) => (dark ? (DARK_CHART_COLORS[key] ?? CHART_COLORS[key]) : CHART_COLORS[key]);
  const bars = scanBars(scan);
  const rows = bars.map((b): ScanDatum => ({ ...b, x: b.from, ready: b.replicas }));
  const byX = new Map(rows.map((d) => [d.x, d]));
  const run = bars.reduce((longest, b) => Math.max(longest, b.to - b.from + 1), 1);
  const off = scan.filter((t) => t[2] === 0).map((t) => t[0]);
  const summary = `Replica counts ${scan[0]?.[0] ?? ''} to ${scan[scan.length - 1]?.[0] ?? ''}. Hints off at ${off.length > 0 ? off.join(', ') : 'no count'}.`;
  const nowBar = current === null ? undefined : rows.find((d) => d.from <= current && current <= d.to);
  return (
    <>
      <ChartFrame label="Sum of per-zone minimums against the replica count for every HPA replica count" summary={summary} height={300}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={rows} margin={{ top: 16, right: 16, bottom: 4, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="x" tick={AXIS_TICK} interval={Math.max(0, Math.ceil(rows.length / AXIS_LABELS) - 1)} label={{ value: 'replicas (ready endpoints)', position: 'insideBottomRight', offset: -2, fontSize: 11 }} height={36} />
            <YAxis allowDecimals={false} tick={AXIS_TICK} width={40} />
            <Tooltip
              labelFormatter={(label) => {
                const d = byX.get(Number(label));
                return d ? runText(d) : `${String(label)} replicas`;
              }}
              formatter={(value, name, item) => {
                const payload = (item as { payload?: ScanDatum }).payload;
                if (String(name).startsWith('Σ minimum') && payload) {
                  const offText = payload.from === payload.to ? '' : ` (off at ${payload.offCounts} of ${payload.to - payload.from + 1} counts)`;
                  return [`${String(value)} → hints ${payload.hintsEnabled ? 'on' : 'OFF'}${offText}`, String(name)];
                }
                return [String(value), String(name)];
              }}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="minimumTotal" name="Σ minimum (green: hints on, red: off)" fill={c('on')} isAnimationActive={false} maxBarSize={28}>
              {rows.map((d) => (
                <Cell key={d.x} fill={d.hintsEnabled ? c('on') : c('off')} />
              ))}
            </Bar>
            <Line dataKey="ready" name="Ready endpoints (= replicas)" stroke={c('line')} strokeWidth={2} dot={false} isAnimationActive={false} type="linear" />
            <Line dataKey="worstDonated" name="Donated, worst allowed placement" stroke={c('donated')} strokeWidth={2} strokeDasharray="5 4" dot={false} isAnimationActive={false} type="stepAfter" />
            {current !== null && nowBar !== undefined ? <ReferenceLine x={nowBar.x} stroke={c('desired')} strokeDasharray="4 2" label={{ value: `now: ${current}`, position: 'top', fontSize: 11, fill: 'var(--chart-text)' }} /> : null}
          </ComposedChart>
        </ResponsiveContainer>
      </ChartFrame>
      {run > 1 ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {formatCount(scan.length)} replica counts in {rows.length} bars of up to {run}: each bar shows the count of its run nearest to turning hints off, red if any count of the run has hints off. The table lists every count.
        </p>
      ) : null}
    </>
  );
}

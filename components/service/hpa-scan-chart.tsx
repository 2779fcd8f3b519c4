'use client';

/**
 * The HPA replica scan: for every replica count from minReplicas to maxReplicas, Σ minimum against
 * the ready endpoints (= replicas). Bars where hints are off are red and hatched-labelled "off";
 * the line shows the replica count itself, and the donated endpoints of the worst placement the
 * spread constraint allows are a second line.
 */
import { Bar, CartesianGrid, Cell, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { AXIS_TICK, CHART_COLORS, ChartFrame, DARK_CHART_COLORS } from '../shared/chart-frame';
import { useDark } from '../shared/use-dark';
import type { ScanTuple } from './hpa-scan-data';

interface ScanDatum {
  readonly replicas: number;
  readonly minimumTotal: number;
  readonly hintsEnabled: boolean;
  readonly ready: number;
  readonly worstDonated: number;
}


export function HpaScanChart({ scan, current }: { readonly scan: readonly ScanTuple[]; readonly current: number | null }) {
  const dark = useDark();
  const c = (key: keyof typeof CHART_COLORS) => (dark ? (DARK_CHART_COLORS[key] ?? CHART_COLORS[key]) : CHART_COLORS[key]);
  const rows = scan.map((t): ScanDatum => ({ replicas: t[0], minimumTotal: t[1], hintsEnabled: t[2] === 1, ready: t[0], worstDonated: t[4] }));
  const off = rows.filter((d) => !d.hintsEnabled).map((d) => d.replicas);
  const summary = `Replica counts ${rows[0]?.replicas ?? ''} to ${rows[rows.length - 1]?.replicas ?? ''}. Hints off at ${off.length > 0 ? off.join(', ') : 'no count'}.`;
  return (
    <ChartFrame label="Sum of per-zone minimums against the replica count for every HPA replica count" summary={summary} height={300}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={rows} margin={{ top: 16, right: 16, bottom: 4, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="replicas" tick={AXIS_TICK} label={{ value: 'replicas (ready endpoints)', position: 'insideBottomRight', offset: -2, fontSize: 11 }} height={36} />
          <YAxis allowDecimals={false} tick={AXIS_TICK} width={40} />
          <Tooltip
            labelFormatter={(label) => `${String(label)} replicas`}
            formatter={(value, name, item) => {
              const payload = (item as { payload?: ScanDatum }).payload;
              if (String(name).startsWith('Σ minimum') && payload) return [`${String(value)} → hints ${payload.hintsEnabled ? 'on' : 'OFF'}`, String(name)];
              return [String(value), String(name)];
            }}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="minimumTotal" name="Σ minimum (green: hints on, red: off)" fill={c('on')} isAnimationActive={false} maxBarSize={28}>
            {rows.map((d) => (
              <Cell key={d.replicas} fill={d.hintsEnabled ? c('on') : c('off')} />
            ))}
          </Bar>
          <Line dataKey="ready" name="Ready endpoints (= replicas)" stroke={c('line')} strokeWidth={2} dot={false} isAnimationActive={false} type="linear" />
          <Line dataKey="worstDonated" name="Donated, worst allowed placement" stroke={c('donated')} strokeWidth={2} strokeDasharray="5 4" dot={false} isAnimationActive={false} type="stepAfter" />
          {current !== null ? <ReferenceLine x={current} stroke={c('desired')} strokeDasharray="4 2" label={{ value: `now: ${current}`, position: 'top', fontSize: 11, fill: 'var(--chart-text)' }} /> : null}
        </ComposedChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

'use client';

/**
 * Estimated per-node kernel state in each kube-proxy mode for this cluster: netfilter rules,
 * chains, set/map elements and IPVS real servers, grouped by mode. The cluster's own mode is
 * marked in the axis label (text, not colour).
 */
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { AXIS_TICK, ChartFrame } from '../shared/chart-frame';
import { useDark } from '../shared/use-dark';

export interface RuleDatum {
  readonly mode: 'iptables' | 'ipvs' | 'nftables';
  readonly netfilterRules: number;
  readonly chains: number;
  readonly setElements: number;
  readonly ipvsRealServers: number;
}

const SERIES = [
  { key: 'netfilterRules', name: 'Netfilter rules', light: '#0369a1', dark: '#38bdf8' },
  { key: 'chains', name: 'Chains', light: '#64748b', dark: '#cbd5e1' },
  { key: 'setElements', name: 'ipset / nft set elements', light: '#059669', dark: '#34d399' },
  { key: 'ipvsRealServers', name: 'IPVS real servers', light: '#7c3aed', dark: '#c4b5fd' },
] as const;

export function RuleCountChart({ data, currentMode }: { readonly data: readonly RuleDatum[]; readonly currentMode: string | null }) {
  const dark = useDark();
  const rows = data.map((d) => ({ ...d, label: d.mode === currentMode ? `${d.mode === 'ipvs' ? 'IPVS' : d.mode} (this cluster)` : d.mode === 'ipvs' ? 'IPVS' : d.mode }));
  const summary = data.map((d) => `${d.mode}: ${d.netfilterRules} netfilter rules, ${d.chains} chains, ${d.setElements} set elements, ${d.ipvsRealServers} IPVS real servers`).join('; ');
  return (
    <ChartFrame label="Estimated per-node rules and objects for iptables, IPVS and nftables modes" summary={summary} height={300}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} margin={{ top: 10, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={AXIS_TICK} interval={0} />
          <YAxis tick={AXIS_TICK} width={56} allowDecimals={false} />
          <Tooltip />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {SERIES.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.name} fill={dark ? s.dark : s.light} isAnimationActive={false} maxBarSize={48} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

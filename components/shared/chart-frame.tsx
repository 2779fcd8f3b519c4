'use client';

/**
 * Shared pieces of the recharts charts: a fixed-height responsive frame, theme-aware colours
 * (read from CSS variables, so dark mode works without re-rendering on the server), and a tooltip
 * style. Only the `*-chart.tsx` files of the view folders import recharts (a lint rule).
 */
import type { ReactNode } from 'react';

export const CHART_COLORS = {
  ready: '#0284c7',
  readyLow: '#dc2626',
  minimum: '#b91c1c',
  desired: '#1d4ed8',
  maximum: '#b45309',
  on: '#059669',
  off: '#dc2626',
  line: '#475569',
  donated: '#7c3aed',
  iptables: '#0369a1',
  ipvs: '#7c3aed',
  nftables: '#059669',
} as const;

export const DARK_CHART_COLORS: Partial<Record<keyof typeof CHART_COLORS, string>> = {
  ready: '#38bdf8',
  readyLow: '#f87171',
  minimum: '#f87171',
  desired: '#93c5fd',
  maximum: '#fbbf24',
  on: '#34d399',
  off: '#f87171',
  line: '#cbd5e1',
  donated: '#c4b5fd',
  iptables: '#38bdf8',
  ipvs: '#c4b5fd',
  nftables: '#34d399',
};

export const AXIS_TICK = { fill: 'var(--chart-text)', fontSize: 12 } as const;

/** A chart region with an accessible name and a text alternative for screen readers. */
export function ChartFrame({ label, summary, height, children }: { readonly label: string; readonly summary: ReactNode; readonly height: number; readonly children: ReactNode }) {
  return (
    <figure className="min-w-0 space-y-1">
      {/* contain: inline-size: the chart takes the width it is given and never widens its column (recharts sets pixel widths). */}
      <div role="img" aria-label={label} className="[contain:inline-size]" style={{ width: '100%', height }}>
        {children}
      </div>
      <figcaption className="sr-only">{summary}</figcaption>
    </figure>
  );
}

/** Words and tones of a fleet row's fields, shared by the fleet table, its summary and the switcher. */
import type { FleetFreshness } from '@/lib/views/fleet/freshness';
import type { FleetRow } from '@/lib/views/fleet/row';
import type { Tone } from '../ui/status';

const PLATFORM: Record<NonNullable<FleetRow['platform']>, string> = { eks: 'EKS', gke: 'GKE', aks: 'AKS', other: 'other' };

/** `EKS`, `GKE`, `AKS`, `other`; `—` when not known yet. */
export function platformLabel(platform: FleetRow['platform']): string {
  return platform === null ? '—' : PLATFORM[platform];
}

/** The tone of a freshness: synced (forbidden types: warn), syncing, stale, error, not connected or closed. */
export function freshnessTone(freshness: FleetFreshness): Tone {
  switch (freshness.kind) {
    case 'synced':
      return freshness.message === null ? 'ok' : 'warn';
    case 'syncing':
      return 'info';
    case 'stale':
      return 'warn';
    case 'error':
      return 'error';
    default:
      return 'neutral';
  }
}

/** Who routes Service traffic and in which mode: `iptables`, `ipvs`, `nftables`, `Cilium eBPF`, … */
export function proxyLabel(row: Pick<FleetRow, 'proxyMode' | 'serviceProxy'>): string {
  if (row.serviceProxy === 'cilium') return 'Cilium eBPF';
  if (row.serviceProxy === 'calico-ebpf') return 'Calico eBPF';
  if (row.proxyMode === null) return '—';
  return row.proxyMode === 'unknown' ? 'unknown' : row.proxyMode;
}

/** `10:04:11 UTC`, with the date when it is not today's (the figures of a cluster closed yesterday). */
export function shortTime(iso: string, now: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = date.toISOString();
  const day = text.slice(0, 10);
  return day === now.slice(0, 10) ? `${text.slice(11, 19)} UTC` : `${day} ${text.slice(11, 16)} UTC`;
}

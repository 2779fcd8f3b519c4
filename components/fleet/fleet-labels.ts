/** Words and tones of a fleet row's fields, shared by the fleet table, its summary and the switcher. */
import { HINTS_OFF_CAUSE } from '@/lib/views/fleet/attention-words';
import type { FleetFreshness } from '@/lib/views/fleet/freshness';
import type { FleetAttention, FleetRow } from '@/lib/views/fleet/row';
import { ATTENTION } from '../shared/labels';
import { formatCount, plural } from '../ui/format';
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

/**
 * A cluster's most common reason for attention in words that hold for every Service counted:
 * `Hints off — fewer ready endpoints than zones (12 Services)`; with several controller reasons,
 * each counted: `Hints off (12 Services): fewer ready endpoints than zones (9), some endpoints
 * have no zone (3)`; for another reason its label, `Out of sync (3 Services)`.
 */
export function commonAttentionWords(common: Pick<FleetAttention, 'reason' | 'services' | 'causes'>): string {
  const label = ATTENTION[common.reason].label;
  const count = plural(common.services, 'Service');
  const [only, ...more] = common.causes;
  if (only === undefined) return `${label} (${count})`;
  if (more.length === 0) return `${label} — ${HINTS_OFF_CAUSE[only.code]} (${count})`;
  return `${label} (${count}): ${common.causes.map((c) => `${HINTS_OFF_CAUSE[c.code]} (${formatCount(c.services)})`).join(', ')}`;
}

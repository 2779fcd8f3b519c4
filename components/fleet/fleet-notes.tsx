/** What the fleet page says besides its table: the clusters the open-cluster limit keeps closed, and a lone cluster. */
import type { FleetPrometheusStatus } from '@/lib/views/fleet/prometheus-cache';
import type { FleetRow } from '@/lib/views/fleet/row';
import { formatCount, plural } from '../ui/format';
import { Callout } from '../ui/status';

/** `after 15 min`, `after 30 s`, or `never` for 0. */
export function idleWords(minutes: number): string {
  if (minutes <= 0) return 'never';
  return minutes >= 1 ? `after ${formatCount(minutes)} min` : `after ${formatCount(minutes * 60)} s`;
}

/** The clusters not opened because `maxOpen` are open; nothing when there are none. */
export function LimitNote({ rows, maxOpen, idleMinutes }: { readonly rows: readonly FleetRow[]; readonly maxOpen: number; readonly idleMinutes: number }) {
  const limited = rows.filter((r) => r.refused?.reason === 'limit');
  if (limited.length === 0) return null;
  return (
    <Callout tone="warn" role="status" title={`${plural(limited.length, 'cluster')} not connected: at most ${formatCount(maxOpen)} clusters are open at once.`}>
      <p>
        {limited.map((r) => r.displayName).join(', ')} {limited.length === 1 ? 'is' : 'are'} not opened (ZONESCOPE_MAX_OPEN_CLUSTERS counts the default cluster). Clusters unused close{' '}
        {idleMinutes <= 0 ? 'never (ZONESCOPE_CLUSTER_IDLE_MINUTES is 0)' : `${idleWords(idleMinutes)} (ZONESCOPE_CLUSTER_IDLE_MINUTES)`}; raise the limit or come back later. Their last
        figures, if any, are shown with their time.
      </p>
    </Callout>
  );
}

/** A fleet of one: where the others would come from. */
export function SingleClusterNote({ rows }: { readonly rows: readonly FleetRow[] }) {
  if (rows.length !== 1) return null;
  return (
    <Callout tone="info" title="One cluster is configured.">
      <p>The fleet lists every context of the kubeconfig (or those ZONESCOPE_CONTEXTS names); this installation reads one.</p>
    </Callout>
  );
}

/**
 * The fleet Prometheus (`ZONESCOPE_FLEET_PROMETHEUS_URL`): where the rows marked "from Prometheus"
 * come from, and that it cannot be read when its last queries failed; nothing when not configured.
 */
export function FleetPrometheusNote({ status, rows }: { readonly status: FleetPrometheusStatus | null; readonly rows: readonly FleetRow[] }) {
  if (status === null) return null;
  const fromPrometheus = rows.filter((r) => r.source === 'prometheus').length;
  if (status.state === 'error') {
    return (
      <Callout tone="error" role="alert" title={status.message ?? 'fleet Prometheus unreachable'}>
        <p>
          The connected clusters are shown regardless{fromPrometheus > 0 ? `; the ${plural(fromPrometheus, 'row')} from Prometheus ${fromPrometheus === 1 ? 'is' : 'are'} its last answer` : ''}.
          The queries run again every 30 seconds ({status.url}).
        </p>
      </Callout>
    );
  }
  return (
    <Callout tone="info" title={status.state === 'pending' ? 'Asking the fleet Prometheus…' : `${plural(fromPrometheus, 'cluster')} from the fleet Prometheus.`}>
      <p>
        Rows marked <strong>from Prometheus</strong> are clusters this installation does not connect to: their figures are what the zonescope installed in each of them exports at
        /metrics, read from {status.url} and grouped by its <code>{status.clusterLabel}</code> label (ZONESCOPE_FLEET_CLUSTER_LABEL), at most every 30 seconds (reload the page for newer figures). A cluster that is
        connected here too shows its connected row. Their cost is each installation&apos;s own figure; the costliest Service and its reason come from its per-Service series, without a
        link or a fix.
        {status.state === 'pending' ? ' The first answer is on its way; this page refreshes.' : ''}
      </p>
    </Callout>
  );
}

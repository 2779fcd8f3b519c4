/**
 * The inter-zone counter against the flows: Beyla's / OBI's `*_network_inter_zone_bytes_total`
 * (each byte once) compared with the flows' cross-zone bytes (Services' and other workloads'),
 * within {@link RECONCILE_TOLERANCE}, with a sentence saying whether they agree and, if not, what
 * the likely cause is.
 */
import type { InterZoneReconciliation } from './traffic-volume';
import { gbPerMonthOf, RECONCILE_TOLERANCE } from './traffic-volume';

/** The flows' cross-zone bytes/s (attributed and not) against the inter-zone counter's (each byte once). */
export function reconcileInterZone(servicesBps: number, otherBps: number, interZoneBps: number): InterZoneReconciliation {
  const flows = servicesBps + otherBps;
  const largest = Math.max(flows, interZoneBps);
  const agrees = largest === 0 || Math.abs(flows - interZoneBps) <= RECONCILE_TOLERANCE * largest;
  const gb = (bps: number) => formatGb(gbPerMonthOf(bps));
  const both = `flows ${gb(flows)} GB/month (Services ${gb(servicesBps)}, other workloads ${gb(otherBps)}) against the inter-zone counter's ${gb(interZoneBps)} GB/month`;
  const note = agrees
    ? `Cross-zone bytes agree: ${both}.`
    : flows > interZoneBps
      ? `Cross-zone bytes disagree: ${both}. The flows count more: are some nodes without an agent, or zone labels that differ between the two metrics' attribute sets?`
      : `Cross-zone bytes disagree: ${both}. The counter counts more: traffic of ends without Kubernetes metadata (outside the cluster) or series left out of the flow query's attribute set.`;
  return { servicesGbPerMonth: gbPerMonthOf(servicesBps), otherGbPerMonth: gbPerMonthOf(otherBps), interZoneGbPerMonth: gbPerMonthOf(interZoneBps), agrees, note };
}

function formatGb(gb: number): string {
  return gb >= 100 ? Math.round(gb).toLocaleString('en-US') : gb >= 1 ? gb.toFixed(1) : gb.toFixed(3);
}

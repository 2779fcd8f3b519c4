/**
 * Where two panels of the Service page would state the same fact: the page says it once and the
 * other panel links to it. Pure.
 *
 * - The HPA panel's pods per zone against the minimum repeat the distribution panel's minimum
 *   table whenever every zone's ready pods are its ready endpoints (the usual case: one Deployment,
 *   no pod outside the Service): then the HPA panel says in a sentence which zones donate and
 *   receive, and links to the table.
 * - The verdict names the replica counts where hints turn off, and the minReplicas that avoids
 *   them, when hints are on now: the HPA panel's recommendation saying the same then links to it.
 */
import type { HpaAnalysis, HpaRangeRisk } from '@/lib/topology/analyses/hpa';
import { hpaRangeRisk } from '@/lib/topology/analyses/hpa';
import type { MinimumTable } from '@/lib/topology/analyses/minimum-table';
import type { ServiceDetail } from '@/lib/topology/report/analysis-schema';

/** Same within rounding (desired is a fraction). */
function near(a: number | null, b: number): boolean {
  return a !== null && Math.abs(a - b) < 1e-9;
}

/** Whether the pods per zone are the minimum table's rows again: same zones, ready pods = ready endpoints, no pod not ready, same allocation. */
export function podsRepeatMinimumTable(analysis: Pick<HpaAnalysis, 'podsByZone'>, table: Pick<MinimumTable, 'rows'> | null): boolean {
  if (table === null || analysis.podsByZone.length !== table.rows.length) return false;
  return analysis.podsByZone.every((z) => {
    const row = table.rows.find((r) => r.zone === z.zone);
    return row !== undefined && z.pods === z.readyPods && z.readyPods === row.readyEndpoints && near(z.minimum, row.minimum) && near(z.desired, row.desired) && near(z.maximum, row.maximum);
  });
}

/** The zones that donate (above their maximum) and receive (below their minimum), in a sentence; `''` when none. */
export function donationSentence(analysis: Pick<HpaAnalysis, 'podsByZone' | 'hintsEnabledNow'>): string {
  const above = analysis.podsByZone.filter((z) => z.maximum !== null && z.readyPods > z.maximum).map((z) => z.zone);
  const below = analysis.podsByZone.filter((z) => z.belowMinimum).map((z) => z.zone);
  if (above.length === 0 && below.length === 0) return 'Every zone is within its range.';
  const off = analysis.hintsEnabledNow === false;
  const parts: string[] = [];
  if (above.length > 0) parts.push(`${above.join(', ')} above ${above.length === 1 ? 'its maximum' : 'their maximums'}${off ? '' : ` (${above.length === 1 ? 'donates' : 'donate'})`}`);
  if (below.length > 0) parts.push(`${below.join(', ')} below ${below.length === 1 ? 'its minimum' : 'their minimums'}${off ? '' : ` (${below.length === 1 ? 'receives' : 'receive'} donations)`}`);
  return `${parts.join('; ')}.`;
}

/** The HPA-range risk the verdict shows (hints on now, off at counts the HPA may reach, no other fix first); `null` when it does not. */
export function verdictRangeRisk(detail: Pick<ServiceDetail, 'expected' | 'hpa' | 'mechanism' | 'fixes'>): HpaRangeRisk | null {
  if (!detail.expected.hintsEnabled || !detail.hpa || (detail.mechanism !== 'topology-mode' && detail.mechanism !== 'legacy-annotation')) return null;
  if (detail.fixes.length > 0) return null;
  return hpaRangeRisk(detail.hpa);
}

/**
 * The Overview's two cluster-level answers, one line each, each linking to the Services table
 * filtered (and sorted) to the Services it counts: whose HPA turns hints off when it scales down,
 * and where the cross-zone share measured by zone-resolved flows disagrees with the prediction.
 */
import type { ReactNode } from 'react';
import type { ClusterAnswers as Answers } from '@/lib/views/services/attention';
import { ClusterLink } from '../layout/cluster-base';
import { formatCount } from '../ui/format';
import { LINK } from '../ui/panel';
import type { Tone } from '../ui/status';
import { ToneIcon } from '../ui/status';

/** The Services table filtered to the HPAs that turn hints off at minReplicas, worst first. */
export const HPA_OFF_AT_MIN_HREF = '/services?hpa=off-at-min&sort=hpa';
/** The Services table filtered to every HPA that turns hints off somewhere in its range, worst first. */
export const HPA_OFF_HREF = '/services?hpa=off&sort=hpa';

/** The Services table filtered to the Services measured `points` or more from the prediction, largest difference first. */
export function measuredDiffHref(points: number): string {
  return `/services?measuredDiff=${points}&sort=measuredDiff&order=desc`;
}

const services = (n: number) => `${formatCount(n)} Service${n === 1 ? '' : 's'}`;

function Line({ tone, children }: { readonly tone: Tone; readonly children: ReactNode }) {
  return (
    <li className="flex items-start gap-2">
      <ToneIcon tone={tone} className="mt-0.5 h-4 w-4 shrink-0" />
      <span>{children}</span>
    </li>
  );
}

function HpaLine({ answers }: { readonly answers: Answers }) {
  const { withHpa, hpaOffAtMin, hpaOffInRange, hpaUnknown } = answers;
  if (hpaUnknown > 0 && withHpa === 0) return <Line tone="warn">HPA scale-down: unknown for {services(hpaUnknown)} (zonescope could not read a type the workload lookup needs).</Line>;
  if (withHpa === 0) return <Line tone="neutral">No Service is scaled by an HPA: no scale-down can turn hints off.</Line>;
  if (hpaOffAtMin === 0 && hpaOffInRange === 0) {
    return <Line tone="ok">No HPA turns hints off: at every replica count of their ranges the per-zone minimums fit ({services(withHpa)} scaled by an HPA).</Line>;
  }
  return (
    <Line tone={hpaOffAtMin > 0 ? 'error' : 'warn'}>
      {hpaOffAtMin > 0 ? (
        <ClusterLink href={HPA_OFF_AT_MIN_HREF} className={LINK}>
          {services(hpaOffAtMin)} whose HPA{hpaOffAtMin === 1 ? ' turns' : 's turn'} hints off at minReplicas
        </ClusterLink>
      ) : null}
      {hpaOffAtMin > 0 && hpaOffInRange > 0 ? '; ' : null}
      {hpaOffInRange > 0 ? (
        <ClusterLink href={HPA_OFF_HREF} className={LINK}>
          {hpaOffAtMin > 0 ? `${formatCount(hpaOffInRange)} more` : services(hpaOffInRange)} whose HPA{hpaOffInRange === 1 ? ' turns' : 's turn'} them off at another count of the range
        </ClusterLink>
      ) : null}{' '}
      <span className="text-slate-600 dark:text-slate-400">(Σ per-zone minimums exceed the replicas; of {services(withHpa)} scaled by an HPA).</span>
    </Line>
  );
}

function MeasuredLine({ answers }: { readonly answers: Answers }) {
  const { measured, measuredDiffers, threshold } = answers;
  if (measured === 0) return <Line tone="neutral">No Service is measured with zone-resolved flows: nothing to compare with the predicted cross-zone share.</Line>;
  if (measuredDiffers === 0) {
    return (
      <Line tone="ok">
        Measured cross-zone traffic is within {threshold} points of the prediction for all {services(measured)} measured with zone-resolved flows.
      </Line>
    );
  }
  return (
    <Line tone="warn">
      <ClusterLink href={measuredDiffHref(threshold)} className={LINK}>
        {services(measuredDiffers)} where measured cross-zone differs from the prediction by ≥ {threshold} points
      </ClusterLink>{' '}
      <span className="text-slate-600 dark:text-slate-400">(of {services(measured)} measured with zone-resolved flows; the Service page says which cause fits).</span>
    </Line>
  );
}

/** The two answers as a short list (above the Services needing attention). */
export function ClusterAnswers({ answers }: { readonly answers: Answers }) {
  return (
    <ul aria-label="Cluster-wide checks" className="space-y-1.5 border-b border-slate-200 pb-3 text-sm dark:border-slate-800">
      <HpaLine answers={answers} />
      <MeasuredLine answers={answers} />
    </ul>
  );
}

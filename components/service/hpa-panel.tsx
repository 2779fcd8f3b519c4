/**
 * The Deployment (and HPA) behind the Service against the `Auto` heuristic: pods per zone vs the
 * minimum now, the replica scan (where hints turn off), the risk of a zone-blind scale-down, the
 * topologySpreadConstraints check and what to do (spread constraints, descheduler, per-zone
 * Deployments).
 */
import type { HpaAnalysis } from '@/lib/topology/analyses/hpa';
import { HpaScanChart } from './hpa-scan-chart';
import { scanTuples } from './hpa-scan-data';
import { HpaScanTable } from './hpa-scan-table';
import { CommandBlock } from '../ui/command';
import { formatDecimal, formatPercent } from '../ui/format';
import { Code, Facts, Formula, LINK } from '../ui/panel';
import { Badge, Callout } from '../ui/status';
import { donationSentence } from './panel-overlap';

function Probability({ label, value, tone, note }: { readonly label: string; readonly value: number; readonly tone: 'ok' | 'warn' | 'error'; readonly note?: string }) {
  const t = value === 0 ? 'ok' : tone;
  return (
    <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
      <dt className="text-xs text-slate-600 dark:text-slate-400">{label}</dt>
      <dd className="mt-0.5 flex items-center gap-2">
        <span className="text-lg font-semibold tabular-nums">{formatPercent(value)}</span>
        <Badge tone={t}>{value === 0 ? 'never' : value >= 0.999 ? 'certain' : value >= 0.5 ? 'likely' : 'possible'}</Badge>
      </dd>
      {note ? <dd className="mt-0.5 text-xs text-slate-600 dark:text-slate-400">{note}</dd> : null}
    </div>
  );
}

export function HpaPanel({
  analysis: a,
  trafficDistribution = null,
  podsRepeatMinimums = false,
  riskInVerdict = false,
}: {
  readonly analysis: HpaAnalysis;
  /** Set when the Service's hints come from trafficDistribution. */
  readonly trafficDistribution?: string | null;
  /** The pods per zone are the distribution panel's minimum table again (./panel-overlap.ts): a sentence and a link instead of the table. */
  readonly podsRepeatMinimums?: boolean;
  /** The verdict shows the replica counts where hints turn off and the minReplicas that avoids them: the recommendation saying so links there. */
  readonly riskInVerdict?: boolean;
}) {
  const hpa = a.autoscaler;
  const recommendations = riskInVerdict ? a.recommendations.filter((r) => r.id !== 'avoid-replica-counts') : a.recommendations;
  const sc = a.spreadConstraint;
  const sd = a.scaleDown;
  return (
    <div className="space-y-5">
      {trafficDistribution !== null ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          This Service&apos;s hints come from trafficDistribution: {trafficDistribution}, which has no per-zone minimums: the minimums and hints-off counts below are what
          topology mode Auto would need, not limits on it.
        </p>
      ) : null}
      <Facts
        items={[
          {
            label: 'Deployment',
            value: (
              <>
                <Code>
                  {a.deployment.namespace}/{a.deployment.name}
                </Code>{' '}
                {a.deployment.readyReplicas}/{a.deployment.replicas} ready{a.unscheduledPods > 0 ? `, ${a.unscheduledPods} unscheduled` : ''}
              </>
            ),
          },
          ...(hpa
            ? [
                {
                  label: 'HorizontalPodAutoscaler',
                  value: (
                    <>
                      <Code>{hpa.name}</Code> min {hpa.minReplicas}, max {hpa.maxReplicas}, current {hpa.currentReplicas ?? '?'}, desired {hpa.desiredReplicas ?? '?'}
                    </>
                  ),
                },
              ]
            : [{ label: 'HorizontalPodAutoscaler', value: 'none scales this Deployment' }]),
          ...(a.otherWorkloads.length > 0 ? [{ label: 'Also selected', value: a.otherWorkloads.join(', ') }] : []),
        ]}
      />

      <div className="grid gap-3 md:grid-cols-2">
        <Callout tone={a.hintsEnabledNow === false ? 'error' : 'info'} title="1. The count decides on/off">
          <p>{a.truths.count}</p>
        </Callout>
        <Callout tone={a.donatedNow > 0 ? 'warn' : 'info'} title="2. Placement decides donations">
          <p>{a.truths.placement}</p>
        </Callout>
      </div>

      {podsRepeatMinimums ? (
        <p className="text-sm" data-testid="pods-per-zone">
          <strong>Pods per zone now</strong> are the ready endpoints per zone of{' '}
          <a href="#distribution" className={LINK}>
            Endpoint distribution
          </a>{' '}
          (minimum, desired and maximum there): {donationSentence(a)} {a.donatedNow} endpoint(s) donated with this placement.
        </p>
      ) : (
        <div>
          <h3 className="mb-1 text-sm font-semibold">Pods per zone now vs the minimum</h3>
          <div className="overflow-x-auto">
            <table className="w-full text-sm">
              <caption className="sr-only">Pods per zone against the allocation for {a.readyPods} ready pods</caption>
              <thead>
                <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
                  <th scope="col" className="py-1.5 pr-3 font-medium">Zone</th>
                  <th scope="col" className="py-1.5 pr-3 text-right font-medium">Pods</th>
                  <th scope="col" className="py-1.5 pr-3 text-right font-medium">Ready</th>
                  <th scope="col" className="py-1.5 pr-3 text-right font-medium">Minimum</th>
                  <th scope="col" className="py-1.5 pr-3 text-right font-medium">Desired</th>
                  <th scope="col" className="py-1.5 pr-3 text-right font-medium">Maximum</th>
                  <th scope="col" className="py-1.5 font-medium">State</th>
                </tr>
              </thead>
              <tbody>
                {a.podsByZone.map((z) => (
                  <tr key={z.zone} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                    <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-mono font-normal">{z.zone}</th>
                    <td className="py-1.5 pr-3 text-right tabular-nums">{z.pods}</td>
                    <td className="py-1.5 pr-3 text-right tabular-nums">{z.readyPods}</td>
                    <td className="py-1.5 pr-3 text-right tabular-nums">{z.minimum ?? '—'}</td>
                    <td className="py-1.5 pr-3 text-right tabular-nums">{formatDecimal(z.desired)}</td>
                    <td className="py-1.5 pr-3 text-right tabular-nums">{z.maximum ?? '—'}</td>
                    <td className="py-1.5">
                      {z.belowMinimum ? (
                        <Badge tone="warn">{a.hintsEnabledNow === false ? 'below minimum' : 'below minimum: receives donations'}</Badge>
                      ) : z.maximum !== null && z.readyPods > z.maximum ? (
                        <Badge tone="info">{a.hintsEnabledNow === false ? 'above maximum' : 'above maximum: donates'}</Badge>
                      ) : (
                        <Badge tone="ok">within range</Badge>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Formula>minimum = ceil({a.readyPods} × zone CPU ratio / 1.2) for the {a.readyPods} ready pods; {a.donatedNow} endpoint(s) donated with this placement.</Formula>
        </div>
      )}

      {a.scan && a.scan.length > 0 ? (
        <div className="space-y-2">
          <h3 className="text-sm font-semibold">
            Every replica count from {a.scan[0]?.replicas} to {a.scan[a.scan.length - 1]?.replicas}: where hints turn off
          </h3>
          <HpaScanChart
            scan={scanTuples(a.scan)}
            current={hpa?.currentReplicas ?? a.deployment.replicas}
          />
          <p className="text-sm">
            {a.hintsOffAt.length > 0 ? (
              <>
                <Badge tone="error">hints off</Badge> at <strong>{a.hintsOffAt.join(', ')}</strong> replicas (Σ minimum &gt; replicas: red bars above the line).
              </>
            ) : (
              <>
                <Badge tone="ok">hints on</Badge> at every replica count in the HPA range.
              </>
            )}
          </p>
          <HpaScanTable scan={scanTuples(a.scan)} />
        </div>
      ) : null}

      {sd ? (
        <div className="space-y-2">
          <h3 className="text-sm font-semibold">
            Scale-down risk: {sd.fromReplicas} → {sd.toReplicas} replicas ({sd.from === 'current' ? 'from the current pods' : 'from an even spread at maxReplicas'}:{' '}
            {Object.entries(sd.fromCountsByZone)
              .map(([zone, n]) => `${zone} ${n}`)
              .join(', ')}
            )
          </h3>
          <dl className="grid grid-cols-2 gap-2 md:grid-cols-5">
            <Probability label="Hints off afterwards" value={sd.pHintsOff} tone="error" note="depends on the count only" />
            <Probability label="Some endpoint donated" value={sd.pDonation} tone="warn" note={`expected ${formatDecimal(sd.expectedDonated)} donated`} />
            <Probability label="A zone left without pods" value={sd.pZoneWithoutLocalEndpoints} tone="warn" />
            <Probability label="A zone left without hints" value={sd.pZoneWithoutHints} tone="warn" note="its kube-proxies fall back to all endpoints" />
            <div className="rounded-md border border-slate-200 p-2 text-xs dark:border-slate-800">
              <dt className="text-slate-600 dark:text-slate-400">Method</dt>
              <dd className="mt-0.5">
                {sd.method === 'exact' ? `exact over ${sd.outcomes ?? '?'} outcomes` : `Monte Carlo, ${sd.samples ?? '?'} samples (seed ${sd.seed ?? '?'}), ±${(sd.standardError * 100).toFixed(1)} pp`}
              </dd>
            </div>
          </dl>
          <p className="text-sm text-slate-700 dark:text-slate-300">{sd.explanation}</p>
          <Formula>The ReplicaSet controller picks victims without looking at zones, so the surviving pods per zone follow a multivariate hypergeometric draw from the current counts.</Formula>
        </div>
      ) : null}

      <Callout tone={sc.present && sc.hard && sc.selectorMatchesPods ? 'ok' : sc.present ? 'warn' : 'warn'} title="topologySpreadConstraints on topology.kubernetes.io/zone">
        <p>{sc.explanation}</p>
        {sc.present ? (
          <p className="text-xs">
            maxSkew {sc.maxSkew ?? '?'}, whenUnsatisfiable {sc.whenUnsatisfiable ?? '?'}, selector {sc.selectorMatchesPods ? 'matches the pods' : 'does NOT match the pods'}
            {sc.minDomains !== null ? `, minDomains ${sc.minDomains}` : ''}
            {sc.zoneAntiAffinity ? '; plus a required zone anti-affinity' : ''}.
          </p>
        ) : null}
      </Callout>

      {recommendations.length > 0 ? (
        <div className="space-y-3">
          <h3 className="text-sm font-semibold">Recommendations</h3>
          {riskInVerdict ? (
            <p className="text-sm text-slate-700 dark:text-slate-300">
              The replica counts where hints turn off, and the minReplicas that avoids them:{' '}
              <a href="#verdict" className={LINK}>
                Risk within the HPA range
              </a>
              , in the verdict.
            </p>
          ) : null}
          <ul className="grid gap-3 lg:grid-cols-2">
            {recommendations.map((r) => (
              <li key={r.id} className="min-w-0 space-y-1.5 rounded-md border border-slate-200 p-3 dark:border-slate-700">
                <p className="font-semibold">{r.title}</p>
                <p className="text-sm text-slate-700 dark:text-slate-300">{r.detail}</p>
                {r.snippet ? <CommandBlock command={r.snippet} language={r.snippet.startsWith('kubectl ') ? 'shell' : 'yaml'} /> : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

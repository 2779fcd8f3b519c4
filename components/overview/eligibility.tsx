/**
 * Can Topology Aware Routing work in this cluster at all? The controller's SetNodes verdict, every
 * node that makes the cluster ineligible with its copyable fix, and the re-run with the fixes.
 */
import type { ClusterReport } from '@/lib/topology/report/analysis-schema';
import { Commands, CommandBlock } from '../ui/command';
import { formatPercent } from '../ui/format';
import { Code } from '../ui/panel';
import { Callout } from '../ui/status';

export function EligibilityVerdict({ cluster }: { readonly cluster: ClusterReport }) {
  const v = cluster.eligibilityVerification;
  // Nodes forbidden: an empty node list is the identity's view, not the cluster's (no verdict).
  if (cluster.unknown.eligibility !== undefined) {
    return (
      <Callout tone="warn" title="Eligibility unknown">
        <p>{cluster.unknown.eligibility}</p>
      </Callout>
    );
  }
  return (
    <div className="space-y-3">
      <Callout tone={cluster.eligible ? 'ok' : 'error'} title={cluster.eligible ? 'Eligible: the EndpointSlice controller has CPU ratios for every zone.' : 'Not eligible: topology hints are off for every Service.'}>
        <p>{cluster.verdict}</p>
      </Callout>
      {cluster.ineligibleNodes.length > 0 ? (
        <div className="space-y-3">
          <h3 className="text-sm font-semibold">
            Fix {cluster.ineligibleNodes.length === 1 ? 'this node' : `these ${cluster.ineligibleNodes.length} nodes`} (upstream stops at the first one it meets; every one must be fixed)
          </h3>
          <ol className="space-y-3">
            {cluster.ineligibleNodes.map((fix) => (
              <li key={fix.node} className="space-y-1.5 rounded-md border border-red-300 p-3 dark:border-red-800">
                <p className="text-sm">
                  <strong className="font-mono">{fix.node}</strong> — {fix.cause === 'missing-zone' ? 'no zone label' : 'no allocatable CPU'}
                  {fix.suggestedZone ? (
                    <>
                      {' '}
                      (providerID suggests <Code>{fix.suggestedZone}</Code>
                      {/^[a-z]+-[a-z]+-\d+$/.test(fix.suggestedZone) ? ', which looks like a region: check the exact zone before labelling' : ''})
                    </>
                  ) : null}
                </p>
                <p className="text-sm text-slate-700 dark:text-slate-300">{fix.description}</p>
                <Commands commands={fix.commands} />
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {v ? (
        <Callout tone={v.eligible ? 'info' : 'warn'} title={v.eligible ? 'With the fixes applied, the cluster becomes eligible.' : 'The fixes alone do not make the cluster eligible.'}>
          {v.cpuRatiosByZone ? (
            <p>
              CPU ratios after the fix:{' '}
              {Object.entries(v.cpuRatiosByZone)
                .map(([zone, ratio]) => `${zone} ${formatPercent(ratio)}`)
                .join(', ')}
              .
            </p>
          ) : null}
          <p className="text-xs">Simulation assumed: {v.assumption}.</p>
        </Callout>
      ) : null}
      <div className="space-y-1">
        <p className="text-xs text-slate-600 dark:text-slate-400">Check the map against the cluster:</p>
        <CommandBlock command={cluster.inspectCommand} />
      </div>
    </div>
  );
}

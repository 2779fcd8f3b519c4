/**
 * The banner shown while the identity zonescope runs as may not read some resource types: which
 * types, who zonescope is (SelfSubjectReview), which answers are unknown because of it, and the
 * ready-to-apply ClusterRole and binding that grant them.
 */
import type { HeaderView } from '@/lib/views/header';
import { CommandBlock, Commands } from '../ui/command';
import { Callout } from '../ui/status';

/** How the banner names each answer a forbidden type leaves unknown (ids as in docs/analyze-schema.md). */
export const ANSWER_LABELS: Readonly<Record<string, string>> = {
  'cluster.services': 'every Service',
  'cluster.zones': 'zone map and CPU ratios',
  'cluster.eligibility': 'eligibility',
  'cluster.dataplane': 'kube-proxy mode and whether it honours hints',
  'cluster.ruleEstimates': 'rule estimates',
  'services[].expectedHints': 'expected hints',
  'services[].observedHints': 'observed hints',
  'services[].endpoints': 'endpoints',
  'services[].crossZone': 'cross-zone traffic and cost',
  'services[].hpa': 'HPA scan and scale-down risk',
  'services[].events': 'Service events',
  'services[].fixes': 'fixes',
};

/** `null` when every type could be read. */
export function PermissionsBanner({ header }: { readonly header: HeaderView }) {
  const forbidden = header.freshness.forbidden;
  const permissions = header.permissions;
  if (forbidden.length === 0 || permissions === null) return null;
  return (
    <Callout tone="warn" title={`zonescope could not read ${forbidden.map((f) => f.title).join(', ')} (forbidden)`}>
      <p>
        zonescope reads the cluster as <strong data-testid="identity">{permissions.identity}</strong>
        {permissions.identityKnown ? '' : ' (the API server did not say who that is)'}, which may not list and watch these types. The answers that depend on them say
        “unknown” instead of a verdict:
      </p>
      <ul className="list-disc pl-5">
        {forbidden.map((f) => (
          <li key={f.resource}>
            <strong>{f.title}</strong>: {f.affects.map((a) => ANSWER_LABELS[a] ?? a).join(', ')}. RBAC rule that grants it: <code>{f.rule}</code>
            {f.message ? <span className="block text-xs text-slate-600 dark:text-slate-400">API server: {f.message}</span> : null}
          </li>
        ))}
      </ul>
      <p>Grant get, list and watch on them to {permissions.identity} with this YAML (<code>kubectl apply -f -</code>) and binding (zonescope picks the change up within a minute):</p>
      <CommandBlock language="yaml" label="Roles granting the missing permissions" command={permissions.clusterRole} />
      <Commands commands={permissions.bind} />
    </Callout>
  );
}

/** Policy lints: traffic policies, annotation precedence and values that override or disable hints. */
import type { ServiceLint } from '@/lib/topology/analyses/service-mechanism';
import { Callout, severityTone } from '../ui/status';

export function Lints({ lints }: { readonly lints: readonly ServiceLint[] }) {
  if (lints.length === 0) return <p className="text-sm text-slate-700 dark:text-slate-300">No policy problems: no traffic policy, annotation or field overrides the hints.</p>;
  const order = { error: 0, warning: 1, info: 2 } as const;
  return (
    <ul className="space-y-2">
      {[...lints]
        .sort((a, b) => order[a.severity] - order[b.severity])
        .map((lint) => (
          <li key={lint.id}>
            <Callout tone={severityTone(lint.severity)} title={<span className="font-mono text-xs font-normal">{lint.id}</span>}>
              <p>{lint.message}</p>
              {lint.fix ? (
                <p className="text-xs">
                  <strong>Fix:</strong> {lint.fix}
                </p>
              ) : null}
            </Callout>
          </li>
        ))}
    </ul>
  );
}

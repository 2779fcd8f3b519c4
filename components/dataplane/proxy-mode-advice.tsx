/** "Should we switch proxy mode?": the per-cluster answer, why, and the steps (lib/topology/analyses/proxy-mode-advice.ts). */
import type { ProxyModeAdvice } from '@/lib/topology/analyses/proxy-mode-advice';
import { Callout } from '../ui/status';

const TONE = { switch: 'warn', plan: 'info', stay: 'ok' } as const;

export function ProxyModeAdviceView({ advice }: { readonly advice: ProxyModeAdvice }) {
  return (
    <div className="space-y-3">
      <Callout tone={TONE[advice.action]} title={advice.verdict}>
        <ul className="list-disc space-y-1 pl-5">
          {advice.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      </Callout>
      {advice.steps.length > 0 ? (
        <ol className="list-decimal space-y-1 pl-5 text-sm">
          {advice.steps.map((s) => (
            <li key={s} className="break-words">
              {s}
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  );
}

/** The warning for very large rule counts, shown above the rule estimates. */
export function RuleCountWarning({ advice }: { readonly advice: ProxyModeAdvice }) {
  if (!advice.ruleWarning) return null;
  return (
    <Callout tone="warn" title="Very large iptables rule count">
      <p>{advice.ruleWarning}</p>
    </Callout>
  );
}

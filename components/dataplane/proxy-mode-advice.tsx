/**
 * The Dataplane page's first box: the answer in a sentence (who implements Services, whether hints
 * are honoured, what to do: ./dataplane-answer.ts), why, and the steps
 * (lib/topology/analyses/proxy-mode-advice.ts); and the warning for very large rule counts.
 */
import type { ProxyModeAdvice } from '@/lib/topology/analyses/proxy-mode-advice';
import { Callout } from '../ui/status';
import type { DataplaneAnswer } from './dataplane-answer';

export function ProxyModeAdviceView({ advice, answer }: { readonly advice: ProxyModeAdvice; readonly answer: DataplaneAnswer }) {
  return (
    <div className="space-y-3">
      <Callout tone={answer.tone}>
        <p className="text-base font-semibold" data-testid="dataplane-answer">
          {answer.state} {answer.action}
        </p>
        <ul className="list-disc space-y-1 pl-5">
          {advice.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      </Callout>
      {advice.steps.length > 0 ? (
        <ol className="list-decimal space-y-1 pl-5 text-sm" aria-label="Steps">
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

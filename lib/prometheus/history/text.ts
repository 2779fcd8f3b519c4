/**
 * The words of zonescope's history (pure): interval labels, transition sentences and mechanism
 * names, from the reason codes of lib/topology/report/hints-reason.ts and the Service's info labels.
 */
import type { HistoryTransition } from '../../shared/history-types';

/** The reason sentence of a code (the code itself when unknown to this build). */
export function reasonSentence(code: string, text: Readonly<Record<string, string>>): string {
  return text[code] ?? code;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The reason without a leading "Hints are off: " (it follows "Hints turned off: "). */
function reasonClause(code: string, text: Readonly<Record<string, string>>): string {
  const sentence = reasonSentence(code, text).replace(/^Hints are off( cluster-wide)?: /, '');
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** `text` without its final period. */
export function withoutPeriod(text: string): string {
  return text.replace(/\.$/, '');
}

/** The observed-hints interval labels. */
export const HINTS_WORD: Readonly<Record<string, string>> = { on: 'Hints on', off: 'Hints off', partial: 'Hints partial' };

/** `Hints off — <reason>`. */
export function offLabel(reason: string, text: Readonly<Record<string, string>>): string {
  return `${HINTS_WORD.off} — ${capitalise(withoutPeriod(reasonClause(reason, text)))}`;
}

/** `Hints turned off: <reason>` and the like. */
export function hintsTransitionText(to: string, reason: string | null, text: Readonly<Record<string, string>>): string {
  const head = to === 'on' ? 'Hints turned on' : to === 'off' ? 'Hints turned off' : 'Hints became partial (kube-proxy ignores partial hints)';
  return reason === null ? `${head}.` : `${head}: ${reasonClause(reason, text)}`;
}

/** `The controller should remove hints: <reason>` and the like. */
export function expectedTransitionText(to: string, reason: string | null, text: Readonly<Record<string, string>>): string {
  const head = to === 'on' ? 'The controller should write hints' : 'The controller should remove hints';
  return reason === null ? `${head}.` : `${head}: ${reasonClause(reason, text)}`;
}

/** The sentence of a hints transition with another reason; `null` for kinds whose text does not name it. */
export function transitionText(kind: HistoryTransition['kind'], to: string, reason: string | null, text: Readonly<Record<string, string>>): string | null {
  if (kind === 'hints-on' || kind === 'hints-off' || kind === 'hints-partial') return hintsTransitionText(to, reason, text);
  if (kind === 'expected-on' || kind === 'expected-off') return expectedTransitionText(to, reason, text);
  return null;
}

/** How the Service asks for hints, from its info labels: `topology-mode Auto`, `trafficDistribution PreferClose`, `(none)`. */
export function mechanismDescriptor(metric: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  const mode = metric.topology_mode ?? '';
  const distribution = metric.traffic_distribution ?? '';
  if (mode !== '') parts.push(`${metric.mechanism === 'legacy-annotation' ? 'topology-aware-hints' : 'topology-mode'} ${mode}`);
  if (distribution !== '') parts.push(`trafficDistribution ${distribution}`);
  return parts.length === 0 ? '(none)' : parts.join(', ');
}

/** The mechanism (`zonescope_service_info{mechanism}`) in words. */
export function mechanismLabel(mechanism: string): string {
  switch (mechanism) {
    case 'topology-mode':
      return 'topology-mode annotation';
    case 'legacy-annotation':
      return 'topology-aware-hints annotation (legacy)';
    case 'trafficDistribution':
      return 'spec.trafficDistribution';
    case 'none':
      return 'No mechanism';
    default:
      return mechanism;
  }
}

/**
 * The "needs attention" rules: which Services the overview lists, and why (the first rule that
 * holds gives the reason and message).
 */
import type { ServiceLint } from '../analyses/service-mechanism';
import type { AttentionReason, ServiceAttention, ServiceReport } from './analysis-schema';

/** Lints that put a Service in "needs attention", with the reason they give. */
const ATTENTION_LINTS: Readonly<Partial<Record<ServiceLint['id'], AttentionReason>>> = {
  'annotation-value-ignored': 'annotation-ineffective',
  'topology-mode-key-unsupported': 'annotation-ineffective',
  'topology-aware-hints-gate-off': 'annotation-ineffective',
  'legacy-key-overrides-topology-mode': 'annotation-ineffective',
  'traffic-distribution-unsupported': 'annotation-ineffective',
  'traffic-distribution-ignored': 'annotation-ineffective',
  'dataplane-ignores-hints': 'dataplane-ignores-hints',
  'internal-traffic-policy-local': 'hints-unused',
  'no-selector': 'hints-unused',
  headless: 'hints-unused',
};

/**
 * Why a Service needs attention, `null` when it does not: hints off although asked for, then the
 * first lint of {@link ATTENTION_LINTS} that is an error (or a warning that hints go unused), then
 * slices out of sync, partial hints, and hints on with endpoints donated across zones. Rules on the
 * expected hints are skipped while those are unknown (`report.unknown.expectedHints`).
 */
export function attentionFor(report: Pick<ServiceReport, 'mechanism' | 'expected' | 'lints' | 'diff' | 'observed' | 'traffic' | 'unknown'>): ServiceAttention | null {
  const active = report.mechanism === 'topology-mode' || report.mechanism === 'legacy-annotation';
  // Rules on the controller's expected hints (off, out of sync, donated) cannot hold when those are unknown.
  const expectedKnown = report.unknown.expectedHints === undefined;
  if (active && expectedKnown && !report.expected.hintsEnabled) return { reason: 'hints-off', message: report.expected.verdict };
  for (const lint of report.lints) {
    const reason = ATTENTION_LINTS[lint.id];
    if (!reason) continue;
    if (lint.severity === 'error' || (reason === 'hints-unused' && lint.severity === 'warning')) return { reason, message: lint.message };
  }
  if (expectedKnown && !report.diff.inSync) {
    const parts = [
      report.diff.missing > 0 ? `${report.diff.missing} missing` : null,
      report.diff.unexpected > 0 ? `${report.diff.unexpected} unexpected` : null,
      report.diff.stale > 0 ? `${report.diff.stale} stale` : null,
    ].filter(Boolean);
    return { reason: 'out-of-sync', message: `The slices differ from what the controller would write: ${parts.join(', ')} hint(s).` };
  }
  if (report.observed.hintsPresent && report.observed.readyEndpointsWithoutHints > 0) {
    return { reason: 'partial-hints', message: `${report.observed.readyEndpointsWithoutHints} ready endpoint(s) have no zone hint, so kube-proxy ignores the hints of the others too.` };
  }
  if (expectedKnown && report.expected.hintsEnabled && report.expected.donatedEndpoints > 0) {
    return {
      reason: 'cross-zone-leak',
      message:
        report.unknown.crossZone === undefined
          ? `Hints are on but ${report.expected.donatedEndpoints} endpoint(s) are donated across zones (uneven placement): ${(report.traffic.crossZoneFraction * 100).toFixed(1)} % of traffic crosses zones.`
          : `Hints are on but ${report.expected.donatedEndpoints} endpoint(s) are donated across zones (uneven placement).`,
    };
  }
  return null;
}

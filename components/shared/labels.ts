/** Display names and tones for analysis enums, shared by views. */
import type { AttentionReason } from '@/lib/topology/report/analysis-schema';
import type { Tone } from '../ui/status';

export const ATTENTION: Record<AttentionReason, { readonly label: string; readonly tone: Tone; readonly hint: string }> = {
  'hints-off': { label: 'Hints off', tone: 'error', hint: 'Topology mode asks for hints but the controller refuses them.' },
  'annotation-ineffective': { label: 'Annotation ineffective', tone: 'warn', hint: 'An annotation is present but has no effect on this release.' },
  'dataplane-ignores-hints': { label: 'Dataplane ignores hints', tone: 'error', hint: 'The Service proxy does not read EndpointSlice hints.' },
  'hints-unused': { label: 'Hints unused', tone: 'warn', hint: 'Another policy decides routing, so hints are never used.' },
  'out-of-sync': { label: 'Out of sync', tone: 'info', hint: 'The slices differ from what the controller would write.' },
  'partial-hints': { label: 'Partial hints', tone: 'warn', hint: 'Some ready endpoints lack a hint, so kube-proxy ignores all of them.' },
  'cross-zone-leak': { label: 'Cross-zone leak', tone: 'warn', hint: 'Hints are on but endpoints are donated across zones.' },
  'costly-fixable': { label: 'Costly, fixable', tone: 'warn', hint: 'Its cross-zone traffic costs money that a verified change would save.' },
};

export const ATTENTION_REASONS = Object.keys(ATTENTION) as AttentionReason[];

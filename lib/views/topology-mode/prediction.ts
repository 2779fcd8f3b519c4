/**
 * The toggle's prediction: the Service now, and after Enable and after Disable the same analysis
 * (mechanism precedence, the controller's next sync, kube-proxy's routing) on the annotations each
 * edit leaves, worded before → after with why, in upstream's precedence.
 */
import 'server-only';

import type { ClusterSource } from '../../k8s/cluster-source';
import type { CrossZoneCost } from '../../topology/analyses/cross-zone-cost';
import type { MechanismAnalysis, TopologyAnnotationChange } from '../../topology/analyses/service-mechanism';
import { sharedCrossZoneCost } from '../../topology/analyses/shared-values';
import { applyModelChange, measuredCrossZoneFraction } from '../../topology/analyses/measured-projection';
import type { ServiceRecord } from '../../topology/model/cluster-model';
import type { ServiceDetail } from '../../topology/report/analysis-schema';
import type { AnnotationPrediction } from '../../topology/report/service-computation';
import { predictWithAnnotations } from '../../topology/report/service-computation';
import type { TopologyEvent, ValueByZone } from '../../topology/upstream/types';
import { prepared } from '../../server/analysis';
import type { TopologyModeChangeOutcome, TopologyModeOutcome, TopologyModePrediction } from './types';

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}

function shortKey(key: string | null): string {
  return (key ?? '').replace(/^service\.kubernetes\.io\//, '');
}

function summaryOf(mechanism: MechanismAnalysis, hintsEnabled: boolean): string {
  if (!hintsEnabled) return 'hints off';
  switch (mechanism.mechanism) {
    case 'topology-mode':
    case 'legacy-annotation':
      return `hints on via ${shortKey(mechanism.annotationKey)} ${mechanism.annotationValue ?? ''}`;
    case 'trafficDistribution':
      return 'hints on via trafficDistribution';
    default:
      return 'hints on';
  }
}

/**
 * Why a state has hints on or off, in upstream's precedence: an active topology annotation (the
 * legacy key when present) decides with the Auto heuristic and overrides trafficDistribution;
 * otherwise trafficDistribution; then what kube-proxy does with them (internalTrafficPolicy
 * Local, a dataplane that ignores hints).
 */
function whyOf(mechanism: MechanismAnalysis, hintsEnabled: boolean, reason: TopologyEvent | null, service: ServiceRecord, edit: 'now' | 'enable' | 'disable', honoursHints: string | null): string {
  const parts: string[] = [];
  const td = service.trafficDistribution;
  const annotation = `${shortKey(mechanism.annotationKey)} ${mechanism.annotationValue ?? ''}`;
  if (mechanism.annotationActive) {
    const decision = hintsEnabled ? 'the Auto heuristic hints endpoints in proportion to zone CPU' : (reason?.message ?? 'the Auto heuristic cannot allocate the endpoints');
    parts.push(td !== null ? `${annotation} overrides trafficDistribution ${td}: ${decision}` : `${annotation}: ${decision}`);
  } else if (mechanism.mechanism === 'trafficDistribution') {
    parts.push(
      !hintsEnabled
        ? `trafficDistribution ${td ?? ''} sets no hints (no ready endpoint with a zone)`
        : edit === 'disable'
          ? `trafficDistribution ${td ?? ''} keeps hints when topology mode is disabled`
          : `trafficDistribution ${td ?? ''} hints every ready endpoint for its own ${mechanism.trafficDistributionHeuristic === 'preferSameNode' ? 'node and zone' : 'zone'}`,
    );
  } else if (mechanism.annotationValue !== null && /^auto$/i.test(mechanism.annotationValue) && !mechanism.annotationActive) {
    parts.push(`${annotation} does nothing: the TopologyAwareHints feature gate is off`);
  } else if (td !== null) {
    parts.push(`trafficDistribution ${td} is not used on this release${edit === 'disable' ? ', so nothing sets hints' : ''}`);
  } else {
    const nothing = edit === 'disable' ? 'nothing else asks for hints' : 'nothing asks for hints';
    parts.push(service.internalTrafficPolicy === 'Local' ? nothing : `${nothing}: kube-proxy spreads traffic over every ready endpoint`);
  }
  if (service.internalTrafficPolicy === 'Local') {
    parts.push(hintsEnabled ? "internalTrafficPolicy Local overrides hints: in-cluster traffic stays on the client's node" : "internalTrafficPolicy Local: in-cluster traffic stays on the client's node");
  }
  if (hintsEnabled && honoursHints !== null) parts.push(`the dataplane ignores hints (${honoursHints.replace(/\.$/, '')})`);
  return parts.join('; ');
}

function outcomeOf(
  state: { mechanism: MechanismAnalysis; hintsEnabled: boolean; event: TopologyEvent | null; reason: TopologyEvent | null; hintCountsByZone: Readonly<ValueByZone<number>>; donatedEndpoints: number },
  traffic: { crossZoneFraction: number; droppedFraction: number; monthlyCost: CrossZoneCost },
  service: ServiceRecord,
  edit: 'now' | 'enable' | 'disable',
  dataplane: { honoursHints: boolean; honoursHintsReason: string },
): TopologyModeOutcome {
  return {
    mechanism: state.mechanism.mechanism,
    hintsEnabled: state.hintsEnabled,
    hintsUsed: state.hintsEnabled && dataplane.honoursHints && service.internalTrafficPolicy !== 'Local',
    summary: summaryOf(state.mechanism, state.hintsEnabled),
    why: whyOf(state.mechanism, state.hintsEnabled, state.reason, service, edit, dataplane.honoursHints ? null : dataplane.honoursHintsReason),
    event: state.event,
    reason: state.reason,
    hintCountsByZone: state.hintCountsByZone,
    donatedEndpoints: state.donatedEndpoints,
    crossZoneFraction: traffic.crossZoneFraction,
    droppedFraction: traffic.droppedFraction,
    monthlyCost: traffic.monthlyCost,
  };
}

function changeOutcome(state: ClusterSource, detail: ServiceDetail, now: TopologyModeOutcome, predicted: AnnotationPrediction, service: ServiceRecord, edit: 'enable' | 'disable'): TopologyModeChangeOutcome {
  const p = prepared(state);
  const { expected, traffic } = predicted;
  // The same volume as now (the Service's own: measured, set or assumed). Measured flows: the
  // model's change applied to the measurement, so the before and after are both measured-based.
  const measured = detail.traffic.volume.measuredMatrix;
  const crossZoneFraction = measured === null ? traffic.crossZoneFraction : measuredCrossZoneFraction(applyModelChange(measured, detail.trafficMatrix.now.matrix, traffic.matrix));
  const after = outcomeOf(
    { ...expected, mechanism: predicted.mechanism },
    { crossZoneFraction, droppedFraction: traffic.droppedFraction, monthlyCost: sharedCrossZoneCost(p.context, p.pricing, crossZoneFraction, now.monthlyCost.gbPerMonth) },
    service,
    edit,
    p.dataplane,
  );
  const verdict = verdictOf(now, after);
  const crossZoneChange = crossZoneChangeOf(now, after);
  return { ...after, verdict, crossZoneChange, text: `${verdict}, ${crossZoneChange} (${after.why})` };
}

/**
 * What an edit does to the hints, against the hints now, said once (the why names the mechanism,
 * so the verdict does not).
 */
export function verdictOf(now: Pick<TopologyModeOutcome, 'hintsEnabled'>, after: Pick<TopologyModeOutcome, 'hintsEnabled' | 'hintsUsed'>): string {
  if (!after.hintsEnabled) return now.hintsEnabled ? 'hints turn off' : 'hints stay off';
  const verb = now.hintsEnabled ? 'hints stay on' : 'hints turn on';
  return after.hintsUsed ? verb : `${verb}, unused`;
}

/** The cross-zone share before → after (with the dropped share where requests find no endpoint). */
export function crossZoneChangeOf(now: Pick<TopologyModeOutcome, 'crossZoneFraction' | 'droppedFraction'>, after: Pick<TopologyModeOutcome, 'crossZoneFraction' | 'droppedFraction'>): string {
  const share = (o: Pick<TopologyModeOutcome, 'crossZoneFraction' | 'droppedFraction'>) =>
    `${percent(o.crossZoneFraction)}${o.droppedFraction > 0 ? ` (${percent(o.droppedFraction)} dropped)` : ''}`;
  const before = share(now);
  const later = share(after);
  return before === later ? `cross-zone stays ${before}` : `cross-zone ${before} → ${later}`;
}

/**
 * The toggle's prediction: the Service now, and after each edit the same analysis (mechanism
 * precedence, the controller's next sync, kube-proxy's routing) on the annotations the patch would
 * leave, worded before → after.
 */
export function predictTopologyMode(state: ClusterSource, detail: ServiceDetail, service: ServiceRecord, change: { enable: TopologyAnnotationChange; disable: TopologyAnnotationChange }): TopologyModePrediction {
  const p = prepared(state);
  const now = outcomeOf(
    { mechanism: detail.mechanismDetail, hintsEnabled: detail.observed.hintsPresent, event: detail.expected.event, reason: detail.expected.reason, hintCountsByZone: detail.observed.hintCountsByZone, donatedEndpoints: detail.observed.donatedEndpoints },
    // The share now as priced: measured when the volume is measured with flows, else the model's.
    { crossZoneFraction: detail.traffic.monthlyCost.now.crossZoneFraction, droppedFraction: detail.traffic.droppedFraction, monthlyCost: detail.traffic.monthlyCost.now },
    service,
    'now',
    p.dataplane,
  );
  const enable = changeOutcome(state, detail, now, predictWithAnnotations(p, service, change.enable.annotations), service, 'enable');
  const disable = changeOutcome(state, detail, now, predictWithAnnotations(p, service, change.disable.annotations), service, 'disable');
  return {
    unknown: detail.unknown.expectedHints ?? detail.unknown.crossZone ?? null,
    now,
    enable,
    disable,
    hintsEnabled: enable.hintsEnabled,
    event: enable.event,
    reason: enable.reason,
    hintCountsByZone: enable.hintCountsByZone,
    donatedEndpoints: enable.donatedEndpoints,
    crossZoneFractionNow: now.crossZoneFraction,
    crossZoneFractionIfAuto: enable.crossZoneFraction,
    crossZoneFractionIfNone: detail.traffic.monthlyCost.ifNone.crossZoneFraction,
    monthlyCost: { now: now.monthlyCost, ifAuto: enable.monthlyCost, ifNone: detail.traffic.monthlyCost.ifNone },
  };
}

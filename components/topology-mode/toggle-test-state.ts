/**
 * The toggle's state as `GET …/topology-mode` answers it (docs/api.md), for the toggle's unit
 * tests (not a test file itself): a Service without a topology annotation on 1.31, allowed to
 * patch, with the prediction the analysis gives shop/storefront-like Services (hints stay off
 * either way). `with` replaces any part.
 */
import type { TopologyModeResponse } from '@/lib/views/api-types';
import type { TopologyModeChangeOutcome, TopologyModeCurrent, TopologyModeOutcome } from '@/lib/views/topology-mode/types';

const KEY = 'service.kubernetes.io/topology-mode';

export function current(resourceVersion: string, value: string | null = null): TopologyModeCurrent {
  return {
    resourceVersion,
    effectiveKey: value === null ? null : KEY,
    value,
    legacyKeyPresent: false,
    enabled: value === 'Auto',
    topologyMode: value,
    topologyAwareHints: null,
  };
}

function outcome(hintsEnabled: boolean, crossZoneFraction: number): TopologyModeOutcome {
  return {
    mechanism: hintsEnabled ? 'topology-mode' : 'none',
    hintsEnabled,
    hintsUsed: hintsEnabled,
    summary: hintsEnabled ? 'hints on via topology-mode Auto' : 'hints off',
    why: 'nothing asks for hints: kube-proxy spreads traffic over every ready endpoint',
    event: null,
    reason: null,
    hintCountsByZone: {},
    donatedEndpoints: 0,
    crossZoneFraction,
    droppedFraction: 0,
    monthlyCost: { gbPerMonth: 100, crossZoneFraction, crossZoneGbPerMonth: 100 * crossZoneFraction, costPerCrossZoneGb: 0.02, monthlyCost: 2 * crossZoneFraction, formula: '' },
  };
}

/** A predicted edit from a Service with hints off now (66.7 % cross-zone). */
export function changeOutcome(hintsEnabled: boolean, text: string, donatedEndpoints = 0): TopologyModeChangeOutcome {
  return {
    ...outcome(hintsEnabled, hintsEnabled ? 0 : 0.667),
    ...(hintsEnabled ? { why: 'topology-mode Auto: the Auto heuristic hints endpoints in proportion to zone CPU' } : {}),
    donatedEndpoints,
    verdict: hintsEnabled ? 'hints turn on' : 'hints stay off',
    crossZoneChange: hintsEnabled ? 'cross-zone 66.7 % → 0.0 %' : 'cross-zone stays 66.7 %',
    text,
  };
}

export const ENABLE_TEXT = 'hints turn on, cross-zone 66.7 % → 0.0 % (topology-mode Auto: the Auto heuristic hints endpoints in proportion to zone CPU)';
export const DISABLE_TEXT = 'hints stay off, cross-zone stays 66.7 % (nothing asks for hints: kube-proxy spreads traffic over every ready endpoint)';

export function toggleState(changes: Partial<TopologyModeResponse> = {}): TopologyModeResponse {
  const now = outcome(false, 0.667);
  const enable = changeOutcome(true, ENABLE_TEXT);
  const disable = changeOutcome(false, DISABLE_TEXT);
  return {
    namespace: 'shop',
    name: 'storefront',
    cluster: { id: 'default', name: 'zonescope-sim', context: 'zonescope-sim' },
    readOnly: false,
    readOnlyReason: null,
    canPatch: true,
    notAllowedReason: null,
    permissionCheckFailed: false,
    current: current('139'),
    release: '1.31',
    minor: 31,
    key: KEY,
    resourceVersion: '139',
    change: {
      enable: { set: { [KEY]: 'Auto' }, remove: [], annotations: { [KEY]: 'Auto' } },
      disable: { set: {}, remove: [], annotations: {} },
    },
    prediction: {
      unknown: null,
      now,
      enable,
      disable,
      hintsEnabled: true,
      event: null,
      reason: null,
      hintCountsByZone: {},
      donatedEndpoints: 0,
      crossZoneFractionNow: 0.667,
      crossZoneFractionIfAuto: 0,
      crossZoneFractionIfNone: 0.667,
      monthlyCost: { now: now.monthlyCost, ifAuto: enable.monthlyCost, ifNone: now.monthlyCost },
    },
    ...changes,
  };
}

/** The page's preview of the same state: everything but the permission. */
export function previewOf(state: TopologyModeResponse) {
  const { canPatch: _canPatch, notAllowedReason: _reason, permissionCheckFailed: _failed, ...preview } = state;
  return preview;
}

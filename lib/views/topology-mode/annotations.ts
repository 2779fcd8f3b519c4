/**
 * A Service's topology annotations as the toggle reports them: the current value at a release,
 * the raw keys, and whether topology mode can apply to the Service at all.
 */
import 'server-only';

import type { ServiceRecord } from '../../topology/model/cluster-model';
import { effectiveTopologyAnnotation, hintsEnabled } from '../../topology/upstream/annotations';
import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from '../../topology/upstream/constants';
import type { TopologyModeCurrent } from './types';

const TOPOLOGY_KEYS = [ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] as const;

/** The current topology annotations of a Service at release `minor`. */
export function describeTopologyAnnotations(annotations: Readonly<Record<string, string>>, resourceVersion: string, minor: number): TopologyModeCurrent {
  const effective = effectiveTopologyAnnotation(annotations, minor);
  const has = (key: string) => Object.prototype.hasOwnProperty.call(annotations, key);
  return {
    resourceVersion,
    effectiveKey: effective?.key ?? null,
    value: effective?.value ?? null,
    legacyKeyPresent: has(DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS),
    enabled: hintsEnabled(annotations, minor),
    topologyMode: has(ANNOTATION_TOPOLOGY_MODE) ? (annotations[ANNOTATION_TOPOLOGY_MODE] ?? '') : null,
    topologyAwareHints: has(DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS) ? (annotations[DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] ?? '') : null,
  };
}

/** The topology annotations among `annotations` (absent keys omitted). */
export function topologyAnnotationsOnly(annotations: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of TOPOLOGY_KEYS) {
    const value = annotations[key];
    if (Object.prototype.hasOwnProperty.call(annotations, key) && value !== undefined) out[key] = value;
  }
  return out;
}

/** The raw topology annotations of a re-read (absent keys omitted). */
export function annotationsOfCurrent(current: TopologyModeCurrent): Record<string, string> {
  const out: Record<string, string> = {};
  if (current.topologyMode !== null) out[ANNOTATION_TOPOLOGY_MODE] = current.topologyMode;
  if (current.topologyAwareHints !== null) out[DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] = current.topologyAwareHints;
  return out;
}

/**
 * Why topology mode cannot apply to a Service (answered as 422 `invalid`), `null` when it can:
 * an ExternalName Service has no EndpointSlices and kube-proxy does not route it; a Service
 * without a selector gets its slices from someone else and the EndpointSlice controller writes no
 * hints for it. Nothing is written for either.
 */
export function topologyModeNotApplicable(service: Pick<ServiceRecord, 'type' | 'selector'> | null): string | null {
  if (service === null) return null;
  if (service.type === 'ExternalName') {
    return 'Topology mode does not apply to an ExternalName Service: it is a DNS CNAME with no EndpointSlices, and kube-proxy does not route it. Nothing was written.';
  }
  if (service.selector === null) {
    return 'Topology mode does not apply to a Service without a selector: the EndpointSlice controller does not manage its EndpointSlices or write hints for them. Nothing was written.';
  }
  return null;
}

import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from './constants';
import type { KubeMinor } from './version';

/** Which annotation key supplies the effective topology value. */
export type TopologyAnnotationKey = typeof ANNOTATION_TOPOLOGY_MODE | typeof DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS;

/** The effective topology annotation of a Service: the key that counts and its value. */
export interface EffectiveTopologyAnnotation {
  readonly key: TopologyAnnotationKey;
  readonly value: string;
  /** True when both keys are set and the deprecated one shadows `topology-mode`. */
  readonly shadowsTopologyMode: boolean;
}

/** Whether `key` is set on the map (present, whatever its value). Module-level: this runs for every Service. */
function hasKey(source: Readonly<Record<string, string>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(source, key);
}

/**
 * Resolves the annotation the controller reads at release `minor`. Releases before 1.27 know only
 * `service.kubernetes.io/topology-aware-hints`. From 1.27 the deprecated key wins whenever it is
 * **present**, even with an empty value; otherwise `service.kubernetes.io/topology-mode` counts.
 * Returns `null` when no applicable key is set.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/utils.go (hintsEnabled)
 */
export function effectiveTopologyAnnotation(
  annotations: Readonly<Record<string, string>> | null | undefined,
  minor: KubeMinor,
): EffectiveTopologyAnnotation | null {
  const source = annotations ?? {};
  if (hasKey(source, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS)) {
    return {
      key: DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS,
      value: source[DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] ?? '',
      shadowsTopologyMode: minor >= 27 && hasKey(source, ANNOTATION_TOPOLOGY_MODE),
    };
  }
  if (minor >= 27 && hasKey(source, ANNOTATION_TOPOLOGY_MODE)) {
    return { key: ANNOTATION_TOPOLOGY_MODE, value: source[ANNOTATION_TOPOLOGY_MODE] ?? '', shadowsTopologyMode: false };
  }
  return null;
}

/**
 * Whether the EndpointSlice controller runs the `Auto` heuristic for these annotations at
 * release `minor`: the effective value must be exactly `Auto` or `auto` (1.21 accepted only the
 * documented lowercase `auto`). Every other value — `Disabled`, `AUTO`, `""`, custom values — is off.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/utils.go (hintsEnabled)
 */
export function hintsEnabled(annotations: Readonly<Record<string, string>> | null | undefined, minor: KubeMinor): boolean {
  const effective = effectiveTopologyAnnotation(annotations, minor);
  if (!effective) return false;
  if (minor <= 21) return effective.value === 'auto';
  return effective.value === 'Auto' || effective.value === 'auto';
}

/**
 * Kubernetes releases and the feature-gate defaults that change topology behaviour.
 *
 * Behaviour that differs between releases takes a {@link KubeMinor} (the minor number of a 1.x
 * release) and a resolved {@link FeatureGates} set as input. zonescope models releases
 * 1.21 (first release with topology hints) through 1.36.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/features/kube_features.go
 */

/** Minor number of a Kubernetes 1.x release, e.g. `30` for 1.30. */
export type KubeMinor = number;

/** Oldest release modelled: topology hints appeared (alpha) in 1.21. */
export const MIN_MODELLED_MINOR: KubeMinor = 21;
/** Newest release modelled. */
export const MAX_MODELLED_MINOR: KubeMinor = 36;

/** Feature gates that change what the EndpointSlice controller or kube-proxy do with hints. */
export type FeatureGateName =
  | 'TopologyAwareHints'
  | 'ServiceTrafficDistribution'
  | 'PreferSameTrafficDistribution'
  | 'ProxyTerminatingEndpoints'
  | 'ServiceInternalTrafficPolicy';

/** A complete gate assignment (every gate has a value). */
export type FeatureGates = Readonly<Record<FeatureGateName, boolean>>;

/** Explicit gate values; absent gates take the release default. */
export type FeatureGateOverrides = Readonly<Partial<Record<string, boolean>>>;

/**
 * First release in which each gate is on by default (`Infinity` = never on by default within the
 * modelled range; gates that do not exist yet in a release are off).
 *
 * - TopologyAwareHints: alpha 1.21, beta 1.23 (left off by mistake), on 1.24, GA 1.33.
 * - ServiceTrafficDistribution: alpha 1.30, beta and on 1.31, GA 1.33.
 * - PreferSameTrafficDistribution: alpha 1.33, beta and on 1.34, GA 1.35.
 * - ProxyTerminatingEndpoints: alpha 1.22, beta and on 1.26, GA 1.28.
 * - ServiceInternalTrafficPolicy: alpha 1.21, beta and on 1.22, GA 1.26.
 */
export const gateOnByDefaultSince: Readonly<Record<FeatureGateName, KubeMinor>> = {
  TopologyAwareHints: 24,
  ServiceTrafficDistribution: 31,
  PreferSameTrafficDistribution: 34,
  ProxyTerminatingEndpoints: 26,
  ServiceInternalTrafficPolicy: 22,
};

/** Release defaults of every topology-relevant gate for `minor`. */
export function defaultFeatureGates(minor: KubeMinor): FeatureGates {
  return {
    TopologyAwareHints: minor >= gateOnByDefaultSince.TopologyAwareHints,
    ServiceTrafficDistribution: minor >= gateOnByDefaultSince.ServiceTrafficDistribution,
    PreferSameTrafficDistribution: minor >= gateOnByDefaultSince.PreferSameTrafficDistribution,
    ProxyTerminatingEndpoints: minor >= gateOnByDefaultSince.ProxyTerminatingEndpoints,
    ServiceInternalTrafficPolicy: minor >= gateOnByDefaultSince.ServiceInternalTrafficPolicy,
  };
}

/** Release defaults for `minor` with `overrides` applied (unknown gate names are ignored here). */
export function resolveFeatureGates(minor: KubeMinor, overrides: FeatureGateOverrides = {}): FeatureGates {
  const gates: Record<FeatureGateName, boolean> = { ...defaultFeatureGates(minor) };
  for (const name of Object.keys(gates) as FeatureGateName[]) {
    const value = overrides[name];
    if (typeof value === 'boolean') gates[name] = value;
  }
  return gates;
}

/**
 * Parses a server version such as `v1.30.2-eks-7f9249a`, `1.29`, `v1.28.3+k3s1` or a
 * `{major, minor}` pair as served by `/version` (`minor` may carry a `+`, as on EKS/GKE).
 * Returns `null` when the text is not a 1.x version.
 */
export function parseKubeMinor(version: string | { major: string; minor: string }): KubeMinor | null {
  if (typeof version !== 'string') {
    if (version.major.trim() !== '1') return null;
    const minor = Number.parseInt(version.minor, 10);
    return Number.isFinite(minor) && minor >= 0 ? minor : null;
  }
  const match = /^v?1\.(\d+)(?:[.+-].*)?$/.exec(version.trim());
  if (!match?.[1]) return null;
  return Number.parseInt(match[1], 10);
}

/** Formats a minor number as a release name, `30` → `"1.30"`. */
export function formatKubeMinor(minor: KubeMinor): string {
  return `1.${minor}`;
}

/**
 * Expands a release range as written in test vectors and docs — `"1.26"`, `"1.22-1.26"`,
 * `">=1.33"` — into the modelled minors it names (open ranges end at {@link MAX_MODELLED_MINOR}).
 * Returns `null` for text that is not such a range.
 */
export function expandReleaseRange(range: string): KubeMinor[] | null {
  const text = range.trim();
  const single = /^1\.(\d+)$/.exec(text);
  const span = /^1\.(\d+)\s*-\s*1\.(\d+)$/.exec(text);
  const open = /^>=\s*1\.(\d+)$/.exec(text);
  let from: number;
  let to: number;
  if (single?.[1]) {
    from = to = Number(single[1]);
  } else if (span?.[1] && span[2]) {
    from = Number(span[1]);
    to = Number(span[2]);
  } else if (open?.[1]) {
    from = Number(open[1]);
    to = MAX_MODELLED_MINOR;
  } else {
    return null;
  }
  if (from > to) return null;
  const minors: KubeMinor[] = [];
  for (let minor = Math.max(from, MIN_MODELLED_MINOR); minor <= Math.min(to, MAX_MODELLED_MINOR); minor++) minors.push(minor);
  return minors.length > 0 ? minors : null;
}

/**
 * The Kubernetes release an analysis models: the caller's override, else the cluster's own version,
 * else an assumed default, clamped to the modelled releases 1.21–1.36 with a note saying why; and
 * whether that release (with its gates) runs the EndpointSlice controller's topology cache.
 */
import type { ClusterIndex } from './cluster-model';
import type { FeatureGates, KubeMinor } from '../upstream/version';
import { formatKubeMinor, MAX_MODELLED_MINOR, MIN_MODELLED_MINOR, parseKubeMinor } from '../upstream/version';

/**
 * Release assumed when neither the cluster nor the caller says which one runs: 1.33, the first
 * release in which topology hints and `trafficDistribution` are GA. Every release from 1.33 on
 * behaves the same for the controller and kube-proxy, so the assumption is the least surprising one.
 */
export const DEFAULT_KUBERNETES_MINOR: KubeMinor = 33;

/** Where the modelled release came from. */
export type ReleaseSource = 'override' | 'cluster' | 'assumed';

/** The Kubernetes release an analysis models. */
export interface ReleaseInfo {
  /** Minor number modelled (clamped to 1.21–1.36). */
  readonly minor: KubeMinor;
  /** `"1.33"`. */
  readonly release: string;
  readonly source: ReleaseSource;
  /** The server's `gitVersion`, when known. */
  readonly gitVersion: string | null;
  /** Platform guess (`eks`, `gke`, …) from the server version, when known. */
  readonly platform: string | null;
  /** Why the modelled release differs from what the cluster reports, or `null`. */
  readonly note: string | null;
}

/** Whether the EndpointSlice controller creates its topology cache: the gate is on, or GA (1.33+). */
export function isTopologyCacheEnabled(minor: KubeMinor, gates: FeatureGates): boolean {
  return minor >= 33 || gates.TopologyAwareHints;
}

/**
 * Resolves the release to model: the caller's override, else the cluster's version, else
 * {@link DEFAULT_KUBERNETES_MINOR}. Releases outside 1.21–1.36 are clamped and the clamp is noted.
 */
export function resolveRelease(
  override: string | number | null | undefined,
  version: ClusterIndex['snapshot']['version'],
): ReleaseInfo {
  const gitVersion = version?.gitVersion ?? null;
  const platform = version?.platform ?? null;
  let requested: KubeMinor | null = null;
  let source: ReleaseSource = 'assumed';
  if (override !== null && override !== undefined && override !== '') {
    requested = typeof override === 'number' ? Math.trunc(override) : parseKubeMinor(override.startsWith('1.') || override.startsWith('v') ? override : `1.${override}`);
    if (requested !== null) source = 'override';
  }
  if (requested === null && version?.minor !== null && version?.minor !== undefined) {
    requested = version.minor;
    source = 'cluster';
  }
  let note: string | null = null;
  if (requested === null) {
    requested = DEFAULT_KUBERNETES_MINOR;
    note = `The cluster's Kubernetes version is unknown; release ${formatKubeMinor(DEFAULT_KUBERNETES_MINOR)} is assumed (pass a version to change it).`;
  }
  let minor = requested;
  if (minor < MIN_MODELLED_MINOR) {
    minor = MIN_MODELLED_MINOR;
    note = `Kubernetes ${formatKubeMinor(requested)} predates topology hints; modelled as ${formatKubeMinor(minor)}, the first release that has them.`;
  } else if (minor > MAX_MODELLED_MINOR) {
    minor = MAX_MODELLED_MINOR;
    note = `Kubernetes ${formatKubeMinor(requested)} is newer than the newest modelled release; modelled as ${formatKubeMinor(minor)}.`;
  }
  return { minor, release: formatKubeMinor(minor), source, gitVersion, platform, note };
}

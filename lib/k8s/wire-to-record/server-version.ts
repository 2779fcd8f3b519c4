/**
 * `/version` → `ServerVersionRecord`: the Kubernetes minor version, and the platform that
 * `gitVersion` (or, for AKS, the nodes' provider IDs) reveals.
 */
import type { ServerVersionRecord } from '../../topology/model/cluster-model';
import { parseKubeMinor } from '../../topology/upstream/version';
import { obj, str } from './json';

/** Platform markers in `gitVersion` (`v1.30.2-eks-7f9249a`, `v1.29.1-gke.1589000`, `v1.28.3+k3s1`). */
const PLATFORM_MARKERS: readonly (readonly [RegExp, string])[] = [
  [/-eks-/i, 'eks'],
  [/-gke\./i, 'gke'],
  [/\+k3s/i, 'k3s'],
  [/\+rke2/i, 'rke2'],
  [/-aliyun\./i, 'ack'],
  [/-tke\./i, 'tke'],
  [/\+vmware/i, 'tkg'],
  [/-aks/i, 'aks'],
];

/**
 * The platform a `gitVersion` reveals, else (AKS prints a plain version) the one node
 * `providerID`s reveal for Azure (`azure://…` → `aks`); `null` when unknown.
 */
export function detectPlatform(gitVersion: string, providerIDs: Iterable<string | null> = []): string | null {
  for (const [pattern, platform] of PLATFORM_MARKERS) if (pattern.test(gitVersion)) return platform;
  for (const id of providerIDs) if (id?.startsWith('azure://')) return 'aks';
  return null;
}

/**
 * `/version` (`{major, minor, gitVersion, …}`, as `kubectl get --raw /version` prints it) →
 * {@link ServerVersionRecord}; `null` when it holds neither a `gitVersion` nor `major`/`minor`.
 */
export function projectServerVersion(raw: unknown, providerIDs: Iterable<string | null> = []): ServerVersionRecord | null {
  const o = obj(raw);
  const major = str(o.major) ?? '';
  const minorText = str(o.minor) ?? '';
  const gitVersion = str(o.gitVersion) ?? (major !== '' && minorText !== '' ? `v${major}.${minorText.replace(/\D+$/, '')}` : '');
  if (gitVersion === '') return null;
  const minor = parseKubeMinor(gitVersion) ?? (major !== '' && minorText !== '' ? parseKubeMinor({ major, minor: minorText }) : null);
  return { gitVersion, minor, platform: detectPlatform(gitVersion, providerIDs) };
}

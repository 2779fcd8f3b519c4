/**
 * The Dataplane view's static part: which annotation enables hints per Kubernetes release and
 * how kube-proxy treats it (engine knowledge, no cluster data).
 */
import 'server-only';

import { topologyAnnotationFor } from '../topology/analyses/analyze-dataplane';
import type { HintsAnnotationRule } from '../topology/upstream/proxy-topology';
import { hintsAnnotationRule } from '../topology/upstream/proxy-topology';
import { defaultFeatureGates, formatKubeMinor, MAX_MODELLED_MINOR, MIN_MODELLED_MINOR } from '../topology/upstream/version';

/** Which annotation enables hints, and how kube-proxy treats it, over a range of releases. */
export interface ReleaseAnnotationRow {
  /** `1.21`, or a range `1.24–1.26`. */
  readonly releases: string;
  readonly firstMinor: number;
  readonly lastMinor: number;
  readonly key: string;
  readonly value: string;
  /** TopologyAwareHints is on by default (else it must be enabled on the controller and kube-proxy). */
  readonly gateOnByDefault: boolean;
  /** `spec.trafficDistribution` exists and is on by default. */
  readonly trafficDistribution: boolean;
  readonly kubeProxyRule: HintsAnnotationRule;
}

/**
 * The annotation key per release (1.21–1.36, release defaults), grouped into ranges that behave
 * the same: static knowledge from the engine, shown on the Dataplane view.
 */
export function getReleaseAnnotationTable(): readonly ReleaseAnnotationRow[] {
  const rows: ReleaseAnnotationRow[] = [];
  for (let minor = MIN_MODELLED_MINOR; minor <= MAX_MODELLED_MINOR; minor++) {
    const gates = defaultFeatureGates(minor);
    const { key, value } = topologyAnnotationFor(minor);
    const row = { key, value, gateOnByDefault: gates.TopologyAwareHints, trafficDistribution: gates.ServiceTrafficDistribution, kubeProxyRule: hintsAnnotationRule({ minor, gates }) };
    const last = rows[rows.length - 1];
    if (last && last.key === row.key && last.value === row.value && last.gateOnByDefault === row.gateOnByDefault && last.trafficDistribution === row.trafficDistribution && last.kubeProxyRule === row.kubeProxyRule) {
      rows[rows.length - 1] = { ...last, lastMinor: minor, releases: `${formatKubeMinor(last.firstMinor)}\u2013${formatKubeMinor(minor)}` };
    } else {
      rows.push({ ...row, firstMinor: minor, lastMinor: minor, releases: formatKubeMinor(minor) });
    }
  }
  return rows;
}

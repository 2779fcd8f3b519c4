/**
 * The Services table's HPA column: what a Service's HPA does to its hints when it scales, by the
 * count rule alone — the `Auto` heuristic turns hints off when Σ per-zone minimums
 * (`ceil(n × zone CPU ratio / 1.2)`) exceed the n ready endpoints, whatever the placement. The
 * Service page scans the same range count by count (its HPA panel); here only the part that is
 * cheap for 10,000 Services: which counts of the HPA's range (minReplicas to maxReplicas, every
 * replica assumed ready) turn hints off. The placement's donations and the random scale-down's
 * odds stay on the Service page.
 *
 * The Deployment behind a Service is the one whose pod template its selector matches — when
 * exactly one does, which is what the Service page's lookup (the Deployment owning most of the
 * Service's pods) finds unless labels drifted mid-rollout; when several do, that lookup itself.
 * Looking up every Service's pods was 10 times the cost of the rest of the rows at 10,000
 * Services; matching selectors against an index of pod templates is not.
 */
import type { HpaScaleDownState } from '../../shared/service-query';
import { findServiceWorkload } from '../../topology/analyses/service-workload';
import type { ClusterContext } from '../../topology/model/cluster-context';
import { serviceKey } from '../../topology/model/cluster-context';
import type { ClusterIndex, DeploymentRecord } from '../../topology/model/cluster-model';
import { serviceSelects } from '../../topology/model/cluster-model';
import type { ServiceReport } from '../../topology/report/analysis-schema';
import { getAllocations } from '../../topology/upstream/topology-cache';
import type { ValueByZone } from '../../topology/upstream/types';

/** What a Service's HPA does to its hints (the Services rows' `hpaScaleDown`). */
export interface HpaScaleDown {
  readonly state: HpaScaleDownState;
  /** The HPA's replica range; `null` without an HPA (or when unknown). */
  readonly minReplicas: number | null;
  readonly maxReplicas: number | null;
  /** The replica counts of the range at which hints are off (Σ per-zone minimums exceed the count), ascending; empty unless `off-…`. */
  readonly hintsOffAt: readonly number[];
}

const NONE: HpaScaleDown = { state: 'none', minReplicas: null, maxReplicas: null, hintsOffAt: [] };
const UNKNOWN: HpaScaleDown = { state: 'unknown', minReplicas: null, maxReplicas: null, hintsOffAt: [] };

const OFF_COUNTS = new WeakMap<Readonly<ValueByZone<number>>, readonly number[]>();

/**
 * Every replica count at which the count rule turns hints off for these zone CPU ratios, ascending
 * (memoised per ratios). Σ minimum = Σ ceil(n × ratio / 1.2) < n / 1.2 + zones, so every count
 * from 6 × zones on keeps hints on: the list is short and ends below that (a few counts more are
 * checked, for rounding).
 */
export function hintsOffCounts(ratios: Readonly<ValueByZone<number>>): readonly number[] {
  let counts = OFF_COUNTS.get(ratios);
  if (counts === undefined) {
    const last = 6 * Object.keys(ratios).length + 6;
    const off: number[] = [];
    for (let n = 0; n <= last; n++) if (!getAllocations(ratios, n).ok) off.push(n);
    counts = off;
    OFF_COUNTS.set(ratios, counts);
  }
  return counts;
}

/** The counts from `minReplicas` to `maxReplicas` at which hints are off (see {@link hintsOffCounts}). */
export function hintsOffInRange(ratios: Readonly<ValueByZone<number>>, minReplicas: number, maxReplicas: number): number[] {
  return hintsOffCounts(ratios).filter((n) => n >= minReplicas && n <= maxReplicas);
}

/** The state of a range: off at its low end, off elsewhere in it, or on throughout. */
export function rangeState(minReplicas: number, hintsOffAt: readonly number[]): 'off-at-min' | 'off-in-range' | 'on' {
  return hintsOffAt.length === 0 ? 'on' : hintsOffAt[0] === minReplicas ? 'off-at-min' : 'off-in-range';
}

/** Deployments by namespace, then by each `key=value` of their pod template's labels. */
type TemplateIndex = ReadonlyMap<string, ReadonlyMap<string, readonly DeploymentRecord[]>>;

const TEMPLATES = new WeakMap<ClusterIndex['deploymentsByKey'], TemplateIndex>();

const labelKey = (key: string, value: string) => `${key}\u0000${value}`;

/** The Deployments of `index` by namespace and template label (memoised per index). */
function templateIndex(index: ClusterIndex): TemplateIndex {
  let byNamespace = TEMPLATES.get(index.deploymentsByKey);
  if (byNamespace === undefined) {
    const built = new Map<string, Map<string, DeploymentRecord[]>>();
    for (const deployment of index.deploymentsByKey.values()) {
      let byLabel = built.get(deployment.namespace);
      if (byLabel === undefined) built.set(deployment.namespace, (byLabel = new Map()));
      for (const [key, value] of Object.entries(deployment.templateLabels)) {
        const k = labelKey(key, value);
        const list = byLabel.get(k);
        if (list) list.push(deployment);
        else byLabel.set(k, [deployment]);
      }
    }
    byNamespace = built;
    TEMPLATES.set(index.deploymentsByKey, byNamespace);
  }
  return byNamespace;
}

/** The Deployments of the Service's namespace whose pod template its selector matches. */
function selectedDeployments(index: ClusterIndex, namespace: string, selector: Readonly<Record<string, string>>): readonly DeploymentRecord[] {
  const first = Object.entries(selector)[0];
  if (first === undefined) return [];
  const candidates = templateIndex(index).get(namespace)?.get(labelKey(first[0], first[1])) ?? [];
  return candidates.filter((deployment) => serviceSelects(selector, deployment.templateLabels));
}

const HPA_NAMESPACES = new WeakMap<ClusterIndex['hpasByTarget'], ReadonlySet<string>>();

/** Namespaces holding at least one HPA (memoised per index): a Service elsewhere has none. */
function namespacesWithHpas(index: ClusterIndex): ReadonlySet<string> {
  let namespaces = HPA_NAMESPACES.get(index.hpasByTarget);
  if (namespaces === undefined) {
    namespaces = new Set([...index.hpasByTarget.values()].map((hpa) => hpa.namespace));
    HPA_NAMESPACES.set(index.hpasByTarget, namespaces);
  }
  return namespaces;
}

const OF_REPORT = new WeakMap<ServiceReport, HpaScaleDown>();

/**
 * What the HPA of the Deployment behind `report`'s Service (found as the Service page finds it)
 * does to its hints across the HPA's range, in `context` (the cluster the report was computed in;
 * `null`: unknown). Only Services whose hints come from the `Auto` heuristic (topology-mode or the
 * legacy annotation, in effect) have per-zone minimums; others with an HPA are `not-applicable`,
 * as are all of them when the cluster has no zone CPU ratios (hints are off at every count).
 *
 * Memoised per report: the engine keeps a Service's report only while its namespace's workloads
 * (pods, ReplicaSets, Deployments, HPAs) and the cluster-wide inputs (the zone CPU ratios among
 * them) are unchanged — all this reads — so new traffic figures cost no lookup.
 */
export function hpaScaleDownOf(report: ServiceReport, context: ClusterContext | null): HpaScaleDown {
  if (context === null) return UNKNOWN;
  let answer = OF_REPORT.get(report);
  if (answer === undefined) {
    answer = lookUp(report, context);
    OF_REPORT.set(report, answer);
  }
  return answer;
}

function lookUp(report: ServiceReport, context: ClusterContext): HpaScaleDown {
  if (report.unknown.hpa !== undefined) return UNKNOWN;
  const { index } = context;
  if (!namespacesWithHpas(index).has(report.namespace)) return NONE;
  const key = serviceKey(report.namespace, report.name);
  const service = index.servicesByKey.get(key);
  if (service === undefined || service.selector === null) return NONE;
  const deployments = selectedDeployments(index, report.namespace, service.selector);
  if (deployments.length === 0) return NONE;
  const only = deployments.length === 1 ? deployments[0] : undefined;
  const hpa =
    only !== undefined
      ? (index.hpasByTarget.get(`${report.namespace}/Deployment/${only.name}`) ?? null)
      : (findServiceWorkload(context, service, index.slicesByService.get(key) ?? [])?.hpa ?? null);
  if (hpa === null) return NONE;
  const range = { minReplicas: hpa.minReplicas, maxReplicas: hpa.maxReplicas };
  const ratios = context.cpuRatiosByZone;
  if (ratios === null || (report.mechanism !== 'topology-mode' && report.mechanism !== 'legacy-annotation')) return { state: 'not-applicable', ...range, hintsOffAt: [] };
  const hintsOffAt = hintsOffInRange(ratios, hpa.minReplicas, hpa.maxReplicas);
  return { state: rangeState(hpa.minReplicas, hintsOffAt), ...range, hintsOffAt };
}

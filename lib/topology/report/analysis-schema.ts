/**
 * The analyses of a whole cluster and of single Services, as plain JSON-able data: the types of
 * what `npm run analyze -- --format json` prints and what the dashboard's `lib/views` composes
 * views from. This is the JSON contract; the field names are documented in `docs/analyze-schema.md`.
 * The values are built by cluster-analysis.ts (`analyzeCluster`) and service-detail.ts
 * (`analyzeService`).
 */
import type { GitOpsManager } from '../analyses/gitops';
import type { DataplaneAnalysis } from '../analyses/analyze-dataplane';
import type { AddressTypeAnalysis, EndpointView, ExpectedHints, IfAutoPrediction } from '../analyses/analyze-service';
import type { ObservedHints } from '../analyses/observed-hints';
import type { HintsDiff } from '../analyses/hints-diff';
import type { MinimumTable } from '../analyses/minimum-table';
import type { NodeFix, NodeReport, ZoneAnalysis, ZoneReport } from '../analyses/analyze-zones';
import type { Fix } from '../analyses/fixes';
import type { HpaAnalysis } from '../analyses/hpa';
import type { LoadBalancerAnalysis } from '../analyses/load-balancer';
import type { RuleEstimates } from '../analyses/rule-estimates';
import type { MechanismAnalysis, ServiceLint, ServiceMechanism } from '../analyses/service-mechanism';
import type { TrafficMatrix } from '../analyses/traffic';
import type { CrossZoneCost } from '../analyses/cross-zone-cost';
import type { ClusterTrafficReport, LoadBalancerLegCost, ServiceVolume } from '../analyses/traffic-volume';
import type { TrafficScenario } from '../analyses/traffic-scenarios';
import type { ClusterContext } from '../model/cluster-context';
import type { ReleaseInfo } from '../model/modelled-release';
import type { EventRecord, ProxyMode, ServiceRecord } from '../model/cluster-model';
import type { ValueByZone } from '../upstream/types';
import type { FeatureGates } from '../upstream/version';
import type { ClusterAnswer, ServiceAnswer, UnknownAnswers, UnreadableResource } from './unknowns';

/** Identifier of the JSON layout; bumped on incompatible changes. */
export const ANALYSIS_SCHEMA = 'zonescope.analysis/v1';

/** The release modelled, with its gates. */
export interface KubernetesReport extends ReleaseInfo {
  readonly featureGates: FeatureGates;
  readonly topologyCacheEnabled: boolean;
}

/** Why a Service shows up in "needs attention". */
export type AttentionReason =
  | 'hints-off'
  | 'annotation-ineffective'
  | 'dataplane-ignores-hints'
  | 'hints-unused'
  | 'out-of-sync'
  | 'partial-hints'
  | 'cross-zone-leak'
  | 'costly-fixable';

/** A Service needing attention, with the reason. */
export interface ServiceAttention {
  readonly reason: AttentionReason;
  readonly message: string;
}

/** Traffic figures of one Service (fractions 0–1 of its traffic). */
export interface TrafficSummary {
  /** Following the hints on the slices now, as kube-proxy does. */
  readonly crossZoneFraction: number;
  /** With the hints the controller is expected to write on its next sync. */
  readonly crossZoneFractionExpected: number;
  /** With topology mode Auto enabled (the engine's hints). */
  readonly crossZoneFractionIfAuto: number;
  /** Without any hints. */
  readonly crossZoneFractionIfNone: number;
  /** Traffic dropped now (no endpoint selectable from the client node). */
  readonly droppedFraction: number;
  /** Busiest endpoint now, relative to a fair share (1 = fair). */
  readonly maxRelativeLoad: number;
  /** The Service's monthly volume and where it comes from (measured, set or assumed). */
  readonly volume: ServiceVolume;
  /**
   * USD per month of the cross-zone part of {@link volume} at the cluster's price: now, after the
   * controller's next sync, with Auto, without hints. With a `measured-flows` volume, now is the
   * measured share and the others the model's change applied to the measurement (each cost's
   * `crossZoneFraction` says what was priced); otherwise the model's shares.
   */
  readonly monthlyCost: { readonly now: CrossZoneCost; readonly expected: CrossZoneCost; readonly ifAuto: CrossZoneCost; readonly ifNone: CrossZoneCost };
  readonly clientShareByZone: Readonly<ValueByZone<number>>;
  /** The load balancer's own cross-zone leg, priced when the Service's external volume is measured (`null` otherwise). */
  readonly loadBalancerLeg: LoadBalancerLegCost | null;
}

/** The per-Service object of the analyze JSON (`services[]`). */
export interface ServiceReport {
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceRecord['type'];
  readonly mechanism: ServiceMechanism;
  readonly mechanismDetail: MechanismAnalysis;
  readonly lints: readonly ServiceLint[];
  readonly expected: Omit<ExpectedHints, 'donated'>;
  readonly observed: ObservedHints;
  readonly diff: Omit<HintsDiff, 'entries'>;
  readonly ifAuto: IfAutoPrediction;
  readonly traffic: TrafficSummary;
  /**
   * Answers of this report that are unknown because zonescope could not read a resource type they
   * depend on, each with its message (`unknown: zonescope could not read Nodes (forbidden)`); the
   * fields of an unknown answer hold what an empty list of that type gives and must not be read as
   * a verdict. Empty when everything was readable.
   */
  readonly unknown: UnknownAnswers<ServiceAnswer>;
  /** The Deployment and HPA behind the Service; `null` when no HPA scales it. */
  readonly hpa: HpaAnalysis | null;
  /** The Deployment behind the Service when no HPA scales it (same shape, `autoscaler: null`). */
  readonly workload: HpaAnalysis | null;
  readonly fixes: readonly Fix[];
  readonly loadBalancer: LoadBalancerAnalysis | null;
  /**
   * Who re-applies the Service from a source (Argo CD, Flux, Helm, kubectl apply) and whether
   * their next apply undoes a live change of the topology annotations; `null` when nothing says
   * another tool applies it.
   */
  readonly gitOps: GitOpsManager | null;
  readonly needsAttention: ServiceAttention | null;
}

/** Everything the Service view needs: the report plus the detail panels. */
export interface ServiceDetail extends ServiceReport {
  readonly byAddressType: readonly AddressTypeAnalysis[];
  readonly diffEntries: HintsDiff['entries'];
  readonly donatedEndpoints: ExpectedHints['donated'];
  readonly minimumTable: MinimumTable | null;
  readonly endpoints: readonly EndpointView[];
  /** The full traffic matrix of each scenario, keyed in display order (`TRAFFIC_SCENARIOS`). */
  readonly trafficMatrix: Readonly<Record<TrafficScenario, TrafficMatrix>>;
  /** TopologyAwareHints and other events recorded on the Service, oldest first. */
  readonly events: readonly EventRecord[];
}

/** The `cluster` object of the analyze JSON. */
export interface ClusterReport {
  readonly zones: readonly ZoneReport[];
  readonly eligible: boolean;
  readonly proxyMode: ProxyMode;
  readonly verdict: string;
  readonly insufficientCause: ZoneAnalysis['insufficientCause'];
  readonly ineligibleNodes: readonly NodeFix[];
  readonly eligibilityVerification: ZoneAnalysis['verification'];
  readonly nodes: readonly NodeReport[];
  readonly excludedNodes: ZoneAnalysis['excludedNodes'];
  readonly totalCpuMillis: number;
  /** `kubectl get nodes -L topology.kubernetes.io/zone`. */
  readonly inspectCommand: string;
  readonly clientShareByZone: Readonly<ValueByZone<number>>;
  readonly clientShareSource: ClusterContext['clientShareSource'];
  readonly dataplane: DataplaneAnalysis;
  readonly ruleEstimates: RuleEstimates;
  readonly summary: {
    readonly services: number;
    readonly byMechanism: Readonly<Record<ServiceMechanism, number>>;
    readonly hintsExpectedOn: number;
    readonly hintsObservedOn: number;
    readonly needingAttention: number;
  };
  readonly needsAttention: readonly (ServiceAttention & { readonly namespace: string; readonly name: string })[];
  /** Cluster-wide answers that are unknown (see {@link ServiceReport.unknown}); empty when everything was readable. */
  readonly unknown: UnknownAnswers<ClusterAnswer>;
}

/** The whole analyze JSON. */
export interface ClusterAnalysis {
  readonly schema: typeof ANALYSIS_SCHEMA;
  readonly kubernetes: KubernetesReport;
  /** Assumptions the figures rest on (release, client traffic, volumes and price). */
  readonly assumptions: readonly string[];
  /** Resource types zonescope could not read (forbidden), with the answers each leaves unknown; empty when all were read. */
  readonly unreadable: readonly UnreadableResource[];
  readonly cluster: ClusterReport;
  /** The cluster's zone traffic: flows, totals now / after the next sync / best, saving, sources, top Services (see cluster-traffic.ts). */
  readonly traffic: ClusterTrafficReport;
  /** Sorted by namespace, then name. */
  readonly services: readonly ServiceReport[];
}

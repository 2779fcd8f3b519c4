/**
 * Traffic volumes and where they come from: the shared vocabulary of the cluster-wide traffic
 * figures (cluster-traffic.ts), the measured series (measured-traffic.ts) and the comparison of
 * measured with predicted shares (measured-vs-predicted.ts). Every volume says whether it was
 * measured (which metric, which window) or assumed (and what the assumption is).
 *
 * Pure types, defaults and the month conversion; no I/O, no clock (callers pass timestamps in).
 */
import type { CrossZonePricing, PriceSetting } from '../model/cloud-pricing';
import type { ValueByZone } from '../upstream/types';

/**
 * GB per month assumed for each ready endpoint of a Service when nothing is measured and nothing
 * is set: a pod exchanging about 20 KB/s on average moves ~50 GB a month.
 */
export const DEFAULT_GB_PER_ENDPOINT = 50;

/** Query window of measured rates (PromQL duration); a month is the rate × 30 days. */
export const DEFAULT_MEASUREMENT_WINDOW = '7d';

/** Seconds in the 30-day month the monthly figures use. */
export const SECONDS_PER_MONTH = 30 * 24 * 3600;

/** Bytes per second as GB per 30-day month. */
export function gbPerMonthOf(bytesPerSecond: number): number {
  return (bytesPerSecond * SECONDS_PER_MONTH) / 1e9;
}

/**
 * Where a Service's volume comes from, first found wins:
 * - `measured-flows`: zone-resolved flow bytes (Beyla / OBI network metrics) — volume and zone matrix measured;
 * - `measured-pod-bytes`: cAdvisor pod network bytes of its endpoint pods — volume measured, zone split modelled;
 * - `set`: set by the user for this Service (volumes file, API or UI);
 * - `assumed`: nothing measured or set — the cluster's assumption (per ready endpoint, or flat per Service).
 */
export type VolumeSourceKind = 'measured-flows' | 'measured-pod-bytes' | 'set' | 'assumed';

/** The provenance of one volume, as shown beside it. */
export interface VolumeSource {
  readonly kind: VolumeSourceKind;
  /** A short sentence a user reads beside the figure ("measured: beyla_network_flow_bytes_total, rate over 7d" / "assumed: 50 GB per ready endpoint per month × 3"). */
  readonly label: string;
  /** The metric the figure was read from (measured kinds), else `null`. */
  readonly metric: string | null;
  /** The PromQL window of the rate (measured kinds), else `null`. */
  readonly window: string | null;
}

/** One Service's measured traffic, as read from Prometheus and mapped to the Service. */
export interface MeasuredServiceTraffic {
  readonly kind: 'measured-flows' | 'measured-pod-bytes';
  /** The metric the bytes come from (`beyla_network_flow_bytes_total`, `container_network_receive_bytes_total+container_network_transmit_bytes_total`, …). */
  readonly metric: string;
  /** Volume per 30-day month in GB (10⁹ bytes). */
  readonly gbPerMonth: number;
  /** `measured-flows` only: client zone → endpoint zone → GB per month; `null` for pod bytes. */
  readonly matrix: Readonly<ValueByZone<ValueByZone<number>>> | null;
  /** `measured-flows` only: the client workloads (`namespace/owner`) by volume, largest first, at most 5 (the comparison checks them for ingress controllers and sidecars). */
  readonly clientWorkloads?: readonly string[];
  /**
   * `measured-flows` only: GB per month between the Service's pods and clients outside the cluster
   * (no Kubernetes metadata, no zone: a load balancer's or the Internet's addresses), both
   * directions — the north-south leg, kept out of {@link gbPerMonth} and priced apart.
   */
  readonly externalGbPerMonth?: number;
}

/** What was dropped or could not be attributed while mapping series to Services (shown as data-quality notes). */
export interface MeasurementQuality {
  /** Series read per query. */
  readonly seriesRead: number;
  /** Samples that were NaN, ±Inf or negative, dropped. */
  readonly invalidSamples: number;
  /** Bytes/s of series whose zone label is empty or not a zone of the cluster's nodes. */
  readonly unknownZoneBytesPerSecond: number;
  /** Bytes/s of series whose workload backs no Service of the cluster. */
  readonly unattributedBytesPerSecond: number;
  /**
   * Bytes/s of flow series that name a Service as one end (`k8s_*_owner_type="Service"`: the
   * client's agent saw the packet before kube-proxy translated the ClusterIP); they repeat bytes of
   * the workload series and are not counted.
   */
  readonly serviceAddressedBytesPerSecond?: number;
  /** Pod-bytes series of `hostNetwork` pods: their counters are the node's, not the pod's; not counted. */
  readonly hostNetworkPods?: number;
  /** Human notes, at most a handful ("12 series name zone \"us-east-1z\", which no node has"). */
  readonly notes: readonly string[];
}

/** Everything measured for the cluster, by Service. Built by the caller from Prometheus answers. */
export interface MeasuredTraffic {
  /** PromQL window of the rates. */
  readonly window: string;
  /** ISO time of the Prometheus evaluation (the caller's clock; the engine never reads one). */
  readonly measuredAt: string;
  /** `namespace/name` → measured traffic. */
  readonly byService: ReadonlyMap<string, MeasuredServiceTraffic>;
  /**
   * Cluster-wide cross-zone GB per month of the `*_network_inter_zone_bytes_total` family, each
   * byte once (every inter-zone byte is reported by the agent of each of its two nodes, so the sum
   * over agents is halved); `null` when absent.
   */
  readonly interZoneGbPerMonth: number | null;
  /**
   * Whether the flow series carry zones: `labelled` (src_zone/dst_zone, added by `attributes.select`),
   * `missing` (Beyla's and OBI's default attribute set: no zone can be measured, Services use pod
   * bytes), `none` (no flow series).
   */
  readonly flowZones: FlowZones;
  /** The inter-zone total against the flows' cross-zone bytes, when both are measured; `null` otherwise. */
  readonly reconciliation: InterZoneReconciliation | null;
  readonly quality: MeasurementQuality;
}

/** See {@link MeasuredTraffic.flowZones}. */
export type FlowZones = 'labelled' | 'missing' | 'none';

/** The flows' cross-zone bytes against Beyla's own inter-zone counter (both counted once). */
export interface InterZoneReconciliation {
  /** GB per month of cross-zone flow bytes attributed to Services. */
  readonly servicesGbPerMonth: number;
  /** GB per month of cross-zone flow bytes between workloads that back no Service (pod to pod, StatefulSet peers). */
  readonly otherGbPerMonth: number;
  /** The inter-zone counter's GB per month. */
  readonly interZoneGbPerMonth: number;
  /** Within {@link RECONCILE_TOLERANCE} of each other (flows' total against the counter). */
  readonly agrees: boolean;
  /** One sentence: how they compare and, when they disagree, what may cause it. */
  readonly note: string;
}

/** Relative difference under which the flows and the inter-zone counter agree. */
export const RECONCILE_TOLERANCE = 0.05;

/** How volumes are resolved when nothing is measured, and the price (cluster-wide settings). */
export interface VolumeSettings {
  /** The operator's price (`null`: the price list of the cloud the cluster runs on; see model/cloud-pricing.ts). */
  readonly priceSetting: PriceSetting | null;
  /** Assumed GB per ready endpoint per month ({@link DEFAULT_GB_PER_ENDPOINT}). */
  readonly gbPerEndpoint: number;
  /** When set, every Service without a measurement or its own setting is assumed to move this many GB a month (flat), instead of per endpoint. */
  readonly gbPerService: number | null;
  /** Per-Service volumes set by the user (`namespace/name` → GB per month); they win over assumptions, not over measurements. */
  readonly setByService: ReadonlyMap<string, number>;
}

/** One Service's resolved volume. */
export interface ServiceVolume {
  readonly gbPerMonth: number;
  readonly source: VolumeSource;
  /** Measured zone matrix (GB per month), `measured-flows` only. */
  readonly measuredMatrix: Readonly<ValueByZone<ValueByZone<number>>> | null;
}

/** The scenarios of the cluster-wide figures: now, after the controller's next sync, and each Service at its best available mechanism. */
export const CLUSTER_TRAFFIC_SCENARIOS = ['now', 'expected', 'best'] as const;

/** One cluster-wide scenario (see {@link CLUSTER_TRAFFIC_SCENARIOS}). */
export type ClusterTrafficScenario = (typeof CLUSTER_TRAFFIC_SCENARIOS)[number];

/** Volume and cost totals of one scenario. */
export interface TrafficTotals {
  /** All traffic of the Services counted (GB per month). */
  readonly gbPerMonth: number;
  /** Of it, delivered to an endpoint in another zone. */
  readonly crossZoneGbPerMonth: number;
  /** `crossZoneGbPerMonth / gbPerMonth` (0 when there is no traffic). */
  readonly crossZoneFraction: number;
  /** USD per month: cross-zone GB × the pricing's cost per cross-zone GB. */
  readonly monthlyCost: number;
}

/** One Service's cluster-wide traffic figures (a row of the top lists and of the Services table). */
export interface ServiceTrafficCost {
  readonly namespace: string;
  readonly name: string;
  readonly volume: ServiceVolume;
  /** Cross-zone share now: measured when the volume is `measured-flows`, else the model's. */
  readonly crossZoneFraction: number;
  /** The model's cross-zone share now (equals `crossZoneFraction` unless measured). */
  readonly predictedCrossZoneFraction: number;
  readonly crossZoneGbPerMonth: number;
  /** USD per month now. */
  readonly monthlyCost: number;
  /** USD per month once the controller's next sync is applied (the model's change applied to the measurement when measured). */
  readonly expectedMonthlyCost: number;
  /** USD per month at the best of: now, after the sync, topology mode Auto, the smallest fix. */
  readonly bestMonthlyCost: number;
  /** Which scenario is best (`now` when nothing improves on it; `fix`: the Service's smallest verified fix). */
  readonly bestScenario: BestScenario;
  /** `monthlyCost − bestMonthlyCost` (never negative). */
  readonly saving: number;
  /** Title of the smallest fix (the report's primary fix), `null` when none applies. */
  readonly fix: string | null;
  /** USD per month the smallest fix saves against now (the engine re-run on the fixed state at this volume), `null` without a verified fix. */
  readonly fixSaving: number | null;
}

/** The scenarios a Service's best cost is taken from. */
export type BestScenario = 'now' | 'expected' | 'ifAuto' | 'fix';

/** The cluster-wide traffic block (`traffic` of the analyze JSON and of `GET /api/v1/cluster`). */
export interface ClusterTrafficReport {
  /** What a cross-zone GB costs on this cluster's cloud, and why. */
  readonly pricing: CrossZonePricing;
  /** `pricing.note`. */
  readonly priceNote: string;
  /** Zones of the flow matrices, sorted (lumped columns last, as in a Service's matrix). */
  readonly zones: readonly string[];
  /** client zone → endpoint zone → GB per month, per scenario. `now` uses the measured matrix of Services measured with flows. */
  readonly flows: Readonly<Record<ClusterTrafficScenario, Readonly<ValueByZone<ValueByZone<number>>>>>;
  readonly totals: Readonly<Record<ClusterTrafficScenario, TrafficTotals>>;
  /** USD per month saved against `now` by the next sync and by the best available mechanism. */
  readonly saving: { readonly expected: number; readonly best: number };
  /** How many Services' volumes came from each source, and the share of the total volume each covers. */
  readonly sources: Readonly<Record<VolumeSourceKind, { readonly services: number; readonly gbPerMonth: number }>>;
  /** The sentences that say what the figures rest on (measured metric and window; the assumption). */
  readonly sourceNotes: readonly string[];
  /** Measured cluster-wide inter-zone GB per month (`*_network_inter_zone_bytes_total`, each byte once), `null` when not measured. */
  readonly measuredInterZoneGbPerMonth: number | null;
  /** The inter-zone counter against the flows, when both are measured. */
  readonly reconciliation: InterZoneReconciliation | null;
  /**
   * The load balancers' own cross-zone leg (north-south: NLB cross-zone load balancing), for the
   * Services whose external volume is measured; kept apart from the in-cluster totals. `null` when
   * no such volume is known.
   */
  readonly loadBalancer: LoadBalancerLegTotals | null;
  readonly measuredAt: string | null;
  readonly quality: MeasurementQuality | null;
  /** The Services with the highest cross-zone cost now (at most 10, cost descending, then namespace/name). */
  readonly topByCost: readonly ServiceTrafficCost[];
  /** The Services whose best mechanism saves most (at most 10, saving descending; only savings > 0). */
  readonly topBySaving: readonly ServiceTrafficCost[];
  /** Services counted. */
  readonly services: number;
}

/** What a Service's load balancer adds on its way in (see {@link ClusterTrafficReport.loadBalancer}). */
export interface LoadBalancerLegCost {
  /** External GB per month (measured north-south flows). */
  readonly gbPerMonth: number;
  /** Share of it the load balancer sends to a target in another zone. */
  readonly crossZoneFraction: number;
  readonly crossZoneGbPerMonth: number;
  readonly monthlyCost: number;
  /** How the share and the price follow from the load balancer's settings. */
  readonly formula: string;
}

/** The load-balancer legs of the cluster, summed. */
export interface LoadBalancerLegTotals {
  readonly services: number;
  readonly gbPerMonth: number;
  readonly crossZoneGbPerMonth: number;
  readonly monthlyCost: number;
}

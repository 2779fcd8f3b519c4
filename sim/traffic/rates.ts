/**
 * What the simulator says it sent (`GET /__sim/traffic-rates`, JSON): each Service's traffic as
 * sent (each byte once) per zone pair, workload and pod, and the rate every exported series grows
 * at — so tests can compare what zonescope reads from Prometheus with the truth.
 */
import type { TrafficMetricsOptions } from './exporter-options';
import type { TrafficDeviation } from './profile';

/** What the simulator exports for a Service. */
export type TrafficCoverage = 'flows-and-pod-bytes' | 'pod-bytes' | 'none';

/** A flow end as Beyla names it (`k8s_*_owner_name` / `k8s_*_owner_type`): a workload, a Node (hostNetwork pods), empty when unknown. */
export interface TrafficWorkload {
  readonly kind: string;
  readonly name: string;
}

/** Request and reply bytes/s between one client zone and one endpoint zone (`''` = unknown zone), and who reports them. */
export interface ZonePairRate {
  readonly clientZone: string;
  readonly endpointZone: string;
  readonly requestBytesPerSecond: number;
  readonly replyBytesPerSecond: number;
  /** Share of the cell's bytes whose client and endpoint run on one node (0 across zones). */
  readonly sameNodeFraction: number;
  /** `instance` of the client-side agent, which reports the whole cell (`null`: no client node in the zone). */
  readonly clientAgent: string | null;
  /** `instance` of the server-side agent, which reports the cross-node part (`null`: no endpoint node known). */
  readonly serverAgent: string | null;
}

/** A pod's received and transmitted bytes/s (one Service's part): what the pod itself sent. */
export interface PodRate {
  readonly namespace: string;
  readonly pod: string;
  /** The pod's node (`null`: not scheduled; cAdvisor then exports nothing for it). */
  readonly node: string | null;
  /** The pod uses the host's network: its sandbox series carry the node's interface and total instead. */
  readonly hostNetwork: boolean;
  readonly rxBytesPerSecond: number;
  readonly txBytesPerSecond: number;
}

/** One Service's traffic, as the simulator sends it (each byte once). */
export interface ServiceTrafficRates {
  readonly namespace: string;
  readonly name: string;
  readonly readyEndpoints: number;
  readonly coverage: TrafficCoverage;
  readonly deviation: TrafficDeviation | null;
  /** Seeded request rate per ready endpoint, before deviations. */
  readonly requestBytesPerSecondPerEndpoint: number;
  /** Delivered request bytes/s (Σ `byZonePair`), after deviations. */
  readonly requestBytesPerSecond: number;
  readonly replyBytesPerSecond: number;
  /** Request + reply. */
  readonly totalBytesPerSecond: number;
  /** Request + reply bytes/s between two different known zones. */
  readonly crossZoneBytesPerSecond: number;
  /** Share of the bytes between two different known zones, as sent. */
  readonly crossZoneFraction: number;
  /** The engine's cross-zone share now (what the dashboard predicts). */
  readonly predictedCrossZoneFraction: number;
  /** Whether the client-side agents also export Service-typed duplicates (flows exported, a ClusterIP, a kube-proxy dataplane). */
  readonly serviceTypedFlows: boolean;
  /** Sorted by client zone, then endpoint zone. */
  readonly byZonePair: readonly ZonePairRate[];
  /** Flow ends behind the endpoints (the `k8s_dst_owner_*` of the request flows). */
  readonly workloads: readonly TrafficWorkload[];
  /** This Service's part of each endpoint pod's bytes (sorted by pod). */
  readonly pods: readonly PodRate[];
  /** Σ rx + tx of `pods` (less than `totalBytesPerSecond` when endpoints name no known pod). */
  readonly podBytesPerSecond: number;
  /** Request + reply bytes/s the model could not place in a named zone (lumped matrices beyond 64 zones), not exported. */
  readonly unexportedBytesPerSecond: number;
}

/** One exported series and the rate its counter grows at. */
export interface SeriesRate {
  readonly metric: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly bytesPerSecond: number;
}

/** `GET /__sim/traffic-rates`. */
export interface TrafficRatesDocument {
  readonly clusterName: string;
  /** When the counters started (the simulator's start). */
  readonly startedAt: string;
  /** When these rates were read. */
  readonly at: string;
  /** Increases whenever the model was re-run (a changed store, a switched option). */
  readonly generation: number;
  /** The switches in force. */
  readonly options: TrafficMetricsOptions;
  readonly replyFactor: number;
  readonly clientWorkload: TrafficWorkload;
  /** The metric names in force. */
  readonly metrics: { readonly flows: string; readonly interZone: string; readonly podReceive: string; readonly podTransmit: string };
  /** Every Service with ready endpoints (kube-system ones too, with coverage `none`), by namespace/name. */
  readonly services: readonly ServiceTrafficRates[];
  /** Bytes/s the cluster sends between two different known zones, each byte once (Σ `crossZoneBytesPerSecond` of every Service, whatever its coverage). */
  readonly interZoneBytesPerSecond: number;
  /** The part of {@link interZoneBytesPerSecond} of Services whose flows are exported. */
  readonly flowInterZoneBytesPerSecond: number;
  /** Exactly the series of `/__sim/metrics` and their rates (omitted with `series=false`). */
  readonly series?: readonly SeriesRate[];
  /** Series exported, per metric. */
  readonly seriesCount: Readonly<Record<string, number>>;
}

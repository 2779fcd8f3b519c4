/**
 * The JSON shapes of `/api/v1` (documented in `docs/api.md`), for clients such as the toggle
 * component. Types only: import them with `import type`.
 */
import type { MetricsStatus } from '../prometheus/traffic-status';
import type { ClusterTrafficReport } from '../topology/analyses/traffic-volume';
import type { ClusterAnalysis } from '../topology/report/analysis-schema';
import type { UnknownOutcomeCause } from '../k8s/mutations';
import type { TopologyModeApplied, TopologyModeCurrent, TopologyModeState, TopologyModeWriteOutcome } from './topology-mode/types';
import type { Freshness, HeaderView, LiveState } from './header';
import type { ServiceDetailView } from './service/detail';
import type { EndpointListView } from './service/endpoint-lists';
import type { RequestSampleView } from './service/request-sample';
import type { ServiceRow } from './services/rows';
import type { FleetView } from './fleet/fleet';

/** `GET /api/v1/cluster`. */
export interface ClusterResponse extends Pick<ClusterAnalysis, 'schema' | 'kubernetes' | 'assumptions' | 'cluster'> {
  /** The cluster's zone traffic and its cost (with the request's what-ifs applied, if any). */
  readonly traffic: ClusterTrafficReport;
  /** The metrics source's health (the same object as `header.metrics`). */
  readonly metrics: MetricsStatus;
  readonly header: HeaderView;
}

/** `GET /api/v1/cluster/generation`: the cache's generation and per-type health (what live pages poll). */
export type ClusterGenerationResponse = LiveState;

/** `GET /api/v1/clusters`: one row per cluster (the fleet page's data). */
export type ClustersResponse = FleetView;

/** `GET /api/v1/services`. */
export interface ServicesResponse {
  /** Rows matching the filters (before paging). */
  readonly total: number;
  readonly offset: number;
  /** The page size used (after clamping to 1–500). */
  readonly limit: number;
  readonly items: readonly ServiceRow[];
  /** Every namespace that has Services (for the filter), sorted. */
  readonly namespaces: readonly string[];
}

/** `GET /api/v1/services/{namespace}/{name}`. */
export type ServiceResponse = ServiceDetailView;

/** `GET /api/v1/services/{namespace}/{name}/request-sample`: N requests from one client node (see docs/api.md). */
export type RequestSampleResponse = RequestSampleView;

/** `GET /api/v1/services/{namespace}/{name}/endpoints`. */
export type EndpointListResponse = EndpointListView;

/** `GET /api/v1/services/{namespace}/{name}/topology-mode`. */
export type TopologyModeResponse = TopologyModeState;

/** `PUT /api/v1/services/{namespace}/{name}/topology-mode` → 200. */
export interface TopologyModePutResponse {
  readonly result: TopologyModeApplied;
}

/** Every error: `code` is `kind:surface`, e.g. `conflict:topology-mode`. */
export interface ApiErrorResponse {
  readonly error: { readonly code: string; readonly message: string };
  /** 409, 422, 5xx and 504 of the toggle: the Service as re-read (`null` when the re-read failed). */
  readonly current?: TopologyModeCurrent | null;
  /** 504 `timeout:topology-mode` (outcome unknown from the answer): what the re-read shows of the write. */
  readonly outcome?: TopologyModeWriteOutcome;
  /** 504 `timeout:topology-mode`: why the answer left the outcome unknown. */
  readonly cause?: UnknownOutcomeCause;
  /** 503 `syncing:*` / `unavailable:*`: what is still syncing, stale or forbidden. */
  readonly progress?: Freshness;
}

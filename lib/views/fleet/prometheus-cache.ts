/**
 * The fleet Prometheus's rows, refreshed in the background at most once per refresh interval: a
 * page view never waits for the queries, and a failed set of queries keeps the last good rows with
 * a message saying why.
 */
import { PrometheusError } from '../../prometheus/client';
import type { FleetPrometheusConfig } from './prometheus-config';
import { fleetWords } from './prometheus-config';
import type { FleetAnswers } from './prometheus-queries';
import { clusterInfo, queryFleet } from './prometheus-queries';
import { fleetRowsFromAnswers } from './prometheus-rows';
import type { FleetRow } from './row';

/** Seconds between two sets of queries (the fleet page's refresh cadence). */
export const FLEET_PROMETHEUS_REFRESH_SECONDS = 30;

/** What the fleet page shows of the fleet Prometheus. */
export interface FleetPrometheusStatus {
  /** Where it is (no credentials). */
  readonly url: string;
  readonly clusterLabel: string;
  /** `pending`: the first set of queries has not answered yet. */
  readonly state: 'ok' | 'error' | 'pending';
  /** `fleet Prometheus unreachable: …` (`… answer refused: …` for an answer over the cap) when the last set of queries failed (the rows are then the last good ones, if any). */
  readonly message: string | null;
  /** When the last good answer came (ISO), `null` before the first. */
  readonly answeredAt: string | null;
  /** Clusters seen there (before the connected ones are taken out). */
  readonly clusters: number;
}

export interface FleetPrometheusSnapshot {
  readonly status: FleetPrometheusStatus;
  /** The last good rows, with each row's exported display name (for matching with connected clusters). */
  readonly rows: readonly { readonly row: FleetRow; readonly exportedName: string | null }[];
}

export interface FleetPrometheusCacheOptions {
  readonly config: FleetPrometheusConfig;
  readonly now?: () => number;
  readonly refreshMs?: number;
  readonly query?: (config: FleetPrometheusConfig, timeSeconds: number) => Promise<FleetAnswers>;
}

/** The message of a failed set of queries (an answer over the cap is refused, not unreachable). */
export function unreachableMessage(error: unknown): string {
  const text = error instanceof PrometheusError || error instanceof Error ? error.message : String(error);
  if (error instanceof PrometheusError && error.kind === 'too-large') return `fleet Prometheus answer refused: ${fleetWords(text)}`;
  return `fleet Prometheus unreachable: ${fleetWords(text)}`;
}

/** The fleet Prometheus's rows, refreshed in the background at most once per `refreshMs`. */
export class FleetPrometheusCache {
  private readonly config: FleetPrometheusConfig;
  private readonly now: () => number;
  private readonly refreshMs: number;
  private readonly query: (config: FleetPrometheusConfig, timeSeconds: number) => Promise<FleetAnswers>;
  private rows: FleetPrometheusSnapshot['rows'] = [];
  private answeredAt: number | null = null;
  private error: string | null = null;
  private startedAt: number | null = null;
  private inflight: Promise<void> | null = null;

  constructor(options: FleetPrometheusCacheOptions) {
    this.config = options.config;
    this.now = options.now ?? Date.now;
    this.refreshMs = options.refreshMs ?? FLEET_PROMETHEUS_REFRESH_SECONDS * 1000;
    this.query = options.query ?? queryFleet;
  }

  /** What is known now; starts a refresh in the background when the last one started `refreshMs` ago or more (never waits for it). */
  snapshot(): FleetPrometheusSnapshot {
    const now = this.now();
    if (this.inflight === null && (this.startedAt === null || now - this.startedAt >= this.refreshMs)) void this.refresh();
    return {
      status: {
        url: this.config.metrics.baseUrl,
        clusterLabel: this.config.clusterLabel,
        state: this.error !== null ? 'error' : this.answeredAt === null ? 'pending' : 'ok',
        message: this.error,
        answeredAt: this.answeredAt === null ? null : new Date(this.answeredAt).toISOString(),
        clusters: this.rows.length,
      },
      rows: this.rows,
    };
  }

  /** Runs one set of queries now (the one in flight, if any); resolves when it is done, never rejects. */
  refresh(): Promise<void> {
    if (this.inflight !== null) return this.inflight;
    const started = this.now();
    this.startedAt = started;
    const label = this.config.clusterLabel;
    this.inflight = this.query(this.config, started / 1000)
      .then((answers) => {
        const info = clusterInfo(answers, label);
        this.rows = fleetRowsFromAnswers(answers, label, started).map((row) => ({ row, exportedName: info.get(row.displayName)?.ownName ?? null }));
        this.answeredAt = this.now();
        this.error = null;
      })
      .catch((error: unknown) => {
        this.error = unreachableMessage(error);
      })
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }
}

/**
 * The fleet: one summary row per cluster of the registry, for `/fleet` and `GET /api/v1/clusters`.
 *
 * {@link fleetView} opens every cluster up to the registry's limit and builds the rows (row.ts);
 * the last row of every cluster is kept (keyed by cluster id, with the time it was taken), so a
 * cluster closed after being idle — or one the limit keeps closed — still shows its last figures,
 * marked with their time, and a cluster syncing again shows its previous figures until the new
 * analysis is there. The clusters the fleet's Prometheus knows and this installation does not
 * connect to follow as rows of their own (prometheus-*.ts). {@link fleetLeader} answers which
 * cluster spends most.
 */
import 'server-only';

import type { Config } from '../../config/variables';
import { getConfig } from '../../config/process-config';
import { getClusterRegistry } from '../../k8s/source';
import { getClusterAnalysis } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { clusterHref, isScopeError, scopeFor } from '../../server/clusters';
import { getClusterStatus, getHeader } from '../header';
import { getClusterTraffic } from '../traffic';
import type { FleetPrometheusSnapshot, FleetPrometheusStatus } from './prometheus-cache';
import { FleetPrometheusCache } from './prometheus-cache';
import type { FleetPrometheusEnv } from './prometheus-config';
import { fleetPrometheusConfigFromEnv } from './prometheus-config';
import { sameCluster } from './prometheus-rows';
import type { FleetRow } from './row';
import { fleetRow, withLastFigures } from './row';

/** The answer to "which cluster spends most on cross-zone traffic, and why" (pure); `null` when no cluster has a cost. */
export interface FleetLeader {
  readonly row: FleetRow;
  /** Its share of the cross-zone spend of every cluster with a figure (0–1). */
  readonly share: number;
  /** USD per month of every cluster with a figure. */
  readonly total: number;
  /** Clusters with a figure. */
  readonly counted: number;
}

/** The cluster spending most on cross-zone traffic now (pure). */
export function fleetLeader(rows: readonly FleetRow[]): FleetLeader | null {
  const costed = rows.filter((r): r is FleetRow & { crossZoneMonthly: number } => r.crossZoneMonthly !== null);
  if (costed.length === 0) return null;
  const row = costed.reduce((a, b) => (b.crossZoneMonthly > a.crossZoneMonthly ? b : a));
  const total = costed.reduce((sum, r) => sum + r.crossZoneMonthly, 0);
  return { row, share: total > 0 ? row.crossZoneMonthly / total : 0, total, counted: costed.length };
}

// ---------------------------------------------------------------------------------------------
// The registry's clusters, now

/** `GET /api/v1/clusters` and the fleet page's data. */
export interface FleetView {
  /** One row per cluster, in registry order (default first). */
  readonly clusters: readonly FleetRow[];
  readonly defaultId: string;
  /** Clusters open now, and the most that may be (`ZONESCOPE_MAX_OPEN_CLUSTERS`, the default counted). */
  readonly openCount: number;
  readonly maxOpen: number;
  /** Idle minutes after which a cluster closes (`ZONESCOPE_CLUSTER_IDLE_MINUTES`; 0 = never). */
  readonly idleMinutes: number;
  readonly generatedAt: string;
  /**
   * The fleet Prometheus (`ZONESCOPE_FLEET_PROMETHEUS_URL`) whose clusters are rows too (`source:
   * 'prometheus'`, after the connected ones), `null` when not configured. Its `message` says when
   * it cannot be read (`fleet Prometheus unreachable: …`); the connected rows are shown regardless.
   */
  readonly fleetPrometheus: FleetPrometheusStatus | null;
}

/** The last row with figures of every cluster (by id): what a closed or refused cluster still shows. */
const SUMMARIES = Symbol.for('zonescope.fleetSummaries');
type Holder = { [SUMMARIES]?: Map<string, FleetRow> };

function summaries(): Map<string, FleetRow> {
  const holder = globalThis as unknown as Holder;
  return (holder[SUMMARIES] ??= new Map());
}

/** The row of an open cluster from what its source and analysis say now. */
function openRow(scope: ClusterScope, now: string): FleetRow {
  return fleetRow({
    entry: scope.entry,
    state: 'open',
    link: (path) => clusterHref(scope, path),
    now,
    header: getHeader(scope),
    status: getClusterStatus(scope),
    analysis: getClusterAnalysis(scope.source),
    traffic: getClusterTraffic(scope)?.report ?? null,
  });
}

/**
 * Whether the navigation offers the fleet page: with several clusters, or with a fleet Prometheus
 * (`ZONESCOPE_FLEET_PROMETHEUS_URL`: one zonescope per cluster, the fleet read from where they are
 * scraped — an in-cluster installation has one cluster of its own and still a fleet to show).
 */
export function fleetOffered(clusterCount: number, config: Pick<Config, 'ZONESCOPE_FLEET_PROMETHEUS_URL'> = getConfig()): boolean {
  return clusterCount > 1 || config.ZONESCOPE_FLEET_PROMETHEUS_URL !== undefined;
}

/**
 * Every cluster of the registry as a fleet row. Opens each cluster not open yet, in registry
 * order, until the registry's limit refuses (those rows say so, with the registry's message);
 * a cluster with figures updates its kept summary, one without (syncing, failing, refused,
 * closed) shows the kept one with its time. Never throws for one cluster: a cluster whose data
 * cannot be read is a row with its error.
 */
export function fleetView(now: Date = new Date()): FleetView {
  const registry = getClusterRegistry();
  const at = now.toISOString();
  const kept = summaries();
  const prometheus = fleetPrometheusSnapshot();
  const rows = registry.entries().map((entry): FleetRow => {
    const link = (path: string) => clusterHref(entry, path);
    let row: FleetRow;
    // Reading a cluster's figures for the fleet does not count as using it (OpenOptions).
    const scope = scopeFor(entry.id, { for: 'fleet' });
    if (isScopeError(scope)) {
      const state = registry.state(entry.id) ?? 'idle';
      const refused = scope.reason === 'limit' || scope.reason === 'config' ? { reason: scope.reason, message: scope.message } : null;
      row = fleetRow({ entry, state, link, now: at, refused, closedAt: registry.closedAt(entry.id), closedFor: registry.closedFor(entry.id)?.displayName ?? null });
    } else {
      try {
        row = openRow(scope, at);
      } catch (error) {
        // One cluster's failure is its row's error, never the page's.
        const message = error instanceof Error ? error.message : 'The cluster could not be read.';
        row = { ...fleetRow({ entry, state: 'open', link, now: at }), freshness: { kind: 'error', label: 'Error', message, since: null, progress: null } };
      }
    }
    if (row.asOf === at) kept.set(entry.id, row);
    const last = kept.get(entry.id);
    // Only the same cluster's figures (an id names another context after a configuration change).
    return last !== undefined && last.context === entry.context && last.server === entry.server ? withLastFigures(row, last) : row;
  });
  return {
    clusters: [...rows, ...fleetPrometheusRows(rows, prometheus)],
    fleetPrometheus: prometheus?.status ?? null,
    defaultId: registry.defaultEntry().id,
    openCount: registry.openIds().length,
    maxOpen: registry.maxOpen,
    idleMinutes: registry.idleMs / 60_000,
    generatedAt: at,
  };
}

const FLEET_PROMETHEUS = Symbol.for('zonescope.fleetPrometheus');
type PrometheusHolder = { [FLEET_PROMETHEUS]?: { readonly key: string; readonly cache: FleetPrometheusCache | null; readonly error: FleetPrometheusStatus | null } };

/**
 * What the fleet Prometheus said last (its queries run in the background, at most every 30 s;
 * a page view never waits for them), `null` when `ZONESCOPE_FLEET_PROMETHEUS_URL` is unset. A
 * configuration error is a status with its message and no rows.
 */
function fleetPrometheusSnapshot(env: FleetPrometheusEnv = getConfig()): FleetPrometheusSnapshot | null {
  const holder = globalThis as unknown as PrometheusHolder;
  const key = [env.ZONESCOPE_FLEET_PROMETHEUS_URL, env.ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE, env.ZONESCOPE_FLEET_PROMETHEUS_CA_FILE, env.ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS, env.ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB, env.ZONESCOPE_FLEET_CLUSTER_LABEL].map((value) => String(value ?? '')).join('\n');
  let held = holder[FLEET_PROMETHEUS];
  if (held === undefined || held.key !== key) {
    const result = fleetPrometheusConfigFromEnv(env);
    held =
      result.kind === 'ok'
        ? { key, cache: new FleetPrometheusCache({ config: result.config }), error: null }
        : {
            key,
            cache: null,
            error:
              result.kind === 'error'
                ? { url: result.url ?? '(invalid URL)', clusterLabel: env.ZONESCOPE_FLEET_CLUSTER_LABEL, state: 'error', message: `fleet Prometheus misconfigured: ${result.message}`, answeredAt: null, clusters: 0 }
                : null,
          };
    holder[FLEET_PROMETHEUS] = held;
  }
  if (held.cache !== null) return held.cache.snapshot();
  return held.error !== null ? { status: held.error, rows: [] } : null;
}

/** The fleet Prometheus's rows of clusters not connected here (a cluster both connected and there shows its connected row). Pure. */
export function fleetPrometheusRows(connected: readonly FleetRow[], snapshot: FleetPrometheusSnapshot | null): FleetRow[] {
  if (snapshot === null) return [];
  return snapshot.rows.filter(({ row, exportedName }) => !connected.some((c) => sameCluster(c, row.displayName, exportedName))).map(({ row }) => row);
}

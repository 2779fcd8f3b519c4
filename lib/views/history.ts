/**
 * History for pages and routes: a Service's or the cluster's `zonescope_*` series read back from
 * the Prometheus of `ZONESCOPE_PROMETHEUS_URL` (lib/prometheus/history/queries.ts) and assembled into
 * the DTOs of history-types.ts (lib/prometheus/history/). zonescope stores no history itself.
 *
 * - Not configured → status `not-configured` (what to set); a bad `ZONESCOPE_PROMETHEUS_*` value or
 *   `ZONESCOPE_HISTORY_SELECTOR` → `not-configured` with the variable and what is wrong.
 * - Prometheus down, slow or refusing → `unavailable` with its safe message (never a credential).
 * - Prometheus answers but holds no series → `no-data` with what to configure.
 *
 * Each answer is cached for `min(step, 15 s)` per (Prometheus, selector, Service or cluster, range),
 * in flight included, so many viewers cost one set of queries. At most
 * {@link MAX_CACHED_ANSWERS} answers are kept.
 */
import 'server-only';

import type { ClusterHistory, HistoryFrame, HistoryRange, HistoryStatus, ServiceHistory } from '../shared/history-types';
import { DEFAULT_HISTORY_RANGE, HISTORY_RANGES } from '../shared/history-types';
import type { ApiSurface, Parsed } from '../server/http';
import { errorResponse } from '../server/http';
import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import type { MetricsConfig } from '../prometheus/config';
import { metricsConfigFromEnv } from '../prometheus/config';
import type { MatrixSeries } from '../prometheus/client';
import { PrometheusError, queryRange } from '../prometheus/client';
import { parseHistorySelector } from '../config/prometheus-syntax';
import { clusterQueries, MAX_REFINEMENTS, serviceQueries, stepForRange } from '../prometheus/history/queries';
import { coveringRange, firstSampleTime, RANGE_SECONDS } from '../shared/history-range';
import { assembleClusterHistory, clusterHasData } from '../prometheus/history/cluster';
import { eventMarks } from '../prometheus/history/marks';
import type { RefinementQuery, RefinementResult, RefinementWindow } from '../prometheus/history/refinement';
import { applyClusterRefinements, applyServiceRefinements, refinementWindows } from '../prometheus/history/refinement';
import { assembleServiceHistory, serviceHasData } from '../prometheus/history/service';
import type { ClusterScope } from '../server/clusters';
import type { ServiceLookupError } from './service/view';
import { getServiceView } from './service/view';

/** Longest an answer is reused (seconds); shorter for 1h (its step, 5 s). */
export const MAX_CACHE_SECONDS = 15;
/** Answers kept at most (the oldest is dropped first). */
export const MAX_CACHED_ANSWERS = 256;
/** Refinement queries run at once. */
const REFINEMENT_CONCURRENCY = 4;

/**
 * Parses `?range=` of the history routes (`1h`, `6h`, `24h`, `7d`); `null` when none is given
 * (the answer then opens on the range its data covers: {@link coveringRange}). Unknown or
 * repeated parameters and other values are 400 `bad-request:api` naming the allowed values.
 */
export function parseHistoryQuery(params: URLSearchParams, surface: ApiSurface = 'api'): Parsed<HistoryRange | null> {
  const allowed = HISTORY_RANGES.join(', ');
  for (const key of params.keys()) {
    if (key !== 'range') return { ok: false, response: errorResponse(400, 'bad-request', surface, `Unknown query parameter "${key.replace(/[^\x20-\x7e]/g, '?').slice(0, 64)}"; known: range (${allowed}).`) };
  }
  const values = params.getAll('range');
  if (values.length > 1) return { ok: false, response: errorResponse(400, 'bad-request', surface, `The query parameter "range" is given more than once; give one of ${allowed}.`) };
  const value = values[0];
  if (value === undefined || value === '') return { ok: true, value: null };
  if (!(HISTORY_RANGES as readonly string[]).includes(value)) {
    return { ok: false, response: errorResponse(400, 'bad-request', surface, `range must be one of ${allowed} (none: the range the data covers), not "${value.replace(/[^\x20-\x7e]/g, '?').slice(0, 16)}".`) };
  }
  return { ok: true, value: value as HistoryRange };
}

/** Options of {@link getServiceHistory} / {@link getClusterHistory} (tests). */
export interface HistoryOptions {
  /** Unix seconds of the range's end (default: now). */
  readonly now?: number;
  /** The configuration (default the process'). */
  readonly config?: Config;
}

/** Result of {@link getServiceHistory}: the history, or why the Service cannot be shown. */
export type ServiceHistoryResult = { readonly ok: true; readonly value: ServiceHistory } | { readonly ok: false; readonly error: ServiceLookupError };

interface CacheEntry {
  readonly expires: number;
  readonly value: Promise<unknown>;
}

const KEY = Symbol.for('zonescope.historyCache');
type Holder = { [KEY]?: Map<string, CacheEntry> };

function cache(): Map<string, CacheEntry> {
  const holder = globalThis as unknown as Holder;
  return (holder[KEY] ??= new Map());
}

/** Forgets every cached answer (tests, and after configuration changes). */
export function clearHistoryCache(): void {
  cache().clear();
}

function cached<T>(key: string, lifeSeconds: number, compute: () => Promise<T>): Promise<T> {
  const entries = cache();
  const now = Date.now();
  const hit = entries.get(key);
  if (hit !== undefined && hit.expires > now) return hit.value as Promise<T>;
  if (hit !== undefined) entries.delete(key);
  for (const [k, entry] of entries) if (entry.expires <= now) entries.delete(k);
  while (entries.size >= MAX_CACHED_ANSWERS) {
    const oldest = entries.keys().next().value;
    if (oldest === undefined) break;
    entries.delete(oldest);
  }
  const value = compute();
  entries.set(key, { expires: now + lifeSeconds * 1000, value });
  // A failure that is not a status (a bug) is not kept for the cache's life.
  value.catch(() => {
    if (entries.get(key)?.value === value) entries.delete(key);
  });
  return value;
}

/** How to make Prometheus hold zonescope's history (shared by the messages). */
const SCRAPE_HINT = 'add a scrape job for zonescope\'s /metrics to that Prometheus (see docs/metrics.md)';

interface Setup {
  readonly range: HistoryRange;
  readonly start: number;
  readonly end: number;
  readonly stepSeconds: number;
  /** Everything that selects the answer: Prometheus, selector. */
  readonly fingerprint: string;
  readonly config: MetricsConfig | null;
  readonly selector: string;
  readonly selectorRaw: string;
  readonly prometheus: string | null;
  /** Set when history cannot be read at all. */
  readonly status: HistoryStatus | null;
}

/** What a cluster other than the default says about its history (the Prometheus scraping zonescope holds the default cluster's series). */
export const HISTORY_DEFAULT_CLUSTER_ONLY = 'History is configured for the default cluster only: the Prometheus that scrapes zonescope\'s /metrics holds the default cluster\'s series, not this cluster\'s.';

function setupFor(scope: Pick<ClusterScope, 'entry'>, range: HistoryRange, options: HistoryOptions): Setup {
  const config = options.config ?? getConfig();
  const rangeSeconds = RANGE_SECONDS[range];
  const stepSeconds = stepForRange(rangeSeconds);
  const end = Math.floor(options.now ?? Date.now() / 1000);
  const start = end - rangeSeconds;
  const base = { range, start, end, stepSeconds };
  const selectorRaw = config.ZONESCOPE_HISTORY_SELECTOR ?? '';
  if (!scope.entry.isDefault) {
    return { ...base, fingerprint: 'other-cluster', config: null, selector: '', selectorRaw, prometheus: null, status: { state: 'not-configured', message: HISTORY_DEFAULT_CLUSTER_ONLY } };
  }
  const result = metricsConfigFromEnv(config);
  if (result.kind === 'not-configured') {
    return {
      ...base,
      fingerprint: 'none',
      config: null,
      selector: '',
      selectorRaw,
      prometheus: null,
      status: { state: 'not-configured', message: 'History is read from Prometheus: set ZONESCOPE_PROMETHEUS_URL to a Prometheus that scrapes zonescope\'s /metrics (see docs/metrics.md).' },
    };
  }
  if (result.kind === 'error') {
    return { ...base, fingerprint: `error|${result.message}`, config: null, selector: '', selectorRaw, prometheus: result.url, status: { state: 'not-configured', message: result.message } };
  }
  const selector = parseHistorySelector(selectorRaw);
  const prometheus = result.config.baseUrl;
  if (!selector.ok) return { ...base, fingerprint: `error|${selector.message}`, config: null, selector: '', selectorRaw, prometheus, status: { state: 'not-configured', message: selector.message } };
  return { ...base, fingerprint: `${prometheus}|${selector.matchers}`, config: result.config, selector: selector.matchers, selectorRaw, prometheus, status: null };
}

function cacheLife(setup: Setup): number {
  return Math.min(setup.stepSeconds, MAX_CACHE_SECONDS);
}

function unavailable(error: unknown): HistoryStatus {
  return { state: 'unavailable', message: error instanceof PrometheusError ? error.message : 'Prometheus could not be queried (unexpected error).' };
}

/** Runs `tasks` with at most `limit` at once. */
async function limited<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      const task = tasks[i];
      if (task !== undefined) results[i] = await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

async function refine(config: MetricsConfig, windows: readonly RefinementWindow[], promqlOf: (query: RefinementQuery) => string): Promise<RefinementResult[]> {
  return limited(
    windows.map((window) => async (): Promise<RefinementResult> => ({ window, matrix: await queryRange(config, promqlOf(window.query), window.start, window.end, window.stepSeconds) })),
    REFINEMENT_CONCURRENCY,
  );
}

function selectorNote(setup: Setup): string {
  return setup.selector === '' ? '' : ` matching ZONESCOPE_HISTORY_SELECTOR (${setup.selectorRaw})`;
}

const EMPTY_SERVICE = { hintsObserved: [], hintsExpected: [], reasons: [], mechanism: [], transitions: [], readyEndpoints: [], minimumEndpoints: [], crossZone: [], marks: [], comparison: null } as const;

async function serviceHistoryFromPrometheus(setup: Setup, namespace: string, name: string): Promise<ServiceHistory> {
  const frame = { range: setup.range, start: setup.start, end: setup.end, stepSeconds: setup.stepSeconds, prometheus: setup.prometheus, namespace, name };
  if (setup.config === null || setup.status !== null) return { ...frame, status: setup.status ?? { state: 'not-configured', message: 'Prometheus is not configured.' }, ...EMPTY_SERVICE };
  const config = setup.config;
  const q = serviceQueries(namespace, name, setup.selector, setup.stepSeconds);
  const run = (promql: string): Promise<MatrixSeries[]> => queryRange(config, promql, setup.start, setup.end, setup.stepSeconds);
  let answers: MatrixSeries[][];
  try {
    answers = await Promise.all([run(q.scalars), run(q.reasons), run(q.info), run(q.readyEndpoints), run(q.minimumEndpoints), run(q.nodes)]);
  } catch (error) {
    return { ...frame, status: unavailable(error), ...EMPTY_SERVICE };
  }
  const [scalars = [], reasons = [], info = [], readyEndpoints = [], minimumEndpoints = [], nodes = []] = answers;
  if (!serviceHasData({ scalars, reasons, info, readyEndpoints })) {
    const zonescopeScraped = nodes.some((s) => s.values.length > 0);
    const message = zonescopeScraped
      ? `Prometheus at ${setup.prometheus} holds zonescope's series${selectorNote(setup)} but none for Service ${namespace}/${name} in the last ${setup.range} (zonescope_service_info{namespace="${namespace}",service="${name}"} is empty): the Service may be newer than that, or beyond ZONESCOPE_METRICS_MAX_SERVICES (docs/metrics.md).`
      : `Prometheus at ${setup.prometheus} holds no zonescope series${selectorNote(setup)} in the last ${setup.range} (zonescope_cluster_nodes is empty): ${setup.selector === '' ? SCRAPE_HINT : `check the selector, or ${SCRAPE_HINT}`}.`;
    return { ...frame, status: { state: 'no-data', message }, ...EMPTY_SERVICE };
  }
  const draft = assembleServiceHistory({ frame: { ...frame, status: { state: 'ok' } }, scalars, reasons, info, readyEndpoints, minimumEndpoints, nodes, events: [] });
  const windows = refinementWindows(draft.transitions, setup.stepSeconds, MAX_REFINEMENTS);
  if (windows.length === 0) return draft;
  try {
    const results = await refine(config, windows, (query) => (query === 'expected' ? q.expected : query === 'mechanism' ? q.mechanism : q.observed));
    return applyServiceRefinements(draft, results);
  } catch {
    // The step-precision answer stands when a refinement fails (its precisionSeconds says so).
    return draft;
  }
}

/**
 * A Service's history over `range`; `not-found` when the cluster has no such Service, `syncing`
 * before the first sync. Prometheus problems are in `status`, never an error. The Service's
 * Events (from the current analysis) are marked on every call; the Prometheus part is cached.
 */
export async function getServiceHistory(scope: ClusterScope, namespace: string, name: string, range: HistoryRange | null, options: HistoryOptions = {}): Promise<ServiceHistoryResult> {
  const view = getServiceView(scope, namespace, name);
  if (!view.ok) return view;
  const over = (r: HistoryRange): Promise<ServiceHistory> => {
    const setup = setupFor(scope, r, options);
    const key = `service|${setup.fingerprint}|${namespace}/${name}|${r}|${options.now ?? ''}`;
    return cached(key, cacheLife(setup), () => serviceHistoryFromPrometheus(setup, namespace, name));
  };
  const history = range !== null ? await over(range) : await openingOn(over, (h) => firstSampleTime([h.hintsObserved], [h.readyEndpoints, h.crossZone]));
  const events = eventMarks(view.value.detail.events, history.start, history.end);
  if (events.length === 0) return { ok: true, value: history };
  return { ok: true, value: { ...history, marks: [...history.marks, ...events].sort((a, b) => a.at - b.at) } };
}

const EMPTY_CLUSTER = { eligibility: [], transitions: [], spend: [], nodes: [], services: [], marks: [] } as const;

async function clusterHistoryFromPrometheus(setup: Setup): Promise<ClusterHistory> {
  const frame = { range: setup.range, start: setup.start, end: setup.end, stepSeconds: setup.stepSeconds, prometheus: setup.prometheus };
  if (setup.config === null || setup.status !== null) return { ...frame, status: setup.status ?? { state: 'not-configured', message: 'Prometheus is not configured.' }, ...EMPTY_CLUSTER };
  const config = setup.config;
  const q = clusterQueries(setup.selector, setup.stepSeconds);
  const run = (promql: string): Promise<MatrixSeries[]> => queryRange(config, promql, setup.start, setup.end, setup.stepSeconds);
  let answers: MatrixSeries[][];
  try {
    answers = await Promise.all([run(q.scalars), run(q.spend), run(q.zoneNodes), run(q.ineligibleNodes), run(q.insufficientCause)]);
  } catch (error) {
    return { ...frame, status: unavailable(error), ...EMPTY_CLUSTER };
  }
  const [scalars = [], spend = [], zoneNodes = [], ineligibleNodes = [], insufficientCause = []] = answers;
  if (!clusterHasData({ scalars, spend, zoneNodes })) {
    const message = `Prometheus at ${setup.prometheus} holds no zonescope series${selectorNote(setup)} in the last ${setup.range} (zonescope_cluster_eligible and zonescope_cluster_nodes are empty): ${setup.selector === '' ? SCRAPE_HINT : `check the selector, or ${SCRAPE_HINT}`}.`;
    return { ...frame, status: { state: 'no-data', message }, ...EMPTY_CLUSTER };
  }
  const draft = assembleClusterHistory({ frame: { ...frame, status: { state: 'ok' } }, scalars, spend, zoneNodes, ineligibleNodes, insufficientCause });
  const windows = refinementWindows(draft.transitions, setup.stepSeconds, MAX_REFINEMENTS);
  if (windows.length === 0) return draft;
  try {
    return applyClusterRefinements(draft, await refine(config, windows, () => q.eligible));
  } catch {
    return draft;
  }
}

/**
 * The cluster's history over `range` (eligibility, spend, nodes, Services counts; `null`: the
 * range its data covers). Prometheus problems are in `status`.
 */
export function getClusterHistory(scope: Pick<ClusterScope, 'entry'>, range: HistoryRange | null, options: HistoryOptions = {}): Promise<ClusterHistory> {
  const over = (r: HistoryRange): Promise<ClusterHistory> => {
    const setup = setupFor(scope, r, options);
    const key = `cluster|${setup.fingerprint}|${r}|${options.now ?? ''}`;
    return cached(key, cacheLife(setup), () => clusterHistoryFromPrometheus(setup));
  };
  return range !== null ? over(range) : openingOn(over, (h) => firstSampleTime([h.eligibility], [h.spend, h.nodes, h.services]));
}

/**
 * The answer to open on when no range was asked for: the default range's, unless its data starts
 * so late that a shorter range holds all of it (a fresh installation) — then that range's, so the
 * charts show the data rather than a sliver of it. Marked `rangeFromData`.
 */
async function openingOn<T extends HistoryFrame>(over: (range: HistoryRange) => Promise<T>, firstSample: (history: T) => number | null): Promise<T> {
  const wide = await over(DEFAULT_HISTORY_RANGE);
  const range = wide.status.state === 'ok' ? coveringRange(firstSample(wide), wide.end) : DEFAULT_HISTORY_RANGE;
  const answer = range === DEFAULT_HISTORY_RANGE ? wide : await over(range);
  return { ...answer, rangeFromData: true };
}

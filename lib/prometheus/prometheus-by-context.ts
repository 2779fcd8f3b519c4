/**
 * Measured traffic for every cluster of a fleet: `ZONESCOPE_PROMETHEUS_BY_CONTEXT`, a JSON object
 * that gives a kubeconfig context its Prometheus.
 *
 * ```json
 * { "prod-eu": { "selector": "cluster=\"prod-eu\"" },
 *   "prod-us": { "url": "https://prometheus.us.example:9090", "tokenFile": "/var/run/secrets/prom-us/token", "caFile": "/etc/prom-us/ca.pem" } }
 * ```
 *
 * - An entry without `url` shares `ZONESCOPE_PROMETHEUS_URL` (a Prometheus or Thanos several
 *   clusters share, with its `ZONESCOPE_PROMETHEUS_TOKEN_FILE` / `_CA_FILE` unless the entry names
 *   its own) and must have a `selector`: label matchers such as `cluster="prod-eu"` (validated by
 *   `parseTrafficSelector`) that pick the cluster's series; without one it would read every
 *   cluster's series as its own, so that is an error.
 * - An entry with `url` reads that Prometheus with the entry's own `tokenFile` / `caFile` (the
 *   shared Prometheus' credentials are never sent elsewhere) and its optional `selector`.
 * - The default cluster keeps `ZONESCOPE_PROMETHEUS_URL` + `ZONESCOPE_PROMETHEUS_SELECTOR` unless
 *   its context has an entry, which then wins. When other contexts share that URL, the default
 *   needs a selector too (it would read their series as its own otherwise).
 * - A context without an entry has no measured traffic: `not-configured`, with a hint naming the
 *   variable and the context.
 * - Window, refresh, timeout and max-stale stay process-wide (`ZONESCOPE_PROMETHEUS_WINDOW`, …).
 *
 * The variable's syntax — JSON, each entry's shape, URL and selector — is checked with the rest of
 * the configuration when the process starts (lib/config/prometheus-syntax.ts), and a value it cannot
 * use stops the start. What depends on the cluster is an error value here, one sentence naming the
 * variable and the context (`ZONESCOPE_PROMETHEUS_BY_CONTEXT["prod-eu"] has no url, so it shares …`).
 * No message quotes a URL's userinfo, a token or the variable's text.
 */
import type { Config } from '../config/variables';
import type { PrometheusByContext, PrometheusContextSettings } from '../config/prometheus-syntax';
import { contextVariable, displayUrl, parsePrometheusUrl, PROMETHEUS_BY_CONTEXT } from '../config/prometheus-syntax';
import type { MetricsConfigResult, MetricsConfigSettings, MetricsEnv } from './config';
import { metricsConfigFromEnv, metricsConfigFromSettings, unconfiguredResult } from './config';


/** A cluster as the configuration sees it (a registry entry: `ClusterEntry` of lib/k8s/cluster-entries.ts fits). */
export interface TrafficCluster {
  readonly id: string;
  /** Kubeconfig context, `null` for the single cluster of snapshot and in-cluster installations. */
  readonly context: string | null;
  readonly isDefault: boolean;
}

/** The settings read here: the default cluster's Prometheus, the process-wide ones, and `ZONESCOPE_PROMETHEUS_BY_CONTEXT`. */
export type ByContextEnv = MetricsEnv & Pick<Config, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT'>;

/** The variable as the configuration holds it (every entry's shape, URL and selector checked at start). */
export function prometheusByContextOf(config: Pick<Config, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT'>): PrometheusByContext {
  return { ok: true, byContext: new Map([...config.ZONESCOPE_PROMETHEUS_BY_CONTEXT].map(([context, settings]) => [context, { ok: true, settings }] as const)) };
}

const blank = (value: string | undefined): boolean => (value?.trim() ?? '') === '';

/** The display form of a URL setting (no userinfo), `null` when blank or unparsable. */
function shownUrl(raw: string | undefined): string | null {
  if (blank(raw)) return null;
  const parsed = parsePrometheusUrl(raw?.trim() ?? '', '');
  return parsed.ok ? displayUrl(parsed.url) : null;
}

/** Whether an entry reads the shared `ZONESCOPE_PROMETHEUS_URL`: no `url`, or the same one. */
function sharesUrl(settings: PrometheusContextSettings, sharedShown: string | null): boolean {
  if (blank(settings.url)) return true;
  return sharedShown !== null && shownUrl(settings.url) === sharedShown;
}

/** An error result (process-wide window and refresh kept, for the status). */
function errorResult(env: MetricsEnv, message: string, url: string | null): MetricsConfigResult {
  const { window, refreshSeconds } = unconfiguredResult(env);
  return { kind: 'error', message, url, window, refreshSeconds };
}

/** What a context without an entry says. */
function notConfigured(env: MetricsEnv, context: string): MetricsConfigResult {
  const quoted = JSON.stringify(context);
  const shared = blank(env.ZONESCOPE_PROMETHEUS_URL);
  const exampleSelector = JSON.stringify(`cluster=${JSON.stringify(context)}`);
  const hint = shared
    ? `Add ${quoted} to ${PROMETHEUS_BY_CONTEXT} with its Prometheus, e.g. {${quoted}: {"url": "http://prometheus.monitoring:9090"}}, or set ZONESCOPE_PROMETHEUS_URL to a Prometheus or Thanos the clusters share and give ${quoted} the selector of its series, e.g. {${quoted}: {"selector": ${exampleSelector}}}; docs/traffic.md.`
    : `Add ${quoted} to ${PROMETHEUS_BY_CONTEXT}: {${quoted}: {"selector": ${exampleSelector}}} reads its series from ZONESCOPE_PROMETHEUS_URL, {${quoted}: {"url": "http://prometheus.monitoring:9090"}} from a Prometheus of its own; docs/traffic.md.`;
  return { ...unconfiguredResult(env), message: `No Prometheus is configured for context ${quoted} (${PROMETHEUS_BY_CONTEXT} has no entry for it): traffic volumes are assumed.`, hint };
}

/**
 * The default cluster's configuration when its context has no entry: `ZONESCOPE_PROMETHEUS_URL`
 * and friends as {@link metricsConfigFromEnv} reads them — an error when the variable is no JSON
 * object, or when other contexts share that URL and `ZONESCOPE_PROMETHEUS_SELECTOR` is not set.
 * What the process-wide source of lib/prometheus/traffic-source.ts runs with.
 */
export function defaultClusterMetricsConfig(env: ByContextEnv, byContext: PrometheusByContext = prometheusByContextOf(env), defaultContext: string | null = null): MetricsConfigResult {
  const result = metricsConfigFromEnv(env);
  if (!byContext.ok) return errorResult(env, byContext.message, result.kind === 'ok' ? result.config.baseUrl : result.kind === 'error' ? result.url : null);
  if (result.kind !== 'ok' || result.config.selector !== '') return result;
  const sharing = [...byContext.byContext]
    .filter(([context, entry]) => context !== defaultContext && entry.ok && sharesUrl(entry.settings, result.config.baseUrl))
    .map(([context]) => JSON.stringify(context));
  if (sharing.length === 0) return result;
  const named = sharing.length > 3 ? `${sharing.slice(0, 3).join(', ')} and ${sharing.length - 3} more` : sharing.join(', ');
  return errorResult(
    env,
    `ZONESCOPE_PROMETHEUS_SELECTOR is not set, but ${PROMETHEUS_BY_CONTEXT} reads ${named} from ZONESCOPE_PROMETHEUS_URL too: the default cluster would count their series as its own. Set ZONESCOPE_PROMETHEUS_SELECTOR to its series' labels (e.g. cluster="prod"), or give its context an entry.`,
    result.config.baseUrl,
  );
}

/**
 * The configuration of one cluster (see the module comment): its entry's, the default cluster's
 * variables when it is the default without an entry, else `not-configured` with a hint naming
 * the variable and the context. `byContext` is the parsed variable (parse it once, for all).
 */
export function metricsConfigForCluster(env: ByContextEnv, cluster: Pick<TrafficCluster, 'context' | 'isDefault'>, byContext: PrometheusByContext = prometheusByContextOf(env)): MetricsConfigResult {
  const context = cluster.context;
  const entry = context === null || !byContext.ok ? undefined : byContext.byContext.get(context);
  if (entry === undefined) {
    if (cluster.isDefault) return defaultClusterMetricsConfig(env, byContext, context);
    if (!byContext.ok) return errorResult(env, byContext.message, null);
    return context === null ? unconfiguredResult(env) : notConfigured(env, context);
  }
  const name = contextVariable(context ?? '');
  if (!entry.ok) return errorResult(env, entry.message, null);
  const own = entry.settings;
  const sharedShown = shownUrl(env.ZONESCOPE_PROMETHEUS_URL);
  const shared = sharesUrl(own, sharedShown);
  if (shared && blank(own.selector)) {
    const example = JSON.stringify(`cluster=${JSON.stringify(context)}`);
    return errorResult(
      env,
      blank(own.url)
        ? `${name} has no url, so it shares ZONESCOPE_PROMETHEUS_URL, but it has no selector: it would read every cluster's series as its own. Add the labels of its series, e.g. "selector": ${example}.`
        : `${name}.url is ZONESCOPE_PROMETHEUS_URL, which other clusters share, but the entry has no selector: it would read every cluster's series as its own. Add the labels of its series, e.g. "selector": ${example}.`,
      sharedShown,
    );
  }
  if (blank(own.url) && sharedShown === null) {
    const reason = blank(env.ZONESCOPE_PROMETHEUS_URL) ? 'is not set' : 'is not a valid http(s) URL';
    return errorResult(env, `${name} has no url, and ZONESCOPE_PROMETHEUS_URL (the Prometheus it would share) ${reason}.`, null);
  }
  const settings: MetricsConfigSettings = blank(own.url)
    ? {
        url: { raw: env.ZONESCOPE_PROMETHEUS_URL, name: 'ZONESCOPE_PROMETHEUS_URL' },
        tokenFile: blank(own.tokenFile) ? { raw: env.ZONESCOPE_PROMETHEUS_TOKEN_FILE, name: 'ZONESCOPE_PROMETHEUS_TOKEN_FILE' } : { raw: own.tokenFile, name: `${name}.tokenFile` },
        caFile: blank(own.caFile) ? { raw: env.ZONESCOPE_PROMETHEUS_CA_FILE, name: 'ZONESCOPE_PROMETHEUS_CA_FILE' } : { raw: own.caFile, name: `${name}.caFile` },
        selector: { raw: own.selector, name: `${name}.selector` },
      }
    : {
        // A Prometheus of its own: only its own credentials (the shared one's never travel elsewhere).
        url: { raw: own.url, name: `${name}.url` },
        tokenFile: { raw: own.tokenFile, name: `${name}.tokenFile` },
        caFile: { raw: own.caFile, name: `${name}.caFile` },
        selector: { raw: own.selector, name: `${name}.selector` },
      };
  return metricsConfigFromSettings(env, settings);
}

/** Whether the variable has an entry (valid or not) for `context`: for the default cluster, whether it replaces `ZONESCOPE_PROMETHEUS_URL`. */
export function hasContextEntry(byContext: PrometheusByContext, context: string | null): boolean {
  return context !== null && byContext.ok && byContext.byContext.has(context);
}

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
 * Errors are values, one sentence naming the variable and the context
 * (`ZONESCOPE_PROMETHEUS_BY_CONTEXT["prod-eu"].url is not a valid URL …`); a variable that is not a
 * JSON object is an error for every cluster (which entry is whose cannot be told). No message
 * quotes a URL's userinfo, a token or the variable's text (JSON parse errors quote their input).
 */
import type { MetricsConfigResult, MetricsConfigSettings, MetricsEnv } from './config';
import { displayUrl, metricsConfigFromEnv, metricsConfigFromSettings, parsePrometheusUrl, unconfiguredResult } from './config';

/** The variable's name, as every message spells it. */
export const PROMETHEUS_BY_CONTEXT = 'ZONESCOPE_PROMETHEUS_BY_CONTEXT';

/** The keys an entry may have. */
export const CONTEXT_ENTRY_KEYS = ['url', 'selector', 'tokenFile', 'caFile'] as const;

/** One context's entry as written (every key optional, strings). */
export interface PrometheusContextSettings {
  readonly url?: string;
  readonly selector?: string;
  readonly tokenFile?: string;
  readonly caFile?: string;
}

/** One context's entry: its settings, or why its shape is wrong. */
export type PrometheusContextEntry = { readonly ok: true; readonly settings: PrometheusContextSettings } | { readonly ok: false; readonly message: string };

/** The variable parsed: an entry per context named (shape-checked; values are checked per cluster), or why it is no JSON object. */
export type PrometheusByContext = { readonly ok: true; readonly byContext: ReadonlyMap<string, PrometheusContextEntry> } | { readonly ok: false; readonly message: string };

/** A cluster as the configuration sees it (a registry entry: `ClusterEntry` of lib/k8s/clusters.ts fits). */
export interface TrafficCluster {
  readonly id: string;
  /** Kubeconfig context, `null` for the single cluster of snapshot and in-cluster installations. */
  readonly context: string | null;
  readonly isDefault: boolean;
}

/** `ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"]` (the context JSON-quoted and cut at 100 characters). */
export function contextVariable(context: string): string {
  return `${PROMETHEUS_BY_CONTEXT}[${JSON.stringify(context.length > 100 ? `${context.slice(0, 99)}…` : context)}]`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Whether `value` is a plain JSON object. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks one entry's shape: an object with only {@link CONTEXT_ENTRY_KEYS}, each a string. */
function contextEntry(context: string, value: unknown): PrometheusContextEntry {
  const name = contextVariable(context);
  if (!isObject(value)) return { ok: false, message: `${name} must be an object with url, selector, tokenFile or caFile, not ${kindOf(value)}.` };
  const settings: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!(CONTEXT_ENTRY_KEYS as readonly string[]).includes(key)) {
      return { ok: false, message: `${name} has an unknown key ${JSON.stringify(key.slice(0, 40))} (the keys are url, selector, tokenFile and caFile).` };
    }
    if (typeof item !== 'string') return { ok: false, message: `${name}.${key} must be a string, not ${kindOf(item)}.` };
    settings[key] = item;
  }
  return { ok: true, settings };
}

/** Parses the variable (unset or blank: no entries). Never throws. */
export function parsePrometheusByContext(raw: string | undefined): PrometheusByContext {
  const text = raw?.trim() ?? '';
  if (text === '') return { ok: true, byContext: new Map() };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message quotes the text, which may hold a URL with credentials: not shown.
    return { ok: false, message: `${PROMETHEUS_BY_CONTEXT} is not valid JSON (expected an object such as {"prod": {"selector": "cluster=\\"prod\\""}}).` };
  }
  if (!isObject(parsed)) return { ok: false, message: `${PROMETHEUS_BY_CONTEXT} must be a JSON object mapping a kubeconfig context to its Prometheus, not ${kindOf(parsed)}.` };
  const byContext = new Map<string, PrometheusContextEntry>();
  for (const [context, value] of Object.entries(parsed)) {
    if (context.trim() === '') return { ok: false, message: `${PROMETHEUS_BY_CONTEXT} has an entry without a context name.` };
    byContext.set(context, contextEntry(context, value));
  }
  return { ok: true, byContext };
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
export function defaultClusterMetricsConfig(env: MetricsEnv, byContext: PrometheusByContext = parsePrometheusByContext(env[PROMETHEUS_BY_CONTEXT]), defaultContext: string | null = null): MetricsConfigResult {
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
export function metricsConfigForCluster(env: MetricsEnv, cluster: Pick<TrafficCluster, 'context' | 'isDefault'>, byContext: PrometheusByContext = parsePrometheusByContext(env[PROMETHEUS_BY_CONTEXT])): MetricsConfigResult {
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

/**
 * Configuration of the Prometheus traffic source, from the configuration (lib/config, which
 * checked every value's syntax when the process started):
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `ZONESCOPE_PROMETHEUS_URL` | (none: not configured) | base URL of the Prometheus HTTP API (`http://prometheus:9090`, may carry a path prefix) |
 * | `ZONESCOPE_PROMETHEUS_TOKEN_FILE` | none | file holding a bearer token, read again for every request (rotated tokens) |
 * | `ZONESCOPE_PROMETHEUS_CA_FILE` | system CAs | PEM bundle that signs the server's certificate (https) |
 * | `ZONESCOPE_PROMETHEUS_WINDOW` | `7d` | PromQL range of the `rate()`s |
 * | `ZONESCOPE_PROMETHEUS_REFRESH_SECONDS` | `60` | how often the queries run (for the whole process) |
 * | `ZONESCOPE_PROMETHEUS_TIMEOUT_MS` | `10000` | deadline of one query |
 * | `ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS` | `600` | how long the last good measurement is used while Prometheus fails |
 * | `ZONESCOPE_HISTORY_SELECTOR` | none | label matchers added to every history query (validated by `parseHistorySelector` in lib/config/prometheus-syntax.ts) |
 * | `ZONESCOPE_PROMETHEUS_SELECTOR` | none | label matchers added to every traffic query: the cluster's series on a shared Prometheus/Thanos (`cluster="prod"`) |
 *
 * Those are the default cluster's. Other clusters (kubeconfig contexts) get theirs from
 * `ZONESCOPE_PROMETHEUS_BY_CONTEXT` (lib/prometheus/prometheus-by-context.ts), which builds on
 * {@link metricsConfigFromSettings}; window, refresh, timeout and max-stale stay process-wide.
 *
 * What only shows at run time is not a crash: {@link metricsConfigFromEnv} returns
 * `{ kind: 'error' }` with one sentence naming the variable (a token or CA file that cannot be
 * read; a URL or selector given on the command line); no credential (URL userinfo, token) is ever
 * part of a message.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import { displayUrl, parsePrometheusUrl, parseTrafficSelector } from '../config/prometheus-syntax';


/** Most of a Prometheus answer held at once (bytes): a whole answer, unless read sample by sample. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Largest instant-vector answer of the traffic queries read sample by sample (bytes, in all): the
 * flow query with zone labels answers ~73 MB at realistic L; this stops a runaway answer.
 */
export const DEFAULT_MAX_STREAMED_RESPONSE_BYTES = 1024 * 1024 * 1024;

/** A usable configuration. */
export interface MetricsConfig {
  /** Base URL without userinfo, query or fragment, no trailing slash (`https://prom.example:9090/prometheus`). */
  readonly baseUrl: string;
  /** Basic-auth credentials from the URL's userinfo, when given (never shown). */
  readonly basicAuth: { readonly username: string; readonly password: string } | null;
  readonly tokenFile: string | null;
  /** PEM text of the CA bundle, when a CA file is configured. */
  readonly ca: string | null;
  readonly window: string;
  readonly refreshSeconds: number;
  readonly timeoutMs: number;
  readonly maxStaleSeconds: number;
  readonly maxResponseBytes: number;
  /**
   * Largest instant-vector answer read sample by sample, in all (what is held at once stays under
   * `maxResponseBytes`); absent: `maxResponseBytes`, no answer larger than what may be held.
   */
  readonly maxStreamedResponseBytes?: number;
  /** Label matchers added to every traffic query (`cluster="prod"`), `''` for none. */
  readonly selector: string;
}

/** What the environment says. */
export type MetricsConfigResult =
  | {
      readonly kind: 'not-configured';
      readonly window: string;
      readonly refreshSeconds: number;
      /** The status message and hint when they are not the default cluster's (a context without an entry of `ZONESCOPE_PROMETHEUS_BY_CONTEXT`). */
      readonly message?: string;
      readonly hint?: string;
    }
  | { readonly kind: 'error'; readonly message: string; readonly url: string | null; readonly window: string; readonly refreshSeconds: number }
  | { readonly kind: 'ok'; readonly config: MetricsConfig };

/** The settings read here (lib/config): the default cluster's Prometheus and the process-wide window, refresh, timeout and max-stale. */
export type MetricsEnv = Pick<
  Config,
  | 'ZONESCOPE_PROMETHEUS_URL'
  | 'ZONESCOPE_PROMETHEUS_TOKEN_FILE'
  | 'ZONESCOPE_PROMETHEUS_CA_FILE'
  | 'ZONESCOPE_PROMETHEUS_SELECTOR'
  | 'ZONESCOPE_PROMETHEUS_WINDOW'
  | 'ZONESCOPE_PROMETHEUS_REFRESH_SECONDS'
  | 'ZONESCOPE_PROMETHEUS_TIMEOUT_MS'
  | 'ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS'
>;
type Env = MetricsEnv;

/**
 * Where each per-cluster setting of a {@link MetricsConfig} comes from: its raw value and the name
 * a message calls it by (`ZONESCOPE_PROMETHEUS_URL`, or `ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].url`).
 * Window, refresh, timeout and max-stale are process-wide and always read from their variables.
 */
export interface MetricsConfigSettings {
  readonly url: MetricsSetting;
  readonly tokenFile: MetricsSetting;
  readonly caFile: MetricsSetting;
  readonly selector: MetricsSetting;
}

/** One setting's raw value (`undefined` or blank: not set) and its name in messages. */
export interface MetricsSetting {
  readonly raw: string | undefined;
  readonly name: string;
}

/** The process-wide settings' outcome when the URL is not set: what a `not-configured` result carries. */
export function unconfiguredResult(env: Env = getConfig()): Extract<MetricsConfigResult, { kind: 'not-configured' }> {
  return { kind: 'not-configured', window: env.ZONESCOPE_PROMETHEUS_WINDOW, refreshSeconds: env.ZONESCOPE_PROMETHEUS_REFRESH_SECONDS };
}

/** The default cluster's settings: `ZONESCOPE_PROMETHEUS_URL`, `_TOKEN_FILE`, `_CA_FILE` and `_SELECTOR`. */
export function defaultMetricsSettings(env: Env): MetricsConfigSettings {
  return {
    url: { raw: env.ZONESCOPE_PROMETHEUS_URL, name: 'ZONESCOPE_PROMETHEUS_URL' },
    tokenFile: { raw: env.ZONESCOPE_PROMETHEUS_TOKEN_FILE, name: 'ZONESCOPE_PROMETHEUS_TOKEN_FILE' },
    caFile: { raw: env.ZONESCOPE_PROMETHEUS_CA_FILE, name: 'ZONESCOPE_PROMETHEUS_CA_FILE' },
    selector: { raw: env.ZONESCOPE_PROMETHEUS_SELECTOR, name: 'ZONESCOPE_PROMETHEUS_SELECTOR' },
  };
}

/**
 * Reads the configuration. Files (token, CA) are checked for readability now, so a typo shows as
 * a clear status at start-up rather than as a failing query later; the token itself is read again
 * for every request.
 */
export function metricsConfigFromEnv(env: Env = getConfig(), options: { readonly maxResponseBytes?: number; readonly maxStreamedResponseBytes?: number } = {}): MetricsConfigResult {
  return metricsConfigFromSettings(env, defaultMetricsSettings(env), options);
}

/**
 * {@link metricsConfigFromEnv} with the per-cluster settings (URL, token file, CA file, selector)
 * taken from `settings`, each message naming the setting as `settings` calls it; the process-wide
 * ones (window, refresh, timeout, max-stale) from `env`.
 */
export function metricsConfigFromSettings(env: Env, settings: MetricsConfigSettings, options: { readonly maxResponseBytes?: number; readonly maxStreamedResponseBytes?: number } = {}): MetricsConfigResult {
  const rawWindow = env.ZONESCOPE_PROMETHEUS_WINDOW;
  const refreshSeconds = env.ZONESCOPE_PROMETHEUS_REFRESH_SECONDS;
  const rawUrl = settings.url.raw?.trim() ?? '';
  if (rawUrl === '') return { kind: 'not-configured', window: rawWindow, refreshSeconds };

  const fail = (message: string, url: string | null): MetricsConfigResult => ({ kind: 'error', message, url, window: rawWindow, refreshSeconds });
  const parsed = parsePrometheusUrl(rawUrl, settings.url.name);
  if (!parsed.ok) return fail(parsed.message, parsed.shown);
  const url = parsed.url;
  const shown = displayUrl(url);
  const timeout = env.ZONESCOPE_PROMETHEUS_TIMEOUT_MS;
  const maxStale = env.ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS;

  const tokenFile = settings.tokenFile.raw?.trim() || null;
  if (tokenFile !== null) {
    const name = settings.tokenFile.name;
    try {
      // A runtime path, not a build asset: without the comment Turbopack traces the whole project into the build's file list.
      if (readFileSync(/* turbopackIgnore: true */ tokenFile, 'utf8').trim() === '') return fail(`${name} (${tokenFile}) is empty.`, shown);
    } catch (error) {
      return fail(`${name} (${tokenFile}) cannot be read: ${fsReason(error)}.`, shown);
    }
  }
  const caFile = settings.caFile.raw?.trim() || null;
  let ca: string | null = null;
  if (caFile !== null) {
    const name = settings.caFile.name;
    try {
      ca = readFileSync(/* turbopackIgnore: true */ caFile, 'utf8');
    } catch (error) {
      return fail(`${name} (${caFile}) cannot be read: ${fsReason(error)}.`, shown);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) return fail(`${name} (${caFile}) holds no PEM certificate.`, shown);
  }
  const selector = parseTrafficSelector(settings.selector.raw, settings.selector.name);
  if (!selector.ok) return fail(selector.message, shown);
  const basicAuth = url.username !== '' || url.password !== '' ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : null;
  return {
    kind: 'ok',
    config: {
      baseUrl: shown,
      basicAuth,
      tokenFile,
      ca,
      window: rawWindow,
      refreshSeconds,
      timeoutMs: timeout,
      maxStaleSeconds: maxStale,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxStreamedResponseBytes: options.maxStreamedResponseBytes ?? (options.maxResponseBytes === undefined ? DEFAULT_MAX_STREAMED_RESPONSE_BYTES : options.maxResponseBytes),
      selector: selector.matchers,
    },
  };
}

function fsReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return typeof code === 'string' ? code : 'unreadable';
}

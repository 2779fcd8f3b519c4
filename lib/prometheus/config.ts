/**
 * Configuration of the Prometheus traffic source, from the environment:
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
 * | `ZONESCOPE_HISTORY_SELECTOR` | none | label matchers added to every history query (validated by `parseHistorySelector` in history-queries.ts) |
 * | `ZONESCOPE_PROMETHEUS_SELECTOR` | none | label matchers added to every traffic query: the cluster's series on a shared Prometheus/Thanos (`cluster="prod"`) |
 *
 * Those are the default cluster's. Other clusters (kubeconfig contexts) get theirs from
 * `ZONESCOPE_PROMETHEUS_BY_CONTEXT` (lib/prometheus/prometheus-by-context.ts), which builds on
 * {@link metricsConfigFromSettings}; window, refresh, timeout and max-stale stay process-wide.
 *
 * A bad value is not a crash: {@link metricsConfigFromEnv} returns `{ kind: 'error' }` with one
 * sentence naming the variable; no credential (URL userinfo, token) is ever part of a message.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_MEASUREMENT_WINDOW } from '../topology/analyses/traffic-volume';
import { parseTrafficSelector } from './history-queries';

/** Default seconds between refreshes. */
export const DEFAULT_REFRESH_SECONDS = 60;
/** Default deadline of one query (ms). */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default seconds the last good measurement is still used while refreshes fail. */
export const DEFAULT_MAX_STALE_SECONDS = 600;
/** Largest Prometheus answer read (bytes). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

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

/** The process environment, or a test's. */
export type MetricsEnv = Readonly<Record<string, string | undefined>>;
type Env = MetricsEnv;

/** A PromQL duration: one or more `<int><unit>` with unit ms, s, m, h, d, w or y (`7d`, `1h30m`). */
export function isPromDuration(value: string): boolean {
  return /^(\d+(ms|s|m|h|d|w|y))+$/.test(value);
}

/** The URL as shown to users: scheme, host, port and path; no userinfo, query or fragment. */
export function displayUrl(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/** A best-effort display form of a raw URL value that failed to parse (userinfo cut off), or `null`. */
function displayOfRaw(raw: string): string | null {
  const noUserinfo = raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
  const cut = noUserinfo.split(/[?#]/)[0] ?? '';
  return cut === '' ? null : cut.slice(0, 200);
}

function numberVar(env: Env, name: string, fallback: number, min: number, integer: boolean): number | string {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    return `${name} must be ${integer ? 'a whole number' : 'a number'} of at least ${min}, not "${raw.slice(0, 40)}".`;
  }
  return value;
}

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
export function unconfiguredResult(env: Env = process.env): Extract<MetricsConfigResult, { kind: 'not-configured' }> {
  const { rawWindow, refreshSeconds } = processWide(env);
  return { kind: 'not-configured', window: rawWindow, refreshSeconds };
}

function processWide(env: Env): { readonly rawWindow: string; readonly refresh: number | string; readonly refreshSeconds: number } {
  const rawWindow = env.ZONESCOPE_PROMETHEUS_WINDOW?.trim() || DEFAULT_MEASUREMENT_WINDOW;
  const refresh = numberVar(env, 'ZONESCOPE_PROMETHEUS_REFRESH_SECONDS', DEFAULT_REFRESH_SECONDS, 0.1, false);
  return { rawWindow, refresh, refreshSeconds: typeof refresh === 'number' ? refresh : DEFAULT_REFRESH_SECONDS };
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
export function metricsConfigFromEnv(env: Env = process.env, options: { readonly maxResponseBytes?: number } = {}): MetricsConfigResult {
  return metricsConfigFromSettings(env, defaultMetricsSettings(env), options);
}

/**
 * {@link metricsConfigFromEnv} with the per-cluster settings (URL, token file, CA file, selector)
 * taken from `settings`, each message naming the setting as `settings` calls it; the process-wide
 * ones (window, refresh, timeout, max-stale) from `env`.
 */
export function metricsConfigFromSettings(env: Env, settings: MetricsConfigSettings, options: { readonly maxResponseBytes?: number } = {}): MetricsConfigResult {
  const { rawWindow, refresh, refreshSeconds } = processWide(env);
  const rawUrl = settings.url.raw?.trim() ?? '';
  if (rawUrl === '') return { kind: 'not-configured', window: rawWindow, refreshSeconds };

  const fail = (message: string, url: string | null): MetricsConfigResult => ({ kind: 'error', message, url, window: rawWindow, refreshSeconds });
  const parsed = parsePrometheusUrl(rawUrl, settings.url.name);
  if (!parsed.ok) return fail(parsed.message, parsed.shown);
  const url = parsed.url;
  const shown = displayUrl(url);
  if (!isPromDuration(rawWindow)) return fail(`ZONESCOPE_PROMETHEUS_WINDOW must be a PromQL duration such as 7d, 24h or 30m, not "${rawWindow.slice(0, 40)}".`, shown);
  if (typeof refresh === 'string') return fail(refresh, shown);
  const timeout = numberVar(env, 'ZONESCOPE_PROMETHEUS_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, 1, true);
  if (typeof timeout === 'string') return fail(timeout, shown);
  const maxStale = numberVar(env, 'ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS', DEFAULT_MAX_STALE_SECONDS, 0, false);
  if (typeof maxStale === 'string') return fail(maxStale, shown);

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
      selector: selector.matchers,
    },
  };
}

/**
 * A Prometheus URL setting parsed: http or https only. The failure's message names `name` and
 * never quotes the value (it may carry credentials); `shown` is its display form without userinfo.
 */
export function parsePrometheusUrl(rawUrl: string, name: string): { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly message: string; readonly shown: string | null } {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, message: `${name} is not a valid URL (expected e.g. http://prometheus:9090).`, shown: displayOfRaw(rawUrl) };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `${name} must start with http:// or https://, not ${url.protocol}//.`, shown: displayUrl(url) };
  }
  return { ok: true, url };
}

function fsReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return typeof code === 'string' ? code : 'unreadable';
}

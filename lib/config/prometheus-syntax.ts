/**
 * The syntaxes of the Prometheus settings, shared by the configuration schema and the Prometheus
 * code (lib/prometheus): label matchers (`ZONESCOPE_HISTORY_SELECTOR`, `ZONESCOPE_PROMETHEUS_SELECTOR`
 * and a context's `selector`), the Prometheus URL, the PromQL duration of the window, and the JSON
 * of `ZONESCOPE_PROMETHEUS_BY_CONTEXT`. Pure. No message quotes a URL's userinfo or the text of
 * the JSON variable (a URL in it may carry credentials).
 */
import { LABEL_NAME } from './syntax';

/** A PromQL string literal's content: backslash, double quote and line breaks escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** The validated `ZONESCOPE_HISTORY_SELECTOR`: matchers joined by commas (`''` when unset), or why it is refused. */
export type HistorySelectorResult = { readonly ok: true; readonly matchers: string } | { readonly ok: false; readonly message: string };

/** Labels the history queries set themselves: a selector may not override them. */
const RESERVED = new Set(['__name__', 'namespace', 'service']);
const MAX_SELECTOR_LENGTH = 1000;

/**
 * Validates `ZONESCOPE_HISTORY_SELECTOR`: comma-separated `name="value"`, `name=~"value"` or
 * `name!="value"` matchers (label names as Prometheus spells them, values double-quoted with `\"`
 * and `\\` escapes), nothing else. The message names the first thing that is wrong.
 */
export function parseHistorySelector(raw: string | undefined): HistorySelectorResult {
  return parseLabelMatchers(raw, 'ZONESCOPE_HISTORY_SELECTOR', RESERVED, 'job="zonescope",cluster="prod"');
}

/** Labels the traffic queries group by or filter on themselves: a cluster's selector may not name them. */
const TRAFFIC_RESERVED = new Set(['__name__', 'namespace', 'pod', 'container', 'src_zone', 'dst_zone', 'direction', 'k8s_src_owner_type', 'k8s_dst_owner_type']);

/**
 * Validates a cluster's traffic selector (`ZONESCOPE_PROMETHEUS_SELECTOR`, or a context's
 * `selector`): label matchers that pick the cluster's series on a Prometheus or Thanos several
 * clusters share (`cluster="prod"`, `k8s_cluster_name="prod"`), added to every traffic query.
 */
export function parseTrafficSelector(raw: string | undefined, variable: string): HistorySelectorResult {
  return parseLabelMatchers(raw, variable, TRAFFIC_RESERVED, 'cluster="prod"');
}

/** Comma-separated `name="value"`, `name=~"value"` or `name!="value"` matchers; the message names `variable` and the first thing that is wrong. */
function parseLabelMatchers(raw: string | undefined, variable: string, reserved: ReadonlySet<string>, example: string): HistorySelectorResult {
  const text = (raw ?? '').trim();
  if (text === '') return { ok: true, matchers: '' };
  const bad = (why: string): HistorySelectorResult => ({ ok: false, message: `${variable} is not valid: ${why} (expected label matchers such as ${example}; each name="value", name=~"regex" or name!="value", separated by commas).` });
  if (text.length > MAX_SELECTOR_LENGTH) return bad(`it is longer than ${MAX_SELECTOR_LENGTH} characters`);
  if (text.startsWith('{') || text.endsWith('}')) return bad('leave out the braces');
  const matchers: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (text[i] === ' ') i++;
    const nameMatch = /^[^=!~,"\s]*/.exec(text.slice(i));
    const name = nameMatch?.[0] ?? '';
    if (name === '') return bad(`matcher ${matchers.length + 1} has no label name`);
    if (!LABEL_NAME.test(name)) return bad(`"${name.slice(0, 40)}" is not a label name`);
    if (reserved.has(name)) return bad(`the label ${name} is set by zonescope itself`);
    i += name.length;
    while (text[i] === ' ') i++;
    const op = text.startsWith('=~', i) ? '=~' : text.startsWith('!=', i) ? '!=' : text[i] === '=' ? '=' : null;
    if (op === null) {
      if (text.startsWith('!~', i)) return bad(`${name} uses !~, which is not allowed (use =, =~ or !=)`);
      return bad(`${name} is not followed by =, =~ or !=`);
    }
    i += op.length;
    while (text[i] === ' ') i++;
    if (text[i] !== '"') return bad(`the value of ${name} must be in double quotes`);
    let j = i + 1;
    let value = '';
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[j + 1];
        if (next !== '"' && next !== '\\') return bad(`the value of ${name} has an escape other than \\" or \\\\`);
        value += next;
        j++;
      } else {
        value += text[j];
      }
    }
    if (j >= text.length) return bad(`the value of ${name} has no closing quote`);
    if (op === '=~') {
      try {
        new RegExp(`^(?:${value})$`);
      } catch {
        return bad(`the regular expression of ${name} does not compile`);
      }
    }
    matchers.push(`${name}${op}"${escapeLabelValue(value)}"`);
    i = j + 1;
    while (text[i] === ' ') i++;
    if (i >= text.length) break;
    if (text[i] !== ',') return bad(`expected a comma after the value of ${name}`);
    i++;
    while (text[i] === ' ') i++;
    if (i >= text.length) return bad('it ends with a comma');
  }
  return { ok: true, matchers: matchers.join(',') };
}

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

// ---------------------------------------------------------------------------------------------
// ZONESCOPE_PROMETHEUS_BY_CONTEXT: a JSON object giving a kubeconfig context its Prometheus

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

/**
 * The variable as the configuration keeps it: every entry's settings, or every problem found —
 * not JSON, no object, an entry of the wrong shape, an entry's `url` that is no http(s) URL, an
 * entry's `selector` that is no list of label matchers. (Whether an entry without `url` may share
 * `ZONESCOPE_PROMETHEUS_URL` is the cluster's question: lib/prometheus/prometheus-by-context.ts.)
 */
export function readPrometheusByContext(raw: string | undefined): { readonly ok: true; readonly entries: ReadonlyMap<string, PrometheusContextSettings> } | { readonly ok: false; readonly messages: readonly string[] } {
  const parsed = parsePrometheusByContext(raw);
  if (!parsed.ok) return { ok: false, messages: [parsed.message] };
  const entries = new Map<string, PrometheusContextSettings>();
  const messages: string[] = [];
  for (const [context, entry] of parsed.byContext) {
    if (!entry.ok) {
      messages.push(entry.message);
      continue;
    }
    const name = contextVariable(context);
    const url = entry.settings.url?.trim() ?? '';
    if (url !== '') {
      const checked = parsePrometheusUrl(url, `${name}.url`);
      if (!checked.ok) messages.push(checked.message);
    }
    const selector = parseTrafficSelector(entry.settings.selector, `${name}.selector`);
    if (!selector.ok) messages.push(selector.message);
    entries.set(context, entry.settings);
  }
  return messages.length > 0 ? { ok: false, messages } : { ok: true, entries };
}

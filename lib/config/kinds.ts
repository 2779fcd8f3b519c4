/**
 * The kinds of value a setting holds — flag, number, text, path, list, URL, label matchers,
 * price, JSON — each with how it reads the variable's text, what it accepts (for the messages and
 * docs/configuration.md) and the type the configuration holds. Every kind reads a blank value as
 * unset; a value it cannot read gives one sentence naming the variable, what it accepts and (unless
 * it may carry credentials) what it got. Pure.
 */
import type { PriceSetting } from '../topology/model/cloud-pricing';
import { parsePriceSetting } from '../topology/model/cloud-pricing';
import type { PrometheusContextSettings } from './prometheus-syntax';
import { isPromDuration, parseHistorySelector, parsePrometheusUrl, parseTrafficSelector, readPrometheusByContext } from './prometheus-syntax';
import { FALSE_WORDS, isBindAddress, LABEL_NAME, listEntries, normaliseOrigin, parseFlag, parseHostPort, pathEntries, printable, TRUE_WORDS } from './syntax';

/** A value read, or why it cannot be. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** One kind of value (see the module comment). */
export interface Kind<T> {
  /** The type's name in docs/configuration.md (`boolean`, `number`, `path`, …). */
  readonly type: string;
  /** What a value may be, as a phrase that completes "must be …" (`a whole number of at least 1`). */
  readonly accepts: string;
  /** Reads the value (`undefined`: unset or blank); `name` is the variable, for the message. */
  readonly read: (text: string | undefined, name: string) => Parsed<T>;
}

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const refuse = <T>(message: string): Parsed<T> => ({ ok: false, message });

/** `NAME must be <accepts>, not "<text>".` */
function mustBe<T>(name: string, accepts: string, text: string): Parsed<T> {
  return refuse(`${name} must be ${accepts}, not "${printable(text.trim(), 40)}".`);
}

const FLAG_ACCEPTS = `on (${TRUE_WORDS.join(', ')}) or off (${FALSE_WORDS.join(', ')}), in any case`;

/** On or off: `1/0`, `true/false`, `yes/no`, `on/off` in any case; unset is `fallback`. */
export function flag(fallback: boolean): Kind<boolean> {
  return {
    type: 'boolean',
    accepts: FLAG_ACCEPTS,
    read: (text, name) => {
      if (text === undefined) return ok(fallback);
      const value = parseFlag(text);
      return value === null ? mustBe(name, FLAG_ACCEPTS, text) : ok(value);
    },
  };
}

/** {@link flag} without a default: unset stays `undefined` (the reader's own default applies). */
export function optionalFlag(): Kind<boolean | undefined> {
  return {
    type: 'boolean',
    accepts: FLAG_ACCEPTS,
    read: (text, name) => {
      if (text === undefined) return ok(undefined);
      const value = parseFlag(text);
      return value === null ? mustBe(name, FLAG_ACCEPTS, text) : ok(value);
    },
  };
}

/** The range of a number setting. */
export interface NumberRange {
  /** Whole numbers only. */
  readonly integer?: boolean;
  /** Smallest value allowed. */
  readonly min?: number;
  /** Values must be greater than this (e.g. 0 for a timeout). */
  readonly above?: number;
  /** Largest value allowed. */
  readonly max?: number;
}

function numberAccepts(range: NumberRange): string {
  const what = range.integer ? 'a whole number' : 'a number';
  if (range.min !== undefined && range.max !== undefined) return `${what} from ${range.min} to ${range.max}`;
  if (range.above !== undefined) return `${what} greater than ${range.above}`;
  if (range.min !== undefined) return `${what} of at least ${range.min}`;
  if (range.max !== undefined) return `${what} of at most ${range.max}`;
  return what;
}

function readNumber(text: string, name: string, range: NumberRange): Parsed<number> {
  const value = Number(text.trim());
  const fits =
    Number.isFinite(value) &&
    (!range.integer || Number.isInteger(value)) &&
    (range.min === undefined || value >= range.min) &&
    (range.above === undefined || value > range.above) &&
    (range.max === undefined || value <= range.max);
  return fits ? ok(value) : mustBe(name, numberAccepts(range), text);
}

/** A number in `range`; unset is `fallback`. */
export function number(range: NumberRange, fallback: number): Kind<number> {
  return {
    type: range.integer ? 'whole number' : 'number',
    accepts: numberAccepts(range),
    read: (text, name) => (text === undefined ? ok(fallback) : readNumber(text, name, range)),
  };
}

/** {@link number} without a default: unset stays `undefined`. */
export function optionalNumber(range: NumberRange): Kind<number | undefined> {
  return {
    type: range.integer ? 'whole number' : 'number',
    accepts: numberAccepts(range),
    read: (text, name) => (text === undefined ? ok(undefined) : readNumber(text, name, range)),
  };
}

const PORT_ACCEPTS = 'a port number (1–65535)';

/** A TCP port, `1`–`65535`, digits only; unset stays `undefined`. */
export function port(): Kind<number | undefined> {
  return {
    type: 'port',
    accepts: PORT_ACCEPTS,
    read: (text, name) => {
      if (text === undefined) return ok(undefined);
      const trimmed = text.trim();
      return /^\d{1,5}$/.test(trimmed) && Number(trimmed) >= 1 && Number(trimmed) <= 65535 ? ok(Number(trimmed)) : mustBe(name, PORT_ACCEPTS, text);
    },
  };
}

/** Free text, trimmed; unset stays `undefined`. */
export function text(): Kind<string | undefined> {
  return { type: 'text', accepts: 'any text', read: (value) => ok(value?.trim()) };
}

/** A value handed on as the process has it (not trimmed), as other tools read it; unset or blank stays `undefined`. */
export function passThrough(): Kind<string | undefined> {
  return { type: 'text', accepts: 'any text', read: (value) => ok(value) };
}

/** A file or folder path (or, with `list`, paths separated by the platform's delimiter), trimmed; unset stays `undefined`. */
export function path(options: { readonly list?: boolean } = {}): Kind<string | undefined> {
  const accepts = options.list ? 'a path, or paths separated by the path delimiter (: on Linux and macOS, ; on Windows)' : 'a path';
  return {
    type: options.list ? 'paths' : 'path',
    accepts,
    read: (value, name) => {
      if (value === undefined) return ok(undefined);
      // eslint-disable-next-line no-control-regex
      return /[\u0000-\u001f]/.test(value) ? refuse(`${name} must be ${accepts}, without control characters.`) : ok(value.trim());
    },
  };
}

/** Paths separated by commas or the platform's path delimiter (`ZONESCOPE_SNAPSHOT`); unset is `[]`. */
export function pathList(delimiter: string): Kind<readonly string[]> {
  const accepts = 'a path, or paths separated by commas or the path delimiter (: on Linux and macOS, ; on Windows)';
  return {
    type: 'paths',
    accepts,
    read: (value, name) => {
      if (value === undefined) return ok([]);
      // eslint-disable-next-line no-control-regex
      return /[\u0000-\u001f]/.test(value) ? refuse(`${name} must be ${accepts}, without control characters.`) : ok(pathEntries(value, delimiter));
    },
  };
}

/**
 * A comma-separated list, entries trimmed and blanks dropped; unset is `[]`. `entry` checks one
 * entry (`accepts` says what an entry may be).
 */
export function list(accepts: string, entry: (value: string) => boolean = () => true): Kind<readonly string[]> {
  return {
    type: 'list',
    accepts: `a comma-separated list of ${accepts}`,
    read: (value, name) => {
      if (value === undefined) return ok([]);
      const entries = listEntries(value);
      const bad = entries.filter((item) => !entry(item));
      if (bad.length === 0) return ok(entries);
      const shown = bad
        .slice(0, 3)
        .map((item) => `"${printable(item, 60)}"`)
        .join(', ');
      return refuse(`${name} must be a comma-separated list of ${accepts}; ${shown}${bad.length > 3 ? ` and ${bad.length - 3} more` : ''} ${bad.length === 1 ? 'is' : 'are'} not.`);
    },
  };
}

/** Kubeconfig context names, comma-separated, in order without repeats; `*` alone or unset is `null` (every context). */
export function contextList(): Kind<readonly string[] | null> {
  return {
    type: 'list',
    accepts: 'a comma-separated list of kubeconfig context names, or * for every context',
    read: (value) => {
      const names = [...new Set(listEntries(value ?? ''))];
      return ok(names.length === 0 || (names.length === 1 && names[0] === '*') ? null : names);
    },
  };
}

/** `name` or `name:port` (a Host allow-list entry). */
export const hostEntry = (value: string): boolean => parseHostPort(value) !== null;
/** An http(s) origin: `scheme://host[:port]`, no path, user, query or fragment. */
export const originEntry = (value: string): boolean => normaliseOrigin(value) !== null;

const BIND_ACCEPTS = 'a host name or an IP address (0.0.0.0 or :: for every interface)';

/** An address to bind: a host name, IPv4 or IPv6 address; unset stays `undefined`. */
export function bindAddress(): Kind<string | undefined> {
  return {
    type: 'host',
    accepts: BIND_ACCEPTS,
    read: (value, name) => {
      if (value === undefined) return ok(undefined);
      return isBindAddress(value) ? ok(value.trim()) : mustBe(name, BIND_ACCEPTS, value);
    },
  };
}

/** An http(s) URL; unset stays `undefined`. The message never quotes it (it may carry credentials). */
export function url(): Kind<string | undefined> {
  return {
    type: 'URL',
    accepts: 'an http:// or https:// URL',
    read: (value, name) => {
      if (value === undefined) return ok(undefined);
      const parsed = parsePrometheusUrl(value.trim(), name);
      return parsed.ok ? ok(value.trim()) : refuse(parsed.message);
    },
  };
}

const DURATION_ACCEPTS = 'a PromQL duration such as 7d, 24h or 30m';

/** A PromQL duration (`7d`, `1h30m`); unset is `fallback`. */
export function duration(fallback: string): Kind<string> {
  return {
    type: 'duration',
    accepts: DURATION_ACCEPTS,
    read: (value, name) => {
      if (value === undefined) return ok(fallback);
      return isPromDuration(value.trim()) ? ok(value.trim()) : mustBe(name, DURATION_ACCEPTS, value);
    },
  };
}

/** Label matchers (`cluster="prod"`) for the history or the traffic queries; unset stays `undefined`. */
export function matchers(queries: 'history' | 'traffic'): Kind<string | undefined> {
  return {
    type: 'label matchers',
    accepts: 'comma-separated label matchers: name="value", name=~"regex" or name!="value"',
    read: (value, name) => {
      if (value === undefined) return ok(undefined);
      const parsed = queries === 'history' ? parseHistorySelector(value) : parseTrafficSelector(value, name);
      // parseHistorySelector names its variable itself.
      return parsed.ok ? ok(value.trim()) : refuse(parsed.message);
    },
  };
}

const LABEL_ACCEPTS = 'a Prometheus label name (letters, digits and _, not starting with a digit or __)';

/** A Prometheus label name; unset is `fallback`. */
export function labelName(fallback: string): Kind<string> {
  return {
    type: 'label name',
    accepts: LABEL_ACCEPTS,
    read: (value, name) => {
      if (value === undefined) return ok(fallback);
      const trimmed = value.trim();
      return LABEL_NAME.test(trimmed) && !trimmed.startsWith('__') ? ok(trimmed) : mustBe(name, LABEL_ACCEPTS, value);
    },
  };
}

/** A cross-zone price (`aws`, `gcp`, `azure`, `<USD>/<GB|GiB> x<0-2>`); unset is `null` (the cluster's own cloud). */
export function price(): Kind<PriceSetting | null> {
  return {
    type: 'price',
    accepts: 'aws, gcp, azure, or a price such as 0.01/GB x2 (USD per GB or GiB, charged 0, 1 or 2 times)',
    read: (value, name) => {
      if (value === undefined) return ok(null);
      const parsed = parsePriceSetting(value.trim());
      return parsed.ok ? ok(parsed.setting) : refuse(`${name} ${parsed.message}.`);
    },
  };
}

/** `ZONESCOPE_PROMETHEUS_BY_CONTEXT`: a JSON object of context → Prometheus; unset is an empty map. */
export function prometheusByContext(): Kind<ReadonlyMap<string, PrometheusContextSettings>> {
  return {
    type: 'JSON',
    accepts: 'a JSON object mapping kubeconfig contexts to {"url", "selector", "tokenFile", "caFile"}',
    read: (value) => {
      const parsed = readPrometheusByContext(value);
      return parsed.ok ? ok(parsed.entries) : refuse(parsed.messages.join(' '));
    },
  };
}

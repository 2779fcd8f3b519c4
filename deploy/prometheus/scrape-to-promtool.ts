/**
 * Turns scrapes of zonescope's `/metrics` (Prometheus text format 0.0.4) into `input_series` of a
 * `promtool test rules` file, so that the alert rules are tested on series exactly as the exporter
 * writes them rather than on hand-written ones. Pure: text in, data out.
 *
 * - {@link parseExposition} reads the text format, drops comments, `# HELP`/`# TYPE` lines and
 *   prom-client's `process_*`/`nodejs_*` series;
 * - {@link scrapesToInputSeries} turns a sequence of scrapes taken every `interval` (a `null`
 *   scrape: the target did not answer) into one `{ series, values }` per series, values in
 *   promtool's expanding notation (`1x20 0x40`, `_x5` for scrapes without the series), with the
 *   staleness marker Prometheus writes when a series disappears (`stale`), so that a series whose
 *   label changed (a new `reason`) does not linger beside its successor for the 5-minute lookback.
 */

/** The staleness marker in a value sequence (promtool's `stale`). */
export const STALE = 'stale' as const;

/** One value of a sequence: a sample, a staleness marker, or nothing (`null`). */
export type SeriesValue = number | typeof STALE | null;

/** One sample of a scrape. */
export interface ScrapedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One entry of a promtool test's `input_series`. */
export interface PromtoolInputSeries {
  readonly series: string;
  readonly values: string;
}

/** Metric-name prefixes of prom-client's default metrics, which no rule reads. */
export const DROPPED_PREFIXES: readonly string[] = ['process_', 'nodejs_'];

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** A line of the text format that cannot be read, with its 1-based number. */
export class ExpositionParseError extends Error {
  constructor(lineNumber: number, line: string, why: string) {
    super(`line ${lineNumber}: ${why}: ${line.length > 120 ? `${line.slice(0, 120)}…` : line}`);
    this.name = 'ExpositionParseError';
  }
}

/** A sample value as Prometheus reads it (Go's ParseFloat: `NaN`, `Nan`, `+Inf`, `-inf` in any case). */
function parseValue(text: string): number | null {
  switch (text.toLowerCase()) {
    case 'nan':
      return Number.NaN;
    case '+inf':
    case 'inf':
    case '+infinity':
    case 'infinity':
      return Number.POSITIVE_INFINITY;
    case '-inf':
    case '-infinity':
      return Number.NEGATIVE_INFINITY;
    default: {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return null;
      return Number(text);
    }
  }
}

/** Reads the `{…}` label set starting at `line[start] === '{'`; returns the labels and the index after `}`. */
function parseLabels(line: string, start: number, fail: (why: string) => never): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  const skipSpaces = () => {
    while (line[i] === ' ' || line[i] === '\t') i++;
  };
  for (;;) {
    skipSpaces();
    if (line[i] === '}') return { labels, end: i + 1 };
    const name = LABEL_NAME.exec(line.slice(i))?.[0];
    if (name === undefined) fail('expected a label name');
    i += name.length;
    skipSpaces();
    if (line[i] !== '=') fail(`expected = after label ${name}`);
    i++;
    skipSpaces();
    if (line[i] !== '"') fail(`expected a quoted value for label ${name}`);
    i++;
    let value = '';
    for (;;) {
      const c = line[i];
      if (c === undefined) fail(`unterminated value of label ${name}`);
      if (c === '"') break;
      if (c === '\\') {
        const next = line[i + 1];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else fail(`bad escape \\${next ?? ''} in label ${name}`);
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    i++;
    if (Object.hasOwn(labels, name)) fail(`label ${name} given twice`);
    labels[name] = value;
    skipSpaces();
    if (line[i] === ',') {
      i++;
      continue;
    }
    if (line[i] !== '}') fail('expected , or } after a label');
  }
}

/**
 * Parses one scrape in the Prometheus text format. Comments and `process_`/`nodejs_` series are
 * dropped; a line that is not a sample throws {@link ExpositionParseError} naming it.
 */
export function parseExposition(text: string): ScrapedSample[] {
  const samples: ScrapedSample[] = [];
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = (lines[n] ?? '').replace(/\r$/, '');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const fail = (why: string): never => {
      throw new ExpositionParseError(n + 1, line, why);
    };
    const name = METRIC_NAME.exec(trimmed)?.[0];
    if (name === undefined) fail('expected a metric name');
    let rest = trimmed.slice((name ?? '').length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      const parsed = parseLabels(rest, 0, fail);
      labels = parsed.labels;
      rest = rest.slice(parsed.end);
    }
    const fields = rest.trim().split(/[ \t]+/);
    if (fields.length < 1 || fields.length > 2 || fields[0] === '') fail('expected a value (and an optional timestamp)');
    const value = parseValue(fields[0] ?? '');
    if (value === null) fail(`not a number: ${fields[0] ?? ''}`);
    if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) fail(`not a timestamp: ${fields[1]}`);
    if (DROPPED_PREFIXES.some((prefix) => (name ?? '').startsWith(prefix))) continue;
    samples.push({ name: name ?? '', labels, value: value ?? Number.NaN });
  }
  return samples;
}

/** A label value as a PromQL double-quoted string's content (promtool's series notation). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** `name{a="1",b="2"}` with the labels sorted by name (the same series always reads the same). */
export function seriesNotation(name: string, labels: Readonly<Record<string, string>>): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((key) => `${key}="${escapeLabelValue(labels[key] ?? '')}"`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return 'Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/**
 * One value per scrape (`null`: no sample) in promtool's expanding notation: a run of k equal
 * values is `vx(k-1)` (promtool expands `axn` to n+1 values), a run of k missing ones `_xk`, a
 * staleness marker `stale`.
 */
export function compressValues(values: readonly SeriesValue[]): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length; ) {
    const current = values[i] ?? null;
    if (current === STALE) {
      parts.push(STALE);
      i++;
      continue;
    }
    let j = i + 1;
    const same = (other: SeriesValue): boolean =>
      current === null || other === null || other === STALE ? current === other : other === current || (Number.isNaN(other) && Number.isNaN(current));
    while (j < values.length && same(values[j] ?? null)) j++;
    const run = j - i;
    if (current === null) parts.push(run === 1 ? '_' : `_x${run}`);
    else parts.push(run === 1 ? formatValue(current) : `${formatValue(current)}x${run - 1}`);
    i = j;
  }
  return parts.join(' ');
}

/** Options of {@link scrapesToInputSeries}. */
export interface ScrapesToInputSeriesOptions {
  /**
   * Labels Prometheus attaches to every series of the target (`job`, `instance`); a label the
   * exporter already sets keeps the exporter's value, as with `honor_labels: true`.
   */
  readonly targetLabels?: Readonly<Record<string, string>>;
}

/**
 * One `input_series` entry per series seen in any scrape, sorted by series; scrape k is the value
 * at k × interval. Where a series that was there is missing — the scrape lacks it, or the target
 * did not answer (`null`) — Prometheus writes a staleness marker (`stale`), and nothing after it
 * (`_`) until the series comes back. Two samples of one series in one scrape are an error.
 */
export function scrapesToInputSeries(scrapes: readonly (string | null)[], options: ScrapesToInputSeriesOptions = {}): PromtoolInputSeries[] {
  const byKey = new Map<string, SeriesValue[]>();
  scrapes.forEach((scrape, index) => {
    if (scrape === null) return;
    const seen = new Set<string>();
    for (const sample of parseExposition(scrape)) {
      const key = seriesNotation(sample.name, { ...options.targetLabels, ...sample.labels });
      if (seen.has(key)) throw new Error(`scrape ${index}: series ${key} appears twice`);
      seen.add(key);
      let values = byKey.get(key);
      if (values === undefined) {
        values = new Array<SeriesValue>(scrapes.length).fill(null);
        byKey.set(key, values);
      }
      values[index] = sample.value;
    }
  });
  for (const values of byKey.values()) {
    for (let k = 1; k < values.length; k++) if (values[k] === null && typeof values[k - 1] === 'number') values[k] = STALE;
  }
  return [...byKey.keys()].sort().map((series) => ({ series, values: compressValues(byKey.get(series) ?? []) }));
}

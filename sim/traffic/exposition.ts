/**
 * The text exposition format (0.0.4) as the simulated exporters write it: a series' identity is
 * its text before the value (`metric{name="value",…}`, labels in the order given, values
 * escaped), read back by {@link parseSeriesId}; the parts the model adds to a series are summed by
 * that id; HELP text and counter values are written as Prometheus parses them.
 */

/** A series' labels in export order. */
export type SeriesLabels = readonly (readonly [string, string])[];

/** What one Service adds to a series (parts with the same id are summed). */
export interface SeriesPart {
  /** Metric and label text (`metric{name="value",…}`): the series' identity and exposition text; {@link parseSeriesId} reads it back. */
  readonly id: string;
  readonly metric: string;
  readonly bytesPerSecond: number;
  /**
   * The id of the series whose total this one repeats (a hostNetwork pod's sandbox reports its
   * node's interface); its own `bytesPerSecond` is then 0.
   */
  readonly mirrors?: string;
}

const NEEDS_ESCAPE = /[\\"\n]/;

/** Escapes a label value as the text exposition format requires (`\\`, `\"`, `\n`). */
export function escapeLabelValue(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n')) : value;
}

/** `metric{name="value",…}`: the series' identity and its exposition text before the value. */
export function seriesId(metric: string, labels: SeriesLabels): string {
  let text = `${metric}{`;
  for (let i = 0; i < labels.length; i++) {
    const [name, value] = labels[i] ?? ['', ''];
    text += `${i > 0 ? ',' : ''}${name}="${escapeLabelValue(value)}"`;
  }
  return `${text}}`;
}

/**
 * The metric and labels of a {@link seriesId} (labels are not kept beside the ids: at a large
 * cluster's hundreds of thousands of series they would cost more than the ids).
 * @throws Error when `id` is not one.
 */
export function parseSeriesId(id: string): { readonly metric: string; readonly labels: Record<string, string> } {
  const open = id.indexOf('{');
  if (open < 0 || !id.endsWith('}')) throw new Error(`not a series id: ${id}`);
  const labels: Record<string, string> = {};
  let pos = open + 1;
  while (pos < id.length - 1) {
    const eq = id.indexOf('="', pos);
    if (eq < 0) throw new Error(`not a series id: ${id}`);
    const name = id.slice(pos, eq);
    let end = eq + 2;
    while (end < id.length && id[end] !== '"') end += id[end] === '\\' ? 2 : 1;
    if (end >= id.length) throw new Error(`not a series id: ${id}`);
    const raw = id.slice(eq + 2, end);
    const value = raw.includes('\\') ? raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)) : raw;
    pos = end;
    labels[name] = value;
    pos += id[pos + 1] === ',' ? 2 : 1;
  }
  return { metric: id.slice(0, open), labels };
}

/** Sums parts by series id. */
export class PartSums {
  private readonly parts = new Map<string, { metric: string; bytesPerSecond: number; mirrors?: string }>();

  add(metric: string, id: string, bytesPerSecond: number, mirrors?: string): string {
    const known = this.parts.get(id);
    if (known) known.bytesPerSecond += bytesPerSecond;
    else this.parts.set(id, { metric, bytesPerSecond, ...(mirrors !== undefined ? { mirrors } : {}) });
    return id;
  }

  list(): SeriesPart[] {
    return [...this.parts].map(([id, part]) => ({ id, ...part }));
  }
}

/** A counter value as the exposition writes it (a float; Prometheus parses Go's and JavaScript's forms alike). */
export function formatValue(value: number): string {
  return Number.isFinite(value) ? String(value) : '0';
}

/** Escapes HELP text (`\\`, `\n`). */
export function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));
}

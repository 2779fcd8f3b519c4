/**
 * Pure helpers of the History panels (Service page and Overview): the range in the URL, UTC times
 * and relative times, time-axis ticks, the Changes table's order, the empty-state sentence and the
 * rows a chart draws. No clock here: `now` is always passed in, so the server and tests render the
 * same text.
 */
import { HISTORY_RANGES } from '@/lib/shared/history-types';
import type { HistoryInterval, HistoryMark, HistoryRange, HistorySeries, HistoryTransition } from '@/lib/shared/history-types';
import { formatRelativeDay, formatRelativeTime } from '@/lib/shared/relative-time';
import type { Tone } from '../ui/status';

/** The query parameter that keeps the chosen range (`?history=7d`). */
export const HISTORY_PARAM = 'history';

/** `?history=` → a range; anything else (missing, `30d`, `7D`) → `null`: none chosen, the history API opens on the range its data covers. */
export function parseHistoryRange(value: string | null | undefined): HistoryRange | null {
  return (HISTORY_RANGES as readonly string[]).includes(value ?? '') ? (value as HistoryRange) : null;
}

/**
 * The page's URL with the range chosen (`?history=7d`), every other parameter and the `#fragment`
 * kept. Every choice is kept, 24 h too: the plain URL means "the range the data covers".
 */
export function historyHref(current: string, range: HistoryRange): string {
  const url = new URL(current, 'http://zonescope.invalid');
  url.searchParams.set(HISTORY_PARAM, range);
  const search = url.searchParams.toString();
  return `${url.pathname}${search ? `?${search}` : ''}${url.hash}`;
}

/** How a range reads in a sentence: `1 h`, `6 h`, `24 h`, `7 days`. */
export function rangeText(range: HistoryRange): string {
  return range === '7d' ? '7 days' : `${range.slice(0, -1)} h`;
}

/** The history API's URL for a Service (`null` = the cluster); without a range (`null`) the API picks the one its data covers. */
export function historyUrl(service: { readonly namespace: string; readonly name: string } | null, range: HistoryRange | null): string {
  const q = range === null ? '' : `?range=${range}`;
  if (service === null) return `/api/v1/cluster/history${q}`;
  return `/api/v1/services/${encodeURIComponent(service.namespace)}/${encodeURIComponent(service.name)}/history${q}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** Unix seconds → ISO 8601 (`2026-12-01T14:02:00.000Z`), for `<time dateTime>`. */
export function isoOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/** Unix seconds → `2026-12-01 14:02 UTC` (seconds shown only when not :00). */
export function formatUtc(seconds: number): string {
  const d = new Date(seconds * 1000);
  const s = d.getUTCSeconds();
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${s !== 0 ? `:${pad(s)}` : ''} UTC`;
}

/** `14:02` in UTC. */
export function clockUtc(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

function utcDay(seconds: number): number {
  return Math.floor(seconds / 86_400);
}

/**
 * How long ago, in words an SRE scans quickly: `just now` (under a minute either way),
 * `12m ago`, `3h ago` (under 6 h), then `today 08:15`, `yesterday 14:02` (UTC days), then
 * `3d ago`; `in 2m` / `in 3h` for a clock ahead. `at` and `now` in seconds.
 */
export function relativeWhen(at: number, now: number): string {
  const offset = -Math.round(now - at);
  if (Math.abs(offset) < 60) return 'just now';
  if (offset > 0 || offset > -6 * 3600) return formatRelativeTime(offset, { largestUnit: 'hour' });
  const days = utcDay(now) - utcDay(at);
  return days <= 1 ? `${formatRelativeDay(-days)} ${clockUtc(at)}` : formatRelativeDay(-days);
}

/** A transition's precision in words: `changed up to 15 s earlier`, or `null` when exact. */
export function precisionText(seconds: number): string | null {
  if (!Number.isFinite(seconds) || seconds <= 0) return null;
  const s = Math.round(seconds);
  const text = s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  return `changed up to ${text} earlier`;
}

/** A time-axis tick: `14:00` for 1 h/6 h, `1 Dec 14:00` for 24 h, `Tue 1 Dec` for 7 days (all UTC). */
export function formatTick(seconds: number, range: HistoryRange): string {
  const d = new Date(seconds * 1000);
  const date = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()] ?? ''}`;
  // Seconds only on the closer ticks of a window shorter than the range (see timeTicks).
  const clock = d.getUTCSeconds() !== 0 ? `${clockUtc(seconds)}:${pad(d.getUTCSeconds())}` : clockUtc(seconds);
  if (range === '1h' || range === '6h') return clock;
  if (range === '24h') return `${date} ${clock}`;
  return d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 ? date : `${date} ${clock}`;
}

const TICK_STEP: Record<HistoryRange, number> = { '1h': 600, '6h': 3600, '24h': 4 * 3600, '7d': 86_400 };

/** Tick spacings (seconds) for windows shorter than the range (the charts start at the first sample, see {@link chartStart}). */
const TICK_LADDER = [15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14_400, 43_200, 86_400];

/**
 * Round UTC times for the axis inside [start, end]: every 10 min (1 h), hour (6 h), 4 h (24 h) or
 * midnight (7 days), or closer when the window is shorter than the range (at most ~7 ticks).
 */
export function timeTicks(start: number, end: number, range: HistoryRange): number[] {
  const fitting = TICK_LADDER.find((candidate) => (end - start) / candidate <= 7) ?? TICK_STEP[range];
  const step = Math.min(TICK_STEP[range], fitting);
  const ticks: number[] = [];
  if (!(end > start)) return ticks;
  for (let t = Math.ceil(start / step) * step; t <= end && ticks.length < 50; t += step) ticks.push(t);
  return ticks;
}

/** The Changes table's rows: newest first (the API sends newest last); equal times keep the API's order reversed. */
export function newestFirst<T extends { readonly at: number }>(items: readonly T[]): T[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => b.item.at - a.item.at || b.i - a.i)
    .map((x) => x.item);
}

/** What a transition's kind reads as in the Change column. */
export const TRANSITION_LABEL: Record<HistoryTransition['kind'], string> = {
  'hints-on': 'Hints on',
  'hints-off': 'Hints off',
  'hints-partial': 'Hints partial',
  'expected-on': 'Controller should write hints',
  'expected-off': 'Controller should remove hints',
  mechanism: 'Mechanism changed',
  eligible: 'Cluster eligible',
  ineligible: 'Cluster ineligible',
};

/** The badge tone of a transition: green when routing gets better, red when it breaks. */
export function transitionTone(kind: HistoryTransition['kind']): Tone {
  switch (kind) {
    case 'hints-on':
    case 'eligible':
    case 'expected-on':
      return 'ok';
    case 'hints-off':
    case 'ineligible':
      return 'error';
    case 'hints-partial':
    case 'expected-off':
      return 'warn';
    default:
      return 'info';
  }
}

/** How an interval value reads in "hints were … throughout". */
function stateWords(subject: 'hints' | 'cluster', value: string): string {
  if (subject === 'cluster') return value === 'eligible' ? 'the cluster was eligible throughout' : value === 'ineligible' ? 'the cluster was ineligible throughout' : `the cluster was ${value} throughout`;
  return `hints were ${value} throughout`;
}

/**
 * The Changes table's empty state, derived from the intervals:
 * `No change in the last 24 h: hints were on throughout.` — and when samples are missing for part
 * of the range, says so instead of claiming "throughout" for time nobody saw.
 */
export function noChangeText(
  subject: 'hints' | 'cluster',
  intervals: readonly HistoryInterval[],
  frame: { readonly range: HistoryRange; readonly start: number; readonly end: number; readonly stepSeconds: number },
): string {
  const head = `No change in the last ${rangeText(frame.range)}`;
  const values = [...new Set(intervals.map((i) => i.value))];
  if (intervals.length === 0 || values.length !== 1) return `${head}.`;
  const value = values[0] ?? '';
  const sorted = [...intervals].sort((a, b) => a.from - b.from);
  const slack = Math.max(2 * frame.stepSeconds, 60);
  let covered = (sorted[0]?.from ?? frame.start) - frame.start <= slack;
  for (let i = 1; i < sorted.length && covered; i++) {
    const prev = sorted[i - 1];
    const cur = sorted[i];
    if (prev && cur && cur.from - (prev.to ?? frame.end) > slack) covered = false;
  }
  const last = sorted[sorted.length - 1];
  if (last && frame.end - (last.to ?? frame.end) > slack) covered = false;
  if (covered) return `${head}: ${stateWords(subject, value)}.`;
  const partly = subject === 'cluster' ? `the cluster was ${value}` : `hints were ${value}`;
  return `${head}: ${partly} whenever there are samples (none for part of the range).`;
}

/** One row of a time chart: `t` plus one number (or gap) per series key. */
export type ChartRow = { readonly t: number } & Record<string, number | null>;

/**
 * Series → rows keyed by time, for recharts: each series' value under `${prefix}${key}` (scaled by
 * `scale`), `null` for a gap, so lines break where no sample exists instead of bridging it.
 */
export function chartRows(groups: readonly { readonly prefix: string; readonly series: readonly HistorySeries[]; readonly scale?: number }[]): ChartRow[] {
  const byT = new Map<number, Record<string, number | null>>();
  const keys: string[] = [];
  for (const g of groups) for (const s of g.series) keys.push(`${g.prefix}${s.key}`);
  for (const g of groups) {
    for (const s of g.series) {
      const field = `${g.prefix}${s.key}`;
      for (const p of s.points) {
        let row = byT.get(p.t);
        if (!row) {
          row = {};
          for (const k of keys) row[k] = null;
          byT.set(p.t, row);
        }
        row[field] = p.v === null || !Number.isFinite(p.v) ? null : p.v * (g.scale ?? 1);
      }
    }
  }
  return [...byT.entries()].sort((a, b) => a[0] - b[0]).map(([t, row]) => ({ ...row, t }) as ChartRow);
}

/** The last non-null value of a series, or `null`. */
export function lastValue(series: HistorySeries | undefined): number | null {
  if (!series) return null;
  for (let i = series.points.length - 1; i >= 0; i--) {
    const v = series.points[i]?.v;
    if (v !== null && v !== undefined && Number.isFinite(v)) return v;
  }
  return null;
}

/** Smallest and largest non-null value of a series, or `null` without data. */
export function seriesExtent(series: HistorySeries | undefined): { readonly min: number; readonly max: number } | null {
  let min = Infinity;
  let max = -Infinity;
  for (const p of series?.points ?? []) {
    if (p.v === null || !Number.isFinite(p.v)) continue;
    min = Math.min(min, p.v);
    max = Math.max(max, p.v);
  }
  return min <= max ? { min, max } : null;
}

/**
 * The value axis for series that may lie close together far from zero (cross-zone spend now,
 * after sync and best: $434, $433, $424): from zero when the values spread over more than half of
 * the largest, else a window around them (15 % of their spread as margin, at least 1 % of the
 * largest), so the gaps between lines show. `zeroBased` says which, so the chart can say so.
 */
export function closeValuesDomain(series: readonly HistorySeries[]): { readonly domain: readonly [number, number]; readonly zeroBased: boolean } | null {
  let min = Infinity;
  let max = -Infinity;
  for (const s of series) {
    const extent = seriesExtent(s);
    if (extent === null) continue;
    min = Math.min(min, extent.min);
    max = Math.max(max, extent.max);
  }
  if (!(min <= max)) return null;
  if (min <= 0 || max - min > max / 2) return { domain: [Math.min(0, min), max], zeroBased: true };
  const pad = Math.max((max - min) * 0.15, max * 0.01);
  const step = niceStep(max - min + 2 * pad);
  return { domain: [Math.max(0, Math.floor((min - pad) / step) * step), Math.ceil((max + pad) / step) * step], zeroBased: false };
}

/** A round step (1, 2 or 5 × 10ⁿ) about a fifth of `span`, for axis bounds that read well. */
function niceStep(span: number): number {
  const raw = span / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / magnitude;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * magnitude;
}

/** A mark's label on the chart: its text, cut to `max` characters. */
export function shortMark(mark: HistoryMark, max = 28): string {
  return mark.text.length <= max ? mark.text : `${mark.text.slice(0, max - 1)}…`;
}

/** Marks far enough apart to carry a label (closer ones keep their line, without text). */
export function labelledMarks(marks: readonly HistoryMark[], start: number, end: number, maxLabels = 8): Set<HistoryMark> {
  const span = Math.max(1, end - start);
  const gap = span / maxLabels;
  const out = new Set<HistoryMark>();
  let last = -Infinity;
  for (const m of [...marks].sort((a, b) => a.at - b.at)) {
    if (m.at - last >= gap) {
      out.add(m);
      last = m.at;
    }
  }
  return out;
}

/** Intervals as a sentence for screen readers: `on from 2026-12-01 08:00 UTC to 14:02 UTC; off from … (ongoing)`. */
export function intervalsText(intervals: readonly HistoryInterval[]): string {
  if (intervals.length === 0) return 'no samples';
  return intervals.map((i) => `${i.label} from ${formatUtc(i.from)} ${i.to === null ? '(ongoing)' : `to ${formatUtc(i.to)}`}`).join('; ');
}

/**
 * Where the charts start: the range's start, unless zonescope's series begin so late that more
 * than a quarter of the range would be an empty band at the left (a new installation, a Prometheus
 * that only just started scraping) — then a little before the first sample (a step, or a tenth of
 * the data's span when that is shorter), so the data is not a sliver at the right edge. Gaps later
 * in the range are kept.
 */
export function chartStart(frame: { readonly start: number; readonly end: number; readonly stepSeconds: number }, firstSample: number | null): number {
  if (firstSample === null) return frame.start;
  const span = frame.end - frame.start;
  if (span <= 0 || firstSample - frame.start <= span / 4) return frame.start;
  const pad = Math.max(1, Math.min(frame.stepSeconds, (frame.end - firstSample) / 10));
  return Math.min(frame.end - 1, Math.max(frame.start, firstSample - pad));
}

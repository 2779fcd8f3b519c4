/**
 * How long ago (or ahead) something happened, in words: the one "N ago" of the dashboard, on
 * `Intl.RelativeTimeFormat` (English, as the rest of the UI). Used by the header's data age
 * (lib/shared/live-refresh.ts), the Service's events and the History panels' changes, on the
 * server and in the browser alike.
 *
 * - `narrow` (what the page shows): `45s ago`, `3m ago`, `2h ago`, `4d ago`, `in 5m`;
 * - `long` (what a screen reader says): `45 seconds ago`, `1 minute ago`, `2 hours ago`.
 *
 * A duration is shown in its largest whole unit, floored (59 s is `59s`, 60 s `1m`,
 * 119 min `1h`), up to a largest unit the caller picks. Pure: the caller passes both times.
 */

export type RelativeStyle = 'narrow' | 'long';

/** The units used, smallest first. */
export const RELATIVE_UNITS = ['second', 'minute', 'hour', 'day'] as const;
export type RelativeUnit = (typeof RELATIVE_UNITS)[number];

const SECONDS: Readonly<Record<RelativeUnit, number>> = { second: 1, minute: 60, hour: 3_600, day: 86_400 };

export interface RelativeTimeOptions {
  /** `narrow` by default. */
  readonly style?: RelativeStyle;
  /** The largest unit used (`day` by default): with `hour`, 30 hours is `30h ago`. */
  readonly largestUnit?: RelativeUnit;
}

const FORMATS = new Map<string, Intl.RelativeTimeFormat>();

function format(style: RelativeStyle, numeric: 'always' | 'auto'): Intl.RelativeTimeFormat {
  const key = `${style}/${numeric}`;
  let formatter = FORMATS.get(key);
  if (formatter === undefined) {
    formatter = new Intl.RelativeTimeFormat('en', { style, numeric });
    FORMATS.set(key, formatter);
  }
  return formatter;
}

/** A duration (seconds, ≥ 0) in its largest whole unit up to `largestUnit`, floored: 150 → 2 minutes. */
export function wholeUnits(seconds: number, largestUnit: RelativeUnit = 'day'): { readonly value: number; readonly unit: RelativeUnit } {
  const s = Math.max(0, seconds);
  let unit: RelativeUnit = 'second';
  for (const candidate of RELATIVE_UNITS) {
    if (SECONDS[candidate] > SECONDS[largestUnit]) break;
    if (s >= SECONDS[candidate]) unit = candidate;
  }
  return { value: Math.floor(s / SECONDS[unit]), unit };
}

/**
 * `offsetSeconds` from now in words: negative is past (`3m ago`), positive is ahead
 * (`in 3m`); zero reads as past (`0s ago`).
 */
export function formatRelativeTime(offsetSeconds: number, options: RelativeTimeOptions = {}): string {
  const { value, unit } = wholeUnits(Math.abs(offsetSeconds), options.largestUnit);
  // -0 keeps Intl's past wording for zero ("0s ago", never "in 0s").
  return format(options.style ?? 'narrow', 'always').format(offsetSeconds > 0 ? value : -value, unit);
}

/** A calendar day relative to today in words: `today`, `yesterday`, `tomorrow`, else `3d ago` / `in 3d`. */
export function formatRelativeDay(offsetDays: number, style: RelativeStyle = 'narrow'): string {
  return format(style, 'auto').format(Math.trunc(offsetDays), 'day');
}

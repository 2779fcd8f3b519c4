/**
 * Prometheus text format 0.0.4 as prom-client writes it: HELP escaping, label value escaping and
 * sample value formatting, so the per-Service block written by hand reads exactly like prom-client's
 * own output; and the GB/month → bytes/s conversion of the byte-rate series.
 */

/** Seconds in the 30-day month the GB/month figures are per. */
const SECONDS_PER_MONTH = 30 * 24 * 3600;

/** GB (10⁹ bytes) per 30-day month → bytes per second. */
export function gbPerMonthToBytesPerSecond(gbPerMonth: number): number {
  return (gbPerMonth * 1e9) / SECONDS_PER_MONTH;
}

/** A HELP text escaped as prom-client does (`\` and newline). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

const NEEDS_ESCAPE = /[\\"\n]/;

/** A label value escaped as prom-client does (`\`, `"`, newline). */
export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** A sample value as prom-client formats it. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}

/**
 * CSV as RFC 4180 writes it, made safe to open in a spreadsheet: the Services export
 * (`GET /api/v1/services?format=csv`) is written with it. Pure.
 */

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled. A text
 * that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR; event
 * messages come from the cluster) gets a leading `'`, as OWASP recommends against CSV injection.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV text (CRLF line ends, as RFC 4180 has them) from a header row and rows of fields. */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number | boolean | null)[])[]): string {
  return [header, ...rows].map((fields) => fields.map(csvField).join(',')).join('\r\n') + '\r\n';
}

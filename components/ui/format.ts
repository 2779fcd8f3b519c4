/**
 * Number and text formatting shared by server and client components. Pure functions, no locale
 * surprises: the dashboard always renders the same digits on the server and in the browser.
 */

/** A fraction (0–1) as a percentage: `0.6389` → `63.9 %`. */
export function formatPercent(fraction: number | null | undefined, digits = 1): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '—';
  return `${(fraction * 100).toFixed(digits)} %`;
}

/** Millicores as cores: `3920` → `3.92 cores`. */
export function formatCpu(millis: number | null | undefined): string {
  if (millis === null || millis === undefined) return 'no CPU';
  const cores = millis / 1000;
  if (cores >= 100) return `${formatCount(cores)} cores`;
  return `${Number.isInteger(cores) ? cores.toFixed(0) : cores.toFixed(cores < 10 ? 2 : 1)} cores`;
}

/** USD with cents: `12.777` → `$12.78`. */
export function formatUsd(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const fixed = value >= 1000 ? value.toFixed(0) : value.toFixed(2);
  return `$${fixed.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

/** An integer with thousands separators: `150000` → `150,000`. */
export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const rounded = Math.round(value);
  return String(rounded).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A ratio with four decimals as upstream shows it in formulas: `0.4444`. */
export function formatRatio(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value.toFixed(4);
}

/** A non-integer count with at most two decimals (`3.1111` → `3.11`, `3` → `3`). */
export function formatDecimal(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

/** ISO timestamp as `2026-11-01 08:00:00 UTC` (stable on server and client). */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return 'unknown time';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `n thing(s)` with a correct plural. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}

/** Short platform name for the header: `eks` → `EKS`. */
export function formatPlatform(platform: string | null): string | null {
  if (!platform) return null;
  const known: Record<string, string> = { eks: 'EKS', gke: 'GKE', aks: 'AKS', k3s: 'k3s', kind: 'kind', openshift: 'OpenShift', rke2: 'RKE2' };
  return known[platform.toLowerCase()] ?? platform;
}

/** URL of a Service view. */
export function serviceHref(namespace: string, name: string): string {
  return `/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

/** Display name of a Service mechanism. */
export function mechanismLabel(mechanism: string): string {
  switch (mechanism) {
    case 'topology-mode':
      return 'topology-mode';
    case 'legacy-annotation':
      return 'legacy annotation';
    case 'trafficDistribution':
      return 'trafficDistribution';
    default:
      return 'none';
  }
}

/**
 * A zone name without the region prefix every named zone shares (`ap-northeast-2a` → `2a` among
 * ap-northeast-2a/2b/2c), for narrow cells and chart axes; `unknownZone` (the engine's "no zone"
 * column) becomes `∅`. Names stay whole when fewer than two zones are named.
 */
export function shortZoneName(zones: readonly string[], zone: string, unknownZone: string): string {
  if (zone === unknownZone) return '∅';
  const named = zones.filter((z) => z !== unknownZone);
  if (named.length < 2) return zone;
  let prefix = named[0] ?? '';
  for (const z of named) while (!z.startsWith(prefix)) prefix = prefix.slice(0, -1);
  const cut = prefix.lastIndexOf('-') + 1;
  return zone.slice(cut) || zone;
}

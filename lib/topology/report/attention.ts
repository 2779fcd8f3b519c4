/**
 * The "needs attention" rules: which Services the overview lists, and why (the first rule that
 * holds gives the reason and message).
 */
import type { ServiceLint } from '../analyses/service-mechanism';
import type { BestScenario } from '../analyses/traffic-volume';
import type { AttentionReason, ServiceAttention, ServiceReport } from './analysis-schema';

/** Lints that put a Service in "needs attention", with the reason they give. */
const ATTENTION_LINTS: Readonly<Partial<Record<ServiceLint['id'], AttentionReason>>> = {
  'annotation-value-ignored': 'annotation-ineffective',
  'topology-mode-key-unsupported': 'annotation-ineffective',
  'topology-aware-hints-gate-off': 'annotation-ineffective',
  'legacy-key-overrides-topology-mode': 'annotation-ineffective',
  'traffic-distribution-unsupported': 'annotation-ineffective',
  'traffic-distribution-ignored': 'annotation-ineffective',
  'dataplane-ignores-hints': 'dataplane-ignores-hints',
  'internal-traffic-policy-local': 'hints-unused',
  'no-selector': 'hints-unused',
  headless: 'hints-unused',
};

/**
 * Why a Service needs attention, `null` when it does not: hints off although asked for, then the
 * first lint of {@link ATTENTION_LINTS} that is an error (or a warning that hints go unused), then
 * slices out of sync, partial hints, and hints on with endpoints donated across zones. Rules on the
 * expected hints are skipped while those are unknown (`report.unknown.expectedHints`).
 */
export function attentionFor(report: Pick<ServiceReport, 'mechanism' | 'expected' | 'lints' | 'diff' | 'observed' | 'traffic' | 'unknown'>): ServiceAttention | null {
  const active = report.mechanism === 'topology-mode' || report.mechanism === 'legacy-annotation';
  // Rules on the controller's expected hints (off, out of sync, donated) cannot hold when those are unknown.
  const expectedKnown = report.unknown.expectedHints === undefined;
  if (active && expectedKnown && !report.expected.hintsEnabled) return { reason: 'hints-off', message: report.expected.verdict };
  for (const lint of report.lints) {
    const reason = ATTENTION_LINTS[lint.id];
    if (!reason) continue;
    if (lint.severity === 'error' || (reason === 'hints-unused' && lint.severity === 'warning')) return { reason, message: lint.message };
  }
  if (expectedKnown && !report.diff.inSync) {
    const parts = [
      report.diff.missing > 0 ? `${report.diff.missing} missing` : null,
      report.diff.unexpected > 0 ? `${report.diff.unexpected} unexpected` : null,
      report.diff.stale > 0 ? `${report.diff.stale} stale` : null,
    ].filter(Boolean);
    return { reason: 'out-of-sync', message: `The slices differ from what the controller would write: ${parts.join(', ')} hint(s).` };
  }
  if (report.observed.hintsPresent && report.observed.readyEndpointsWithoutHints > 0) {
    return { reason: 'partial-hints', message: `${report.observed.readyEndpointsWithoutHints} ready endpoint(s) have no zone hint, so kube-proxy ignores the hints of the others too.` };
  }
  if (expectedKnown && report.expected.hintsEnabled && report.expected.donatedEndpoints > 0) {
    return {
      reason: 'cross-zone-leak',
      message:
        report.unknown.crossZone === undefined
          ? `Hints are on but ${report.expected.donatedEndpoints} endpoint(s) are donated across zones (uneven placement): ${(report.traffic.crossZoneFraction * 100).toFixed(1)} % of traffic crosses zones.`
          : `Hints are on but ${report.expected.donatedEndpoints} endpoint(s) are donated across zones (uneven placement).`,
    };
  }
  return null;
}

/** USD per month a Service's best change must save to be listed for it alone ({@link attentionByMoney}). */
export const DEFAULT_ATTENTION_MIN_SAVING = 10;

/** An entry of the attention list: a Service and why. */
export type AttentionItem = ServiceAttention & { readonly namespace: string; readonly name: string };

/** What {@link attentionByMoney} reads of a Service's traffic row (see `ServiceTrafficCost`). */
export interface AttentionMoney {
  readonly monthlyCost: number;
  readonly saving: number;
  readonly bestScenario: BestScenario;
  readonly fix: string | null;
}

/**
 * The `costly-fixable` attention of a Service's traffic row: its best change (the next sync,
 * topology mode Auto, or its smallest verified fix) saves at least `minSaving` USD a month; `null`
 * otherwise.
 */
export function costlyFixable(row: AttentionMoney, minSaving: number = DEFAULT_ATTENTION_MIN_SAVING): ServiceAttention | null {
  if (!savesEnough(row, minSaving)) return null;
  const how =
    row.bestScenario === 'fix' && row.fix !== null
      ? `its smallest fix (${row.fix})`
      : row.bestScenario === 'ifAuto'
        ? 'topology mode Auto'
        : row.bestScenario === 'expected'
          ? 'the controller’s next sync'
          : 'a change';
  return { reason: 'costly-fixable', message: `${usd(row.monthlyCost)} a month crosses zones; ${how} saves ${usd(row.saving)} a month.` };
}

/** Whether a row's best change saves at least `minSaving` (and anything at all). */
function savesEnough(row: AttentionMoney, minSaving: number): boolean {
  return row.saving >= minSaving && row.saving > 0;
}

function usd(value: number): string {
  return `$${value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2)}`;
}

/**
 * Rows by `namespace/name` for {@link attentionByMoney}, optionally with the ones that save at least
 * some amount (and above 0) on their own, so the others need not be read (the cluster traffic's
 * rows, made when first read, offer it).
 */
export type AttentionRows = ReadonlyMap<string, AttentionMoney> & { readonly savingAtLeast?: (min: number) => Iterable<readonly [string, AttentionMoney]> };

/**
 * The attention list by money: every Service the rules list, plus every Service whose best change
 * (the next sync, topology mode Auto, or its smallest verified fix) saves at least `minSaving`
 * USD a month (`costly-fixable`), ordered by cross-zone cost now, then by saving, then by name.
 * `rows` are the traffic rows by `namespace/name`; a Service without one counts as $0.
 */
export function attentionByMoney(items: readonly AttentionItem[], rows: AttentionRows, minSaving: number = DEFAULT_ATTENTION_MIN_SAVING): AttentionItem[] {
  // Services listed by another rule keep that entry; one listed as costly-fixable is re-judged from its row.
  const listedOtherwise = new Set<string>();
  const out: MoneyEntry[] = [];
  // Indexed loops: this runs once a pass, mostly before the JIT has optimised it.
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as AttentionItem;
    if (item.reason === 'costly-fixable') continue;
    const key = `${item.namespace}/${item.name}`;
    listedOtherwise.add(key);
    out.push(entry(item, rows.get(key)));
  }
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as AttentionItem;
    if (item.reason === 'costly-fixable') listedOtherwise.delete(`${item.namespace}/${item.name}`);
  }
  // Most rows save too little to be listed: that is tested first, then whether another rule lists the Service.
  for (const [key, row] of rows.savingAtLeast !== undefined ? rows.savingAtLeast(minSaving) : rows) {
    if (!savesEnough(row, minSaving) || listedOtherwise.has(key)) continue;
    const attention = costlyFixable(row, minSaving);
    if (attention === null) continue;
    const slash = key.indexOf('/');
    out.push(entry({ namespace: key.slice(0, slash), name: key.slice(slash + 1), ...attention }, row));
  }
  // Each entry's money is looked up once, not on every comparison.
  out.sort(byMoney);
  const sorted: AttentionItem[] = new Array<AttentionItem>(out.length);
  for (let i = 0; i < out.length; i++) sorted[i] = (out[i] as MoneyEntry).item;
  return sorted;
}

/** An attention entry with the money it is ordered by (see {@link attentionByMoney}). */
interface MoneyEntry {
  readonly item: AttentionItem;
  readonly monthlyCost: number;
  readonly saving: number;
}

// Module functions, not closures of attentionByMoney: it runs once a pass, and a closure's
// optimised code goes with the last closure made from it (each pass compiled them again).
function entry(item: AttentionItem, row: AttentionMoney | undefined): MoneyEntry {
  return { item, monthlyCost: row?.monthlyCost ?? 0, saving: row?.saving ?? 0 };
}

/**
 * Costliest first, then the largest saving, then by namespace and name. It answers -1, 0 or 1: a
 * fraction handed back to the sort is a number object made for each comparison.
 */
function byMoney(x: MoneyEntry, y: MoneyEntry): number {
  const cost = y.monthlyCost - x.monthlyCost;
  if (cost !== 0) return cost > 0 ? 1 : cost < 0 ? -1 : 0;
  const saving = y.saving - x.saving;
  if (saving !== 0) return saving > 0 ? 1 : saving < 0 ? -1 : 0;
  const a = x.item;
  const b = y.item;
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

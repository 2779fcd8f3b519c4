/**
 * The verdict under the Overview's "Hints expected on / Hints on slices now" (pure): whether the
 * slices carry the hints the controller would write, and if not, which Services wait for it to
 * write them, carry hints it would remove, or carry hints it would rewrite. Equal counts are no
 * verdict (three Services waiting and three to be cleared also make "6 / 6"); this compares each
 * Service's slices with its expected hints.
 */
import type { ServiceReport } from '@/lib/topology/report/analysis-schema';
import { plural } from '../ui/format';

/** What {@link hintsSync} reads of a Service. */
export type SyncService = Pick<ServiceReport, 'namespace' | 'name' | 'expected' | 'observed' | 'diff' | 'unknown' | 'needsAttention'>;

/** One group of Services out of sync. */
export type SyncGroup = 'waiting' | 'removing' | 'rewriting';

/** `namespace/name` of the Services of each group, and those whose expected hints are unknown. */
export interface HintsSync {
  readonly waiting: readonly string[];
  readonly removing: readonly string[];
  readonly rewriting: readonly string[];
  readonly unknown: number;
  /**
   * Whether the Services out of sync are exactly those the Services table lists under "Out of
   * sync" (`?attention=1&reason=out-of-sync`), so that filter shows them; `false` when some
   * need attention for another reason first (hints off, an ineffective annotation).
   */
  readonly tableFilterMatches: boolean;
}

/** The Services out of sync by group (pure; one pass). A Service the controller does not manage (no selector) has no expected hints and is left out. */
export function hintsSync(services: readonly SyncService[]): HintsSync {
  const waiting: string[] = [];
  const removing: string[] = [];
  const rewriting: string[] = [];
  let unknown = 0;
  let outOfSyncAttention = 0;
  let matched = 0;
  for (const s of services) {
    const listed = s.needsAttention?.reason === 'out-of-sync';
    if (listed) outOfSyncAttention++;
    if (s.unknown.expectedHints !== undefined) {
      unknown++;
      continue;
    }
    if (!s.expected.applicable || s.diff.inSync) continue;
    const key = `${s.namespace}/${s.name}`;
    if (s.expected.hintsEnabled && !s.observed.hintsPresent) waiting.push(key);
    else if (!s.expected.hintsEnabled && s.observed.hintsPresent) removing.push(key);
    else rewriting.push(key);
    if (listed) matched++;
  }
  const outOfSync = waiting.length + removing.length + rewriting.length;
  return { waiting, removing, rewriting, unknown, tableFilterMatches: outOfSync > 0 && matched === outOfSync && outOfSyncAttention === outOfSync };
}

/** The tone and words of the verdict: `In sync: …`, or one clause per group out of sync. */
export function hintsSyncSentence(sync: HintsSync): { readonly tone: 'ok' | 'warn' | 'info'; readonly text: string } {
  const parts: string[] = [];
  const n = (list: readonly string[]) => plural(list.length, 'Service');
  const has = (list: readonly string[]) => (list.length === 1 ? 'has' : 'have');
  if (sync.waiting.length > 0) parts.push(`${n(sync.waiting)} wait${sync.waiting.length === 1 ? 's' : ''} for the controller to write hints`);
  if (sync.removing.length > 0) parts.push(`${n(sync.removing)} ${has(sync.removing)} hints the controller would remove`);
  if (sync.rewriting.length > 0) parts.push(`${n(sync.rewriting)} ${has(sync.rewriting)} hints the controller would rewrite`);
  const unknown = sync.unknown > 0 ? ` Unknown for ${plural(sync.unknown, 'Service')}: zonescope could not read what their hints depend on.` : '';
  if (parts.length === 0) {
    return sync.unknown > 0
      ? { tone: 'info', text: `In sync as far as zonescope can tell.${unknown}` }
      : { tone: 'ok', text: 'In sync: the slices carry the hints the controller would write.' };
  }
  const [first, ...rest] = parts;
  const sentence = `${(first ?? '').replace(/^./, (c) => c.toUpperCase())}${rest.length > 0 ? `; ${rest.join('; ')}` : ''}.`;
  return { tone: 'warn', text: `${sentence}${unknown}` };
}

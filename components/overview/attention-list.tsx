/**
 * Services needing attention, most costly first: ordered by their cross-zone dollars a month now,
 * then by what their best change saves, then by reason and name. Rows that say the same thing
 * (same reason, same message up to its numbers: "30 Services: Hints off — fewer endpoints than
 * zones") collapse into one expandable group.
 */
import { ClusterLink } from '../layout/cluster-base';
import type { AttentionReason, ClusterReport } from '@/lib/topology/report/analysis-schema';
import { formatCount, formatUsd, serviceHref } from '../ui/format';
import { LINK } from '../ui/panel';
import { Badge } from '../ui/status';
import { ATTENTION, ATTENTION_REASONS } from '../shared/labels';

type Item = ClusterReport['needsAttention'][number];

/** Rows saying the same thing that make a group (fewer are listed one by one). */
export const GROUP_MIN = 3;

/**
 * Members an expanded group lists (its most costly first); the rest are counted, with a link to
 * the Services table filtered by the group's reason. At 10,000 Services one group can hold
 * thousands of Services, and listing them all made the Overview megabytes of HTML.
 */
export const GROUP_LISTED = 20;

/** Short summaries of the upstream messages Services share most ("Hints off: Insufficient number of endpoints (…)"). */
const SUMMARIES: readonly (readonly [RegExp, string])[] = [
  [/Insufficient number of endpoints/, 'fewer endpoints than zones'],
  [/Unable to allocate minimum required endpoints/, 'a zone’s minimum would exceed the overload threshold'],
  [/Insufficient Node information/, 'nodes lack zone or CPU information'],
  [/Nodes only ready in one zone/, 'nodes are ready in one zone only'],
  [/do not have a zone specified/, 'endpoints without a zone'],
  [/donated across zones/, 'endpoints donated across zones'],
];

/** What a group of rows says: the message with its numbers taken out (the grouping key). */
function messageShape(message: string): string {
  return message.replace(/\d+(\.\d+)?/g, '#');
}

/** A group's one-line description. */
export function groupSummary(message: string): string {
  const known = SUMMARIES.find(([pattern]) => pattern.test(message));
  if (known) return known[1];
  const shape = messageShape(message).replace(/^Hints off: /, '');
  return shape.length > 120 ? `${shape.slice(0, 119)}…` : shape;
}

export type AttentionEntry =
  | { readonly kind: 'one'; readonly item: Item; readonly impact: AttentionImpact }
  | { readonly kind: 'group'; readonly reason: AttentionReason; readonly summary: string; readonly items: readonly Item[]; readonly impact: AttentionImpact; readonly key: string };

/** What a row is ordered by: cross-zone dollars a month now, then what the best change saves. */
export interface AttentionImpact {
  readonly monthlyCost: number;
  readonly saving: number;
}

/** {@link attentionEntries} per (items, money) pair: the page passes the same objects for one analysis and traffic snapshot. */
const ENTRIES = new WeakMap<readonly Item[], WeakMap<ReadonlyMap<string, AttentionImpact>, AttentionEntry[]>>();

const NO_IMPACT: AttentionImpact = { monthlyCost: 0, saving: 0 };

function memoisedEntries(items: readonly Item[], money: ReadonlyMap<string, AttentionImpact> | undefined): AttentionEntry[] {
  const impactOf = (item: Item) => money?.get(`${item.namespace}/${item.name}`) ?? NO_IMPACT;
  if (money === undefined) return attentionEntries(items, impactOf);
  let perMoney = ENTRIES.get(items);
  if (!perMoney) {
    perMoney = new WeakMap();
    ENTRIES.set(items, perMoney);
  }
  let entries = perMoney.get(money);
  if (!entries) {
    entries = attentionEntries(items, impactOf);
    perMoney.set(money, entries);
  }
  return entries;
}

/**
 * The list's entries: rows ordered by `impact` (cross-zone $ now, then the saving, highest first;
 * unknown as 0), then reason (in {@link ATTENTION_REASONS} order) and namespace/name; rows of one
 * message shape ({@link GROUP_MIN} or more) as one group placed at its most costly member.
 */
export function attentionEntries(items: readonly Item[], impactOf: (item: Item) => AttentionImpact): AttentionEntry[] {
  const impact = new Map(items.map((item) => [item, impactOf(item)]));
  const rank = (reason: AttentionReason) => ATTENTION_REASONS.indexOf(reason);
  const sorted = [...items].sort(
    (a, b) =>
      (impact.get(b)?.monthlyCost ?? 0) - (impact.get(a)?.monthlyCost ?? 0) ||
      (impact.get(b)?.saving ?? 0) - (impact.get(a)?.saving ?? 0) ||
      rank(a.reason) - rank(b.reason) ||
      (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const byShape = new Map<string, Item[]>();
  for (const item of sorted) {
    const key = `${item.reason}\u0000${messageShape(item.message)}`;
    const list = byShape.get(key) ?? [];
    list.push(item);
    byShape.set(key, list);
  }
  const entries: AttentionEntry[] = [];
  const placed = new Set<string>();
  for (const item of sorted) {
    const key = `${item.reason}\u0000${messageShape(item.message)}`;
    const members = byShape.get(key) ?? [item];
    if (members.length < GROUP_MIN) {
      entries.push({ kind: 'one', item, impact: impact.get(item) ?? NO_IMPACT });
    } else if (!placed.has(key)) {
      placed.add(key);
      entries.push({ kind: 'group', reason: item.reason, summary: groupSummary(item.message), items: members, impact: impact.get(item) ?? NO_IMPACT, key });
    }
  }
  return entries;
}

function ServiceLink({ item }: { readonly item: Item }) {
  return (
    <ClusterLink href={serviceHref(item.namespace, item.name)} className={`${LINK} font-mono text-sm [overflow-wrap:anywhere]`}>
      {item.namespace}/{item.name}
    </ClusterLink>
  );
}

function Impact({ value, prefix = '' }: { readonly value: AttentionImpact | undefined; readonly prefix?: string }) {
  if (value === undefined) return null;
  return (
    <span className="text-xs tabular-nums text-slate-600 dark:text-slate-400" title="Cross-zone dollars a month now, and what its best change (the next sync, topology mode Auto or its smallest fix) saves">
      {prefix}
      {formatUsd(value.monthlyCost)}/month cross-zone
      {value.saving > 0.005 ? <span className="text-emerald-800 dark:text-emerald-300"> · saves {formatUsd(value.saving)}</span> : null}
    </span>
  );
}

export function AttentionList({
  items,
  money,
  limit = 25,
}: {
  readonly items: ClusterReport['needsAttention'];
  /** Each Service's cross-zone $ now and the saving of its best change, by `namespace/name` (what the list is ordered by). */
  readonly money?: ReadonlyMap<string, AttentionImpact>;
  readonly limit?: number;
}) {
  if (items.length === 0) {
    return <p className="text-sm text-slate-700 dark:text-slate-300">No Service needs attention: every Service that asks for hints gets them, nothing overrides them, and no change would save money.</p>;
  }
  const share = (item: Item) => money?.get(`${item.namespace}/${item.name}`);
  const entries = memoisedEntries(items, money);
  const shown = entries.slice(0, limit);
  const hidden = entries.slice(limit).reduce((sum, e) => sum + (e.kind === 'group' ? e.items.length : 1), 0);
  return (
    <div className="space-y-2">
      {money ? <p className="text-xs text-slate-600 dark:text-slate-400">Costliest first: cross-zone dollars now, then what the best change saves.</p> : null}
      <ul className="divide-y divide-slate-200 dark:divide-slate-800">
        {shown.map((entry) => {
          if (entry.kind === 'one') {
            const { item } = entry;
            const a = ATTENTION[item.reason];
            return (
              <li key={`${item.namespace}/${item.name}`} className="space-y-1 py-2">
                <div className="flex flex-wrap items-center gap-2">
                  <ServiceLink item={item} />
                  <Badge tone={a.tone} title={a.hint}>
                    {a.label}
                  </Badge>
                  <Impact value={share(item)} />
                </div>
                <p className="text-sm text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">{item.message}</p>
              </li>
            );
          }
          const a = ATTENTION[entry.reason];
          return (
            <li key={entry.key} className="py-2">
              <details className="group">
                <summary className="flex cursor-pointer flex-wrap items-center gap-2">
                  <span className="font-medium">
                    {entry.items.length} Services: {a.label} — {entry.summary}
                  </span>
                  <Badge tone={a.tone} title={a.hint}>
                    {a.label}
                  </Badge>
                  <Impact value={share(entry.items[0] as Item)} prefix="up to " />
                </summary>
                <ul className="mt-2 space-y-1.5 border-l-2 border-slate-200 pl-3 dark:border-slate-700">
                  {entry.items.slice(0, GROUP_LISTED).map((item) => (
                    <li key={`${item.namespace}/${item.name}`} className="space-y-0.5">
                      <div className="flex flex-wrap items-center gap-2">
                        <ServiceLink item={item} />
                        <Impact value={share(item)} />
                      </div>
                      <p className="text-xs text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">{item.message}</p>
                    </li>
                  ))}
                </ul>
                {entry.items.length > GROUP_LISTED ? (
                  <p className="mt-1.5 pl-3 text-xs">
                    {formatCount(entry.items.length - GROUP_LISTED)} more not listed here.{' '}
                    <ClusterLink href={`/services?attention=1&reason=${entry.reason}&sort=cost&order=desc`} className={LINK}>
                      Every Service needing attention for “{a.label}” →
                    </ClusterLink>
                  </p>
                ) : null}
              </details>
            </li>
          );
        })}
      </ul>
      {hidden > 0 ? (
        <p className="text-sm">
          <ClusterLink href="/services?attention=1&sort=cost&order=desc" className={LINK}>
            All {items.length} Services needing attention →
          </ClusterLink>
        </p>
      ) : null}
    </div>
  );
}

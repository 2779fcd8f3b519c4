'use client';

/**
 * The fleet table: one row per cluster, sortable by every column (a header button; numbers
 * largest first on the first click, text A–Z; clusters without a figure always last), with
 * `aria-sort` on the sorted column. Each cluster's name links to its Overview; the "why" column
 * links to the costliest Service's page and to the Services needing attention in that cluster.
 * They are plain links: moving to another cluster loads the page anew (its header and link base
 * are that cluster's, see components/layout/cluster-base.tsx).
 * Keyboard: Tab reaches the sort buttons and the links; on a cluster link the arrow keys and
 * Home/End move between the rows.
 */
import { useMemo, useRef, useState } from 'react';
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode } from 'react';

import type { FleetRow } from '@/lib/views/fleet/row';
import { formatCount, formatUsd } from '../ui/format';
import { SortIcon } from '../ui/icons';
import { LINK } from '../ui/panel';
import { Badge } from '../ui/status';
import { commonAttentionWords, freshnessTone, platformLabel, proxyLabel, shortTime } from './fleet-labels';

export type FleetSortKey = 'cluster' | 'state' | 'release' | 'platform' | 'eligibility' | 'proxy' | 'asking' | 'hintsOn' | 'attention' | 'cost' | 'best' | 'why';
export type SortOrder = 'asc' | 'desc';

type SortValue = string | number | null;

/** One way to sort the rows: a button in its column's header. */
interface SortKey {
  readonly id: FleetSortKey;
  /** What the button sorts by, in full (its title and accessible name). */
  readonly label: string;
  /** The button's text. */
  readonly header: ReactNode;
  /** Numbers sort largest first on the first click. */
  readonly numeric: boolean;
  /** The value sorted by; `null` sorts last in either direction. */
  value(row: FleetRow): SortValue;
}

/**
 * A column: one sort key, or several for a column that shows several figures (release, platform
 * and proxy; the three Service counts; the cost now and at best), so the table fits a 1280 px
 * screen with the "why" in full view.
 */
interface Column {
  readonly id: string;
  /** The column's name above several sort buttons (`null`: the one button is the name). */
  readonly title: ReactNode;
  readonly sorts: readonly SortKey[];
  readonly align: 'left' | 'right';
  /** The column's width; the "why" column has none and takes the rest. */
  readonly width: string | null;
  render(row: FleetRow, now: string): ReactNode;
}

/** How far along a cluster is: synced first, then syncing, stale, error, then those not connected. */
const FRESHNESS_RANK: Record<FleetRow['freshness']['kind'], number> = { synced: 0, snapshot: 1, syncing: 2, stale: 3, error: 4, 'closed-idle': 5, 'not-connected': 6 };

/** `1.31` → 1031, so releases sort as numbers. */
function releaseValue(release: string | null): number | null {
  const match = release === null ? null : /^(\d+)\.(\d+)/.exec(release);
  return match ? Number(match[1]) * 1000 + Number(match[2]) : null;
}

function Missing({ why }: { readonly why?: string }) {
  return (
    <span className="text-slate-500 dark:text-slate-400" title={why ?? 'Not known yet: the cluster has not been analysed.'}>
      —
    </span>
  );
}

function Count({ value }: { readonly value: number | null }) {
  return value === null ? <Missing /> : <span className="tabular-nums">{formatCount(value)}</span>;
}

/** A row of a cluster seen only in the fleet Prometheus: its figures come from there, and nothing here opens it. */
function SourceBadge() {
  return (
    <span
      className="ml-1.5 rounded bg-violet-100 px-1 py-px text-[0.7rem] font-medium text-violet-800 dark:bg-violet-950 dark:text-violet-200"
      title="Read from the fleet Prometheus (ZONESCOPE_FLEET_PROMETHEUS_URL): this installation does not connect to this cluster"
    >
      from Prometheus
    </span>
  );
}

function ClusterCell({ row, rowLink = true }: { readonly row: FleetRow; readonly rowLink?: boolean }) {
  return (
    <div className="min-w-0 space-y-0.5">
      {row.href !== null ? (
        <a href={row.href} data-row-link={rowLink ? '' : undefined} className={`${LINK} text-sm [overflow-wrap:anywhere]`} title={`Open the Overview of ${row.displayName}`}>
          {row.displayName}
        </a>
      ) : (
        <span className="text-sm font-medium [overflow-wrap:anywhere]">{row.displayName}</span>
      )}
      {row.source === 'prometheus' ? <SourceBadge /> : null}
      {row.isDefault ? (
        <span className="ml-1.5 rounded bg-slate-100 px-1 py-px text-[0.7rem] font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300">default</span>
      ) : null}
      {row.context !== null && row.context !== row.displayName ? (
        <p className="font-mono text-xs text-slate-600 [overflow-wrap:anywhere] dark:text-slate-400">
          <span className="sr-only">Context: </span>
          {row.context}
        </p>
      ) : null}
      {row.server !== null ? (
        <p className="font-mono text-xs text-slate-600 [overflow-wrap:anywhere] dark:text-slate-400">
          <span className="sr-only">Server: </span>
          {row.server}
        </p>
      ) : null}
    </div>
  );
}

function StateCell({ row, now }: { readonly row: FleetRow; readonly now: string }) {
  const f = row.freshness;
  const current = row.asOf !== null && row.asOf === now;
  return (
    <div className="min-w-0 space-y-1">
      {/* A long state ("Synced, 1 type forbidden") wraps inside its column rather than over the next. */}
      <Badge tone={freshnessTone(f)} title={f.message ?? undefined} className="whitespace-normal!">
        {f.label}
      </Badge>
      {f.message !== null ? <p className="line-clamp-3 text-xs text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">{f.message}</p> : null}
      {f.kind === 'closed-idle' && f.since !== null ? <p className="text-xs text-slate-600 dark:text-slate-400">Closed at {shortTime(f.since, now)}</p> : null}
      {row.asOf !== null && !current ? <p className="text-xs font-medium text-amber-800 dark:text-amber-300">Figures as of {shortTime(row.asOf, now)}</p> : null}
    </div>
  );
}

function EligibilityCell({ row }: { readonly row: FleetRow }) {
  if (row.eligibilityVerdict === null) return <Missing />;
  const tone = row.eligible === null ? 'warn' : row.eligible ? 'ok' : 'error';
  return (
    <div className="min-w-0 space-y-1">
      <Badge tone={tone}>{row.eligible === null ? 'Unknown' : row.eligible ? 'Eligible' : 'Not eligible'}</Badge>
      {row.eligible !== true ? <p className="line-clamp-3 text-xs text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">{row.eligibilityVerdict}</p> : null}
    </div>
  );
}

function WhyCell({ row }: { readonly row: FleetRow }) {
  const top = row.topService;
  const common = row.commonAttention;
  if (top === null && common === null) {
    return row.asOf === null ? <Missing /> : <span className="text-xs text-slate-600 dark:text-slate-400">No Service sends traffic across zones at a cost, and none needs attention.</span>;
  }
  return (
    <div className="min-w-0 space-y-1 text-xs">
      {top !== null ? (
        <div>
          <p>
            {top.href !== null ? (
              <a href={top.href} className={`${LINK} font-mono [overflow-wrap:anywhere]`}>
                {top.namespace}/{top.name}
              </a>
            ) : (
              <span className="font-mono [overflow-wrap:anywhere]">
                {top.namespace}/{top.name}
              </span>
            )}{' '}
            <span className="tabular-nums text-slate-700 dark:text-slate-300">{formatUsd(top.monthlyCost)}/mo</span>
          </p>
          {top.reason !== null ? (
            <p className="line-clamp-3 text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300" title={top.reason}>
              {top.reason}
            </p>
          ) : null}
          {top.fix !== null ? <p className="text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">Fix: {top.fix}</p> : null}
        </div>
      ) : null}
      {common !== null ? (
        <p>
          <span className="text-slate-600 dark:text-slate-400">Most common: </span>
          <a href={common.href} className={LINK} title={common.message}>
            {commonAttentionWords(common)}
          </a>
        </p>
      ) : null}
    </div>
  );
}

/** Release, platform and proxy in one cell: `EKS 1.31`, `iptables`, and whether the proxy ignores hints. */
function PlatformCell({ row }: { readonly row: FleetRow }) {
  if (row.release === null && row.platform === null && row.proxyMode === null) return <Missing />;
  return (
    <div className="min-w-0 space-y-1">
      <p>
        {row.platform === null ? <Missing /> : <span>{platformLabel(row.platform)}</span>}{' '}
        {row.release === null ? (
          <Missing />
        ) : (
          <span className="tabular-nums" title={row.gitVersion ?? undefined}>
            {row.release}
          </span>
        )}
      </p>
      <p>{row.proxyMode === null ? <Missing /> : proxyLabel(row)}</p>
      {row.honoursHints === false ? (
        <Badge tone="error" className="whitespace-normal!">
          Ignores hints
        </Badge>
      ) : null}
    </div>
  );
}

/** The three Service counts, one a line, each saying what it counts. */
function ServicesCell({ row }: { readonly row: FleetRow }) {
  if (row.askingForHints === null && row.hintsOn === null && row.needingAttention === null) return <Missing />;
  const attention = row.needingAttention;
  return (
    <ul className="space-y-0.5 text-xs">
      <li>
        <Count value={row.askingForHints} /> asking for hints
      </li>
      <li>
        <Count value={row.hintsOn} /> with hints on
      </li>
      <li>
        {attention !== null && attention > 0 ? (
          <span className="font-semibold text-amber-800 dark:text-amber-300">
            <span className="tabular-nums">{formatCount(attention)}</span> need attention
          </span>
        ) : (
          <>
            <Count value={attention} /> need attention
          </>
        )}
      </li>
    </ul>
  );
}

/** Cross-zone $ per month now (and where its volumes come from), at best, and the saving. */
function CostCell({ row }: { readonly row: FleetRow }) {
  if (row.crossZoneMonthly === null) return <Missing why={row.unknown[0]} />;
  return (
    <span className="flex flex-col items-end">
      <span className="font-semibold tabular-nums">{formatUsd(row.crossZoneMonthly)}</span>
      <span className="text-xs text-slate-600 dark:text-slate-400">{row.volumeSource?.replace('-', ' ') ?? (row.measured ? 'measured' : 'assumed')}</span>
      {row.bestMonthly !== null ? (
        <span className="text-xs text-slate-700 dark:text-slate-300">
          at best <span className="tabular-nums">{formatUsd(row.bestMonthly)}</span>
        </span>
      ) : null}
      {row.saving !== null && row.saving > 0 ? <span className="text-xs tabular-nums text-emerald-800 dark:text-emerald-300">saves {formatUsd(row.saving)}</span> : null}
    </span>
  );
}

const COLUMNS: readonly Column[] = [
  {
    id: 'cluster',
    title: null,
    sorts: [{ id: 'cluster', label: 'Cluster', header: 'Cluster', numeric: false, value: (r) => r.displayName.toLowerCase() }],
    align: 'left',
    width: 'w-[11rem] 2xl:w-[14rem]',
    render: (r) => <ClusterCell row={r} />,
  },
  {
    id: 'state',
    title: null,
    sorts: [{ id: 'state', label: 'State', header: 'State', numeric: false, value: (r) => FRESHNESS_RANK[r.freshness.kind] }],
    align: 'left',
    width: 'w-[8.5rem] 2xl:w-[11rem]',
    render: (r, now) => <StateCell row={r} now={now} />,
  },
  {
    id: 'platform',
    title: null,
    sorts: [
      { id: 'platform', label: 'Platform', header: 'Platform', numeric: false, value: (r) => (r.platform === null ? null : platformLabel(r.platform).toLowerCase()) },
      { id: 'release', label: 'Kubernetes release', header: 'Release', numeric: true, value: (r) => releaseValue(r.release) },
      { id: 'proxy', label: 'Proxy mode', header: 'Proxy', numeric: false, value: (r) => (r.proxyMode === null ? null : proxyLabel(r).toLowerCase()) },
    ],
    align: 'left',
    width: 'w-[7.5rem] 2xl:w-[8.5rem]',
    render: (r) => <PlatformCell row={r} />,
  },
  {
    id: 'eligibility',
    title: null,
    sorts: [{ id: 'eligibility', label: 'Eligibility', header: 'Eligibility', numeric: false, value: (r) => (r.eligibilityVerdict === null ? null : r.eligible === true ? 0 : r.eligible === null ? 1 : 2) }],
    align: 'left',
    width: 'w-[8.5rem] 2xl:w-[11rem]',
    render: (r) => <EligibilityCell row={r} />,
  },
  {
    id: 'services',
    title: 'Services',
    sorts: [
      { id: 'asking', label: 'Services asking for hints', header: 'Asking', numeric: true, value: (r) => r.askingForHints },
      { id: 'hintsOn', label: 'Services with hints on', header: 'Hints on', numeric: true, value: (r) => r.hintsOn },
      { id: 'attention', label: 'Services needing attention', header: 'Attention', numeric: true, value: (r) => r.needingAttention },
    ],
    align: 'left',
    width: 'w-[8.5rem] 2xl:w-[9.5rem]',
    render: (r) => <ServicesCell row={r} />,
  },
  {
    id: 'cost',
    title: (
      <>
        Cross-zone <span className="normal-case">$/mo</span>
      </>
    ),
    sorts: [
      { id: 'cost', label: 'Cross-zone $ per month now', header: 'Now', numeric: true, value: (r) => r.crossZoneMonthly },
      { id: 'best', label: 'Cross-zone $ per month at best', header: 'At best', numeric: true, value: (r) => r.bestMonthly },
    ],
    align: 'right',
    width: 'w-[7.5rem] 2xl:w-[8.5rem]',
    render: (r) => <CostCell row={r} />,
  },
  {
    id: 'why',
    title: null,
    sorts: [{ id: 'why', label: 'Why: the costliest Service and the most common reason for attention', header: 'Why', numeric: false, value: (r) => r.topService?.monthlyCost ?? null }],
    align: 'left',
    width: null,
    render: (r) => <WhyCell row={r} />,
  },
];

const SORT_KEYS: readonly SortKey[] = COLUMNS.flatMap((c) => c.sorts);
const CLUSTER_SORT: SortKey = SORT_KEYS[0] as SortKey;
const sortKey = (key: FleetSortKey): SortKey => SORT_KEYS.find((k) => k.id === key) ?? CLUSTER_SORT;

/** The "why" column sorts by the costliest Service's cost, so numbers first on its first click too. */
const FIRST_ORDER: Readonly<Partial<Record<FleetSortKey, SortOrder>>> = { why: 'desc' };

/** The value a row sorts by in a column (`null`: no value, sorted last). */
export function fleetSortValue(row: FleetRow, key: FleetSortKey): SortValue {
  return sortKey(key).value(row);
}

/** The rows in the order of `key` and `order`: rows without a value last, ties by name (pure, exported for tests). */
export function sortFleetRows(rows: readonly FleetRow[], key: FleetSortKey, order: SortOrder): FleetRow[] {
  const column = sortKey(key);
  const sign = order === 'asc' ? 1 : -1;
  const byName = (a: FleetRow, b: FleetRow) => (a.displayName < b.displayName ? -1 : a.displayName > b.displayName ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return [...rows].sort((a, b) => {
    const x = column.value(a);
    const y = column.value(b);
    if (x === null || y === null) return x === y ? byName(a, b) : x === null ? 1 : -1;
    const diff = typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
    return diff !== 0 ? diff * sign : byName(a, b);
  });
}

/**
 * On a phone, one card per cluster instead of the table (which would show two of its columns): the
 * same cells, labelled, the "why" in full width; a "Sort by" list instead of the header buttons.
 */
function FleetCards({ rows, now, sort, onSort }: { readonly rows: readonly FleetRow[]; readonly now: string; readonly sort: { key: FleetSortKey; order: SortOrder }; readonly onSort: (key: FleetSortKey, order: SortOrder) => void }) {
  const label = 'text-[0.7rem] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400';
  return (
    <div className="space-y-3 md:hidden">
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
        Sort by
        <select
          value={`${sort.key}:${sort.order}`}
          onChange={(event) => {
            const [key, order] = event.target.value.split(':') as [FleetSortKey, SortOrder];
            onSort(key, order);
          }}
          className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
        >
          {SORT_KEYS.flatMap((k) =>
            (['desc', 'asc'] as const).map((order) => (
              <option key={`${k.id}:${order}`} value={`${k.id}:${order}`}>
                {k.label}, {k.numeric || k.id === 'why' ? (order === 'desc' ? 'highest first' : 'lowest first') : order === 'asc' ? 'A–Z' : 'Z–A'}
              </option>
            )),
          )}
        </select>
      </label>
      <ol className="space-y-3" aria-label="Clusters">
        {rows.map((row) => (
          <li key={row.id} data-cluster-card={row.id} className="space-y-2 rounded-lg border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900">
            <div className="flex items-start justify-between gap-3">
              <ClusterCell row={row} rowLink={false} />
              <CostCell row={row} />
            </div>
            <StateCell row={row} now={now} />
            <dl className="grid grid-cols-2 gap-x-3 gap-y-2">
              <div>
                <dt className={label}>Platform</dt>
                <dd>
                  <PlatformCell row={row} />
                </dd>
              </div>
              <div>
                <dt className={label}>Eligibility</dt>
                <dd>
                  <EligibilityCell row={row} />
                </dd>
              </div>
              <div className="col-span-2">
                <dt className={label}>Services</dt>
                <dd>
                  <ServicesCell row={row} />
                </dd>
              </div>
              <div className="col-span-2">
                <dt className={label}>Why</dt>
                <dd>
                  <WhyCell row={row} />
                </dd>
              </div>
            </dl>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function FleetTable({ rows, now, initialSort = 'cost', initialOrder = 'desc' }: { readonly rows: readonly FleetRow[]; readonly now: string; readonly initialSort?: FleetSortKey; readonly initialOrder?: SortOrder }) {
  const [sort, setSort] = useState<{ key: FleetSortKey; order: SortOrder }>({ key: initialSort, order: initialOrder });
  const sorted = useMemo(() => sortFleetRows(rows, sort.key, sort.order), [rows, sort]);
  const bodyRef = useRef<HTMLTableSectionElement>(null);

  const sortBy = (key: SortKey) =>
    setSort((current) => (current.key === key.id ? { key: key.id, order: current.order === 'asc' ? 'desc' : 'asc' } : { key: key.id, order: FIRST_ORDER[key.id] ?? (key.numeric ? 'desc' : 'asc') }));

  const onRowKey = (event: ReactKeyboardEvent<HTMLTableSectionElement>) => {
    if (!(event.target instanceof HTMLElement) || !event.target.matches('a[data-row-link]')) return;
    const links = [...(bodyRef.current?.querySelectorAll<HTMLAnchorElement>('a[data-row-link]') ?? [])];
    const at = links.indexOf(event.target as HTMLAnchorElement);
    const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: links.length - 1 };
    const to = moves[event.key];
    if (to === undefined || at === -1) return;
    event.preventDefault();
    links[Math.max(0, Math.min(links.length - 1, to))]?.focus();
  };

  if (rows.length === 0) {
    return (
      <div className="rounded-md border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
        <p className="font-medium">No cluster is configured.</p>
        <p className="text-sm text-slate-600 dark:text-slate-400">Point KUBECONFIG at a kubeconfig with contexts, or list them in ZONESCOPE_CONTEXTS.</p>
      </div>
    );
  }

  return (
    <div className="space-y-2">
      <FleetCards rows={sorted} now={now} sort={sort} onSort={(key, order) => setSort({ key, order })} />
      <p className="hidden text-xs text-slate-600 md:block xl:hidden dark:text-slate-400" aria-hidden="true">
        The table scrolls sideways: swipe or use the arrow keys on it →
      </p>
      <div className="hidden overflow-x-auto rounded-lg border border-slate-200 md:block bg-white dark:border-slate-800 dark:bg-slate-900" tabIndex={0} role="region" aria-label="Clusters table">
        <table className="w-full min-w-[70rem] table-fixed border-collapse text-sm">
          <caption className="sr-only">
            Every cluster with its state; platform, Kubernetes release and proxy mode; eligibility; Services asking for hints, with hints on and needing attention; cross-zone cost per month now and at best; and why. The buttons in the column headers sort; on a cluster link the arrow keys move between rows.
          </caption>
          <colgroup>
            {COLUMNS.map((c) => (
              <col key={c.id} className={c.width ?? undefined} />
            ))}
          </colgroup>
          <thead className="bg-slate-100 dark:bg-slate-800">
            <tr>
              {COLUMNS.map((c) => {
                const active = c.sorts.some((k) => k.id === sort.key);
                const right = c.align === 'right';
                return (
                  <th
                    key={c.id}
                    scope="col"
                    aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}
                    className={`px-3 py-2 align-bottom text-xs font-semibold uppercase tracking-wide text-slate-700 dark:text-slate-300 ${right ? 'text-right' : 'text-left'}`}
                  >
                    {c.title !== null ? <span className="block">{c.title}</span> : null}
                    <span className={`flex flex-wrap gap-x-2 gap-y-0.5 ${right ? 'justify-end' : ''}`}>
                      {c.sorts.map((k) => {
                        const on = k.id === sort.key;
                        return (
                          <button
                            key={k.id}
                            type="button"
                            onClick={() => sortBy(k)}
                            className={`inline-flex items-center gap-1 uppercase ${c.title !== null ? 'font-medium' : ''} ${right ? 'text-right' : 'text-left'}`}
                            title={`Sort by ${k.label}`}
                          >
                            <span>{k.header}</span>
                            {c.sorts.length > 1 && on ? <span className="sr-only">, sorted {sort.order === 'asc' ? 'ascending' : 'descending'}</span> : null}
                            <SortIcon order={on ? sort.order : null} className="h-3.5 w-3.5 shrink-0" />
                          </button>
                        );
                      })}
                    </span>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody ref={bodyRef} onKeyDown={onRowKey}>
            {sorted.map((row) => (
              <tr key={row.id} data-cluster={row.id} className="border-t border-slate-100 align-top hover:bg-slate-50 focus-within:bg-sky-50 dark:border-slate-800 dark:hover:bg-slate-800/50 dark:focus-within:bg-sky-950/40">
                {COLUMNS.map((c) => (
                  <td key={c.id} className={`px-3 py-2 ${c.align === 'right' ? 'text-right' : 'text-left'}`}>
                    {c.render(row, now)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

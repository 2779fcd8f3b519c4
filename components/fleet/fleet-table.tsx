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
import { ATTENTION } from '../shared/labels';
import { formatCount, formatUsd } from '../ui/format';
import { SortIcon } from '../ui/icons';
import { LINK } from '../ui/panel';
import { Badge } from '../ui/status';
import { freshnessTone, platformLabel, proxyLabel, shortTime } from './fleet-labels';

export type FleetSortKey = 'cluster' | 'state' | 'release' | 'platform' | 'eligibility' | 'proxy' | 'asking' | 'hintsOn' | 'attention' | 'cost' | 'best' | 'why';
export type SortOrder = 'asc' | 'desc';

type SortValue = string | number | null;

interface Column {
  readonly id: FleetSortKey;
  readonly label: string;
  readonly header: ReactNode;
  readonly align: 'left' | 'right';
  readonly width: string;
  /** Numbers sort largest first on the first click. */
  readonly numeric: boolean;
  /** The value sorted by; `null` sorts last in either direction. */
  value(row: FleetRow): SortValue;
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

function ClusterCell({ row }: { readonly row: FleetRow }) {
  return (
    <div className="min-w-0 space-y-0.5">
      {row.href !== null ? (
        <a href={row.href} data-row-link="" className={`${LINK} text-sm [overflow-wrap:anywhere]`} title={`Open the Overview of ${row.displayName}`}>
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
      <Badge tone={freshnessTone(f)} title={f.message ?? undefined}>
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
          {top.reason !== null ? <p className="line-clamp-2 text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">{top.reason}</p> : null}
          {top.fix !== null ? <p className="text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">Fix: {top.fix}</p> : null}
        </div>
      ) : null}
      {common !== null ? (
        <p>
          <span className="text-slate-600 dark:text-slate-400">Most common: </span>
          <a href={common.href} className={LINK} title={common.message}>
            {ATTENTION[common.reason].label} ({formatCount(common.services)} {common.services === 1 ? 'Service' : 'Services'})
          </a>
        </p>
      ) : null}
    </div>
  );
}

const COLUMNS: readonly Column[] = [
  { id: 'cluster', label: 'Cluster', header: 'Cluster', align: 'left', width: 'w-[10.5rem]', numeric: false, value: (r) => r.displayName.toLowerCase(), render: (r) => <ClusterCell row={r} /> },
  { id: 'state', label: 'State', header: 'State', align: 'left', width: 'w-[9rem]', numeric: false, value: (r) => FRESHNESS_RANK[r.freshness.kind], render: (r, now) => <StateCell row={r} now={now} /> },
  {
    id: 'release',
    label: 'Kubernetes release',
    header: 'Release',
    align: 'right',
    width: 'w-[5.5rem]',
    numeric: true,
    value: (r) => releaseValue(r.release),
    render: (r) => (r.release === null ? <Missing /> : <span className="tabular-nums" title={r.gitVersion ?? undefined}>{r.release}</span>),
  },
  { id: 'platform', label: 'Platform', header: 'Platform', align: 'left', width: 'w-[6rem]', numeric: false, value: (r) => (r.platform === null ? null : platformLabel(r.platform).toLowerCase()), render: (r) => (r.platform === null ? <Missing /> : platformLabel(r.platform)) },
  { id: 'eligibility', label: 'Eligibility', header: 'Eligibility', align: 'left', width: 'w-[9.5rem]', numeric: false, value: (r) => (r.eligibilityVerdict === null ? null : r.eligible === true ? 0 : r.eligible === null ? 1 : 2), render: (r) => <EligibilityCell row={r} /> },
  {
    id: 'proxy',
    label: 'Proxy mode',
    header: 'Proxy',
    align: 'left',
    width: 'w-[5.5rem]',
    numeric: false,
    value: (r) => (r.proxyMode === null ? null : proxyLabel(r).toLowerCase()),
    render: (r) =>
      r.proxyMode === null ? (
        <Missing />
      ) : (
        <span className="space-y-1">
          <span className="block">{proxyLabel(r)}</span>
          {r.honoursHints === false ? <Badge tone="error">Ignores hints</Badge> : null}
        </span>
      ),
  },
  { id: 'asking', label: 'Services asking for hints', header: 'Asking for hints', align: 'right', width: 'w-[5rem]', numeric: true, value: (r) => r.askingForHints, render: (r) => <Count value={r.askingForHints} /> },
  { id: 'hintsOn', label: 'Services with hints on', header: 'Hints on', align: 'right', width: 'w-[4.5rem]', numeric: true, value: (r) => r.hintsOn, render: (r) => <Count value={r.hintsOn} /> },
  {
    id: 'attention',
    label: 'Services needing attention',
    header: 'Need attention',
    align: 'right',
    width: 'w-[5.5rem]',
    numeric: true,
    value: (r) => r.needingAttention,
    render: (r) => (r.needingAttention === null ? <Missing /> : r.needingAttention > 0 ? <span className="font-semibold tabular-nums text-amber-800 dark:text-amber-300">{formatCount(r.needingAttention)}</span> : <Count value={0} />),
  },
  {
    id: 'cost',
    label: 'Cross-zone $ per month now',
    header: (
      <>
        Cross-zone <span className="normal-case">$/mo</span>
      </>
    ),
    align: 'right',
    width: 'w-[6rem]',
    numeric: true,
    value: (r) => r.crossZoneMonthly,
    render: (r) =>
      r.crossZoneMonthly === null ? (
        <Missing why={r.unknown[0]} />
      ) : (
        <span className="flex flex-col items-end">
          <span className="font-semibold tabular-nums">{formatUsd(r.crossZoneMonthly)}</span>
          <span className="text-xs text-slate-600 dark:text-slate-400">{r.volumeSource?.replace('-', ' ') ?? (r.measured ? 'measured' : 'assumed')}</span>
        </span>
      ),
  },
  {
    id: 'best',
    label: 'Cross-zone $ per month at best, and the saving',
    header: (
      <>
        At best <span className="normal-case">$/mo</span>
      </>
    ),
    align: 'right',
    width: 'w-[6rem]',
    numeric: true,
    value: (r) => r.bestMonthly,
    render: (r) =>
      r.bestMonthly === null ? (
        <Missing why={r.unknown[0]} />
      ) : (
        <span className="flex flex-col items-end">
          <span className="tabular-nums">{formatUsd(r.bestMonthly)}</span>
          {r.saving !== null && r.saving > 0 ? <span className="text-xs tabular-nums text-emerald-800 dark:text-emerald-300">saves {formatUsd(r.saving)}</span> : null}
        </span>
      ),
  },
  { id: 'why', label: 'Why: the costliest Service and the most common reason for attention', header: 'Why', align: 'left', width: 'w-[12rem]', numeric: false, value: (r) => r.topService?.monthlyCost ?? null, render: (r) => <WhyCell row={r} /> },
];

const CLUSTER_COLUMN: Column = COLUMNS[0] as Column;

/** The "why" column sorts by the costliest Service's cost, so numbers first on its first click too. */
const FIRST_ORDER: Readonly<Partial<Record<FleetSortKey, SortOrder>>> = { why: 'desc' };

/** The value a row sorts by in a column (`null`: no value, sorted last). */
export function fleetSortValue(row: FleetRow, key: FleetSortKey): SortValue {
  return (COLUMNS.find((c) => c.id === key) ?? CLUSTER_COLUMN).value(row);
}

/** The rows in the order of `key` and `order`: rows without a value last, ties by name (pure, exported for tests). */
export function sortFleetRows(rows: readonly FleetRow[], key: FleetSortKey, order: SortOrder): FleetRow[] {
  const column = COLUMNS.find((c) => c.id === key) ?? CLUSTER_COLUMN;
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

export function FleetTable({ rows, now, initialSort = 'cost', initialOrder = 'desc' }: { readonly rows: readonly FleetRow[]; readonly now: string; readonly initialSort?: FleetSortKey; readonly initialOrder?: SortOrder }) {
  const [sort, setSort] = useState<{ key: FleetSortKey; order: SortOrder }>({ key: initialSort, order: initialOrder });
  const sorted = useMemo(() => sortFleetRows(rows, sort.key, sort.order), [rows, sort]);
  const bodyRef = useRef<HTMLTableSectionElement>(null);

  const sortBy = (column: Column) =>
    setSort((current) =>
      current.key === column.id ? { key: column.id, order: current.order === 'asc' ? 'desc' : 'asc' } : { key: column.id, order: FIRST_ORDER[column.id] ?? (column.numeric ? 'desc' : 'asc') },
    );

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
      <p className="text-xs text-slate-600 xl:hidden dark:text-slate-400" aria-hidden="true">
        The table scrolls sideways: swipe or use the arrow keys on it →
      </p>
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900" tabIndex={0} role="region" aria-label="Clusters table">
        <table className="w-full min-w-[84rem] table-fixed border-collapse text-sm">
          <caption className="sr-only">
            Every cluster with its state, Kubernetes release, platform, eligibility, proxy mode, Services asking for hints, with hints on and needing attention, cross-zone cost per month now and at best, and why. Column headers sort; on a cluster link the arrow keys move between rows.
          </caption>
          <colgroup>
            {COLUMNS.map((c) => (
              <col key={c.id} className={c.width} />
            ))}
          </colgroup>
          <thead className="bg-slate-100 dark:bg-slate-800">
            <tr>
              {COLUMNS.map((c) => {
                const active = sort.key === c.id;
                return (
                  <th
                    key={c.id}
                    scope="col"
                    aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}
                    className={`px-3 py-2 align-bottom text-xs font-semibold uppercase tracking-wide text-slate-700 dark:text-slate-300 ${c.align === 'right' ? 'text-right' : 'text-left'}`}
                  >
                    <button type="button" onClick={() => sortBy(c)} className={`inline-flex items-center gap-1 uppercase ${c.align === 'right' ? 'ml-auto text-right' : 'text-left'}`} title={`Sort by ${c.label}`}>
                      <span>{c.header}</span>
                      <SortIcon order={active ? sort.order : null} className="h-3.5 w-3.5 shrink-0" />
                    </button>
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

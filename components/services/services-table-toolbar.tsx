'use client';

/**
 * The Services table's toolbar: search (`/` focuses it; Enter opens the only matching Service),
 * namespace, mechanism, reason, type, HPA scale-down and measured-vs-predicted filters, "needs
 * attention only", the sort below the `lg`
 * breakpoint (above it the column headers sort), how many Services are shown, and CSV and JSON
 * exports of exactly those rows (`GET /api/v1/services?format=`, in the page's cluster).
 */
import { useMemo } from 'react';
import type { RefObject } from 'react';
import { withClusterBase } from '@/lib/shared/cluster-path';
import type { HpaFilter } from '@/lib/shared/service-query';
import { ATTENTION_REASONS, firstSortOrder, HPA_FILTERS, MEASURED_DIFF_CHOICES, SERVICE_MECHANISMS, SERVICE_TYPES } from '@/lib/shared/service-query';
import type { TableQuery, TableSortKey } from '@/lib/shared/services-table-url';
import { tableExportHref, tableQueryFilters } from '@/lib/shared/services-table-url';
import { useClusterBase } from '../layout/cluster-base';
import { ATTENTION } from '../shared/labels';
import { mechanismLabel } from '../ui/format';
import { LINK } from '../ui/panel';
import type { ColumnConfig } from './services-table-columns';

const CONTROL =
  'h-9 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';
/** A select: its column's width on a phone (two columns of filters), its own from `sm`. */
const SELECT = `${CONTROL} w-full min-w-0 sm:w-auto`;
const FIELD = 'flex min-w-0 flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300';

const MECHANISM_OPTIONS: readonly { readonly value: string; readonly label: string }[] = SERVICE_MECHANISMS.map((m) => ({ value: m, label: mechanismLabel(m) }));

/** The `hpa` filter's options. */
export const HPA_FILTER_LABEL: Readonly<Record<HpaFilter, string>> = {
  off: 'Hints off at some count of the range',
  'off-at-min': 'Hints off at minReplicas',
  on: 'Hints on across the range',
  none: 'No HPA',
};

/** The `measuredDiff` filter's option for a threshold in points. */
export function measuredDiffLabel(points: number): string {
  return points === 0 ? 'Measured by flows (any difference)' : `Differs by ≥ ${points} points`;
}

export function ServicesTableToolbar({
  query,
  onChange,
  columns,
  namespaces,
  shown,
  total,
  interactive,
  searchRef,
  onOpenOnly,
}: {
  readonly query: TableQuery;
  /** A change of the filters (or of the sort, below `lg`). */
  readonly onChange: (patch: Partial<TableQuery>) => void;
  readonly columns: readonly ColumnConfig[];
  /** Every namespace that has Services. */
  readonly namespaces: readonly string[];
  /** Services matching the query, and all of them. */
  readonly shown: number;
  readonly total: number;
  /** React has attached its handlers (the server-rendered controls look the same before). */
  readonly interactive: boolean;
  readonly searchRef: RefObject<HTMLInputElement | null>;
  /** Opens the only matching Service; `null` unless exactly one matches. */
  readonly onOpenOnly: (() => void) | null;
}) {
  const base = useClusterBase();
  const namespaceOptions = useMemo(
    () =>
      namespaces.map((ns) => (
        <option key={ns} value={ns}>
          {ns}
        </option>
      )),
    [namespaces],
  );
  const filtered = tableQueryFilters(query);
  return (
    <div className="grid grid-cols-2 items-end gap-2 sm:flex sm:flex-wrap sm:gap-3" role="search" aria-label="Filter Services" data-interactive={interactive ? 'true' : undefined}>
      <label className={`${FIELD} col-span-2`}>
        <span>
          Search{' '}
          <kbd className="rounded border border-slate-300 px-1 font-normal text-slate-600 dark:border-slate-600 dark:text-slate-400" aria-hidden="true">
            /
          </kbd>
        </span>
        <input
          ref={searchRef}
          type="search"
          value={query.q}
          onChange={(e) => onChange({ q: e.target.value })}
          onKeyDown={(e) => {
            // Enter opens the only match.
            if (e.key === 'Enter' && onOpenOnly !== null) {
              e.preventDefault();
              onOpenOnly();
            }
          }}
          aria-keyshortcuts="/"
          aria-describedby="services-search-help"
          placeholder="namespace/name or reason"
          className={`${CONTROL} w-full min-w-0 placeholder:text-slate-500 sm:w-72`}
        />
      </label>
      <p id="services-search-help" className="sr-only">
        Press slash to come back here; Enter opens the Service when exactly one matches.
      </p>
      <label className={FIELD}>
        Namespace
        <select value={query.ns} onChange={(e) => onChange({ ns: e.target.value })} className={`${CONTROL} w-full min-w-0 sm:w-48`}>
          <option value="">All namespaces ({namespaces.length})</option>
          {namespaceOptions}
        </select>
      </label>
      <label className={FIELD}>
        Mechanism
        <select value={query.mechanism} onChange={(e) => onChange({ mechanism: e.target.value })} className={SELECT}>
          <option value="">Any mechanism</option>
          {MECHANISM_OPTIONS.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <label className={FIELD}>
        Reason
        <select value={query.reason} onChange={(e) => onChange({ reason: e.target.value })} className={SELECT}>
          <option value="">Any reason</option>
          {ATTENTION_REASONS.map((r) => (
            <option key={r} value={r}>
              {ATTENTION[r].label}
            </option>
          ))}
        </select>
      </label>
      <label className={FIELD}>
        Type
        <select value={query.type} onChange={(e) => onChange({ type: e.target.value })} className={SELECT}>
          <option value="">Any type</option>
          {SERVICE_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label className={FIELD}>
        HPA scale-down
        <select value={query.hpa} onChange={(e) => onChange({ hpa: e.target.value })} className={SELECT}>
          <option value="">Any (HPA or not)</option>
          {HPA_FILTERS.map((h) => (
            <option key={h} value={h}>
              {HPA_FILTER_LABEL[h]}
            </option>
          ))}
        </select>
      </label>
      <label className={FIELD}>
        Measured vs predicted
        <select
          value={query.measuredDiff === null ? '' : String(query.measuredDiff)}
          onChange={(e) => onChange({ measuredDiff: e.target.value === '' ? null : Number(e.target.value) })}
          className={SELECT}
        >
          <option value="">Any Service</option>
          {MEASURED_DIFF_CHOICES.map((points) => (
            <option key={points} value={String(points)}>
              {measuredDiffLabel(points)}
            </option>
          ))}
        </select>
      </label>
      <label className="col-span-2 flex h-9 items-center gap-2 text-sm">
        <input type="checkbox" checked={query.attention} onChange={(e) => onChange({ attention: e.target.checked })} className="h-4 w-4" />
        Needs attention only
      </label>
      <label className={`${FIELD} lg:hidden`}>
        Sort by
        <select
          value={query.sort}
          onChange={(e) => {
            const sort = e.target.value as TableSortKey;
            onChange({ sort, order: firstSortOrder(sort) });
          }}
          className={SELECT}
        >
          {columns.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      <div className="col-span-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm sm:ml-auto">
        <p className="text-slate-700 dark:text-slate-300" aria-live="polite">
          {shown === total ? `${total.toLocaleString('en-US')} Services` : `${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} Services`}
        </p>
        {total > 0 ? (
          <p className="flex items-center gap-2">
            <span className="text-slate-600 dark:text-slate-400">{filtered ? 'Export these:' : 'Export:'}</span>
            <a href={withClusterBase(base, tableExportHref(query, 'csv'))} download className={LINK}>
              CSV
            </a>
            <a href={withClusterBase(base, tableExportHref(query, 'json'))} download className={LINK}>
              JSON
            </a>
          </p>
        ) : null}
      </div>
    </div>
  );
}

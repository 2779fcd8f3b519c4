/**
 * The Services table's columns as configs (Headlamp style): `id` is the sort key, so what sorting
 * uses stays separate from `render`, what the cell shows — a figure, or, when a type it depends on
 * could not be read, "unknown" with why (never a guess).
 */
import type { ReactNode } from 'react';
import type { TableSortKey } from '@/lib/shared/services-table-url';
import type { ServiceTableData } from '@/lib/views/services/table';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';
import { ClusterLink } from '../layout/cluster-base';
import { formatGb, VOLUME_SOURCE, VolumeSourceMarker } from '../overview/zone-traffic-source';
import { ATTENTION } from '../shared/labels';
import { formatPercent, formatUsd, mechanismLabel, shortZoneName } from '../ui/format';
import { LINK } from '../ui/panel';
import { Badge } from '../ui/status';
import type { Row } from './services-table-rows';

export interface ColumnConfig {
  /** Also the sort key of the column. */
  readonly id: TableSortKey;
  readonly header: ReactNode;
  readonly label: string;
  readonly width: string;
  readonly align?: 'right';
  /** What the cell shows (`active`: the row holds the table's roving tab stop). */
  readonly render: (row: Row, active: boolean) => ReactNode;
}

const HINTS_OBSERVED_LABEL = { all: 'all endpoints', some: 'some endpoints', none: 'none' } as const;

function ZoneCounts({ counts, zones }: { readonly counts: readonly number[]; readonly zones: readonly string[] }) {
  return (
    <span className="flex flex-wrap gap-x-2 gap-y-0.5 font-mono text-xs">
      {counts.map((count, i) => (
        <span key={zones[i]} title={`${zones[i]}: ${count} ready endpoint(s)`} className={count === 0 ? 'font-semibold text-amber-800 dark:text-amber-300' : undefined}>
          <span className="text-slate-500 dark:text-slate-400">{shortZoneName(zones, zones[i] ?? '', UNKNOWN_ZONE)}</span> {count}
          {count === 0 ? <span className="sr-only"> (no endpoint in this zone)</span> : null}
        </span>
      ))}
    </span>
  );
}

/** A cell whose figure is unknown (a type it depends on could not be read): says so instead of guessing. */
function UnknownCell({ message, align }: { readonly message: string; readonly align?: 'right' }) {
  return (
    <span className={`block text-xs text-slate-600 dark:text-slate-400 ${align === 'right' ? 'text-right' : ''}`} title={message}>
      <Badge tone="warn">unknown</Badge>
      <span className="sr-only"> {message}</span>
    </span>
  );
}

/** A cell for a Service the cluster-wide traffic figures do not count (no traffic to price). */
function NoFigure({ why }: { readonly why: string }) {
  return (
    <span className="block text-right text-xs text-slate-500 dark:text-slate-400" title={why}>
      —<span className="sr-only"> {why}</span>
    </span>
  );
}

/**
 * Prefetches a row's Service view when the user shows the intent to open it (pointer over the
 * link, touch, keyboard focus). The row links do not prefetch on entering the viewport: every sort
 * or filter brings a screenful of new rows, and prefetching each of them would fetch dozens of
 * Service views per interaction that the user mostly never opens.
 */
export type PrefetchService = (href: string) => void;

export function buildColumns(zones: readonly string[], unknown: ServiceTableData['unknown'], pricing: ServiceTableData['pricing'], prefetch: PrefetchService): ColumnConfig[] {
  const price = pricing === null ? 'the price of a cross-zone GB' : `${formatUsd(pricing.costPerCrossZoneGb)} per cross-zone GB (${pricing.note.replace(/\.$/, '')})`;
  return [
    {
      id: 'service',
      label: 'Service',
      header: 'Service',
      width: 'w-[19%]',
      render: (row, active) => (
        <span className="block min-w-0">
          {/* Whole names, broken anywhere when the column is too narrow (never cut to a prefix). */}
          <ClusterLink
            href={row.href}
            prefetch={false}
            onMouseEnter={() => prefetch(row.href)}
            onTouchStart={() => prefetch(row.href)}
            onFocus={() => prefetch(row.href)}
            className={`${LINK} block font-mono text-sm [overflow-wrap:anywhere]`}
            title={`${row.namespace}/${row.name}`}
            tabIndex={active ? 0 : -1}
            data-row-link=""
          >
            <span className="text-slate-600 dark:text-slate-400">{row.namespace}/</span>
            {row.name}
          </ClusterLink>
          <span className="text-xs text-slate-600 dark:text-slate-400">{row.type}</span>
        </span>
      ),
    },
    {
      id: 'mechanism',
      label: 'Mechanism',
      header: 'Mechanism',
      width: 'w-[11%]',
      // Narrow columns break camelCase names between words ("traffic·Distribution"), not mid-word.
      render: (row) => (
        <span className={`font-mono text-xs [overflow-wrap:anywhere] ${row.mechanism === 'none' ? 'text-slate-600 dark:text-slate-400' : ''}`}>
          {mechanismLabel(row.mechanism)
            .split(/(?=[A-Z])/)
            .map((part, i) => (i === 0 ? part : [<wbr key={i} />, part]))}
        </span>
      ),
    },
    {
      id: 'hints',
      label: 'Hints (on slices / expected)',
      header: (
        <>
          Hints <span className="font-normal normal-case">on slices / expected</span>
        </>
      ),
      width: 'w-[12%]',
      render: (row) => {
        if (unknown.hints !== null) return <UnknownCell message={unknown.hints} />;
        const mismatch = row.hintsExpected !== (row.hintsObserved === 'all');
        return (
          <span className="flex flex-col items-start gap-0.5 text-xs">
            <Badge tone={row.hintsObserved === 'all' ? 'ok' : row.hintsObserved === 'some' ? 'warn' : 'neutral'}>now: {HINTS_OBSERVED_LABEL[row.hintsObserved]}</Badge>
            <Badge tone={mismatch ? 'warn' : row.hintsExpected ? 'ok' : 'neutral'}>expected: {row.hintsExpected ? 'on' : 'off'}</Badge>
          </span>
        );
      },
    },
    {
      id: 'reason',
      label: 'Reason / attention',
      header: 'Reason when off / attention',
      width: 'w-[20%]',
      render: (row) =>
        row.reason || row.attention ? (
          <span className="block min-w-0 text-xs">
            {row.attention ? (
              <Badge tone={ATTENTION[row.attention].tone} className="mb-0.5">
                {ATTENTION[row.attention].label}
              </Badge>
            ) : null}
            <span className="block text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">
              {row.reason}
            </span>
          </span>
        ) : (
          <span className="text-xs text-slate-500 dark:text-slate-400">—</span>
        ),
    },
    {
      id: 'endpoints',
      label: 'Ready endpoints per zone',
      header: 'Ready endpoints per zone',
      width: 'w-[12%]',
      render: (row) =>
        unknown.endpoints !== null ? <UnknownCell message={unknown.endpoints} /> : (
        <span className="block">
          <span className="text-xs tabular-nums">{row.readyEndpoints} ready</span>
          <ZoneCounts counts={row.endpointsByZone} zones={zones} />
        </span>
      ),
    },
    {
      id: 'crossZone',
      label: 'Expected cross-zone share',
      header: 'Cross-zone share',
      width: 'w-[10%]',
      align: 'right',
      render: (row) =>
        unknown.crossZone !== null ? <UnknownCell message={unknown.crossZone} align="right" /> : (
        <span className="block text-right text-sm tabular-nums">
          {formatPercent(row.crossZoneFraction)}
          {row.measuredCrossZone !== null && Math.abs(row.measuredCrossZone - row.crossZoneFraction) >= 0.0005 ? (
            <span className="block text-xs font-medium text-amber-800 dark:text-amber-300" title="Cross-zone share measured by zone-resolved flows (what the cost column uses)">
              measured: {formatPercent(row.measuredCrossZone)}
            </span>
          ) : null}
          {Math.abs(row.crossZoneIfAuto - row.crossZoneFraction) >= 0.0005 ? (
            <span className="block text-xs text-slate-600 dark:text-slate-400" title="Expected cross-zone share once topology mode Auto is set">
              if Auto: {formatPercent(row.crossZoneIfAuto)}
            </span>
          ) : null}
        </span>
      ),
    },
    {
      id: 'volume',
      label: 'Volume (GB per month)',
      header: (
        <>
          Volume <span className="font-normal normal-case">GB/mo</span>
        </>
      ),
      width: 'w-[8%]',
      align: 'right',
      render: (row) => {
        if (row.gbPerMonth === null || row.volumeSource === null) return <NoFigure why="No traffic figures for this Service" />;
        if (row.volumeSource === 'assumed' && unknown.endpoints !== null) return <UnknownCell message={unknown.endpoints} align="right" />;
        return (
          <span className="flex flex-col items-end gap-0.5 text-right">
            <span className="text-sm tabular-nums">{formatGb(row.gbPerMonth)}</span>
            <VolumeSourceMarker kind={row.volumeSource} />
            <span className="sr-only">, {VOLUME_SOURCE[row.volumeSource].title}</span>
          </span>
        );
      },
    },
    {
      id: 'cost',
      label: 'Cross-zone $ per month',
      header: (
        <>
          Cross-zone <span className="font-normal normal-case">$/mo</span>
        </>
      ),
      width: 'w-[8%]',
      align: 'right',
      render: (row) => {
        if (unknown.crossZone !== null) return <UnknownCell message={unknown.crossZone} align="right" />;
        if (row.monthlyCost === null) return <NoFigure why="No traffic figures for this Service" />;
        return (
          <span
            className="block text-right text-sm tabular-nums"
            title={`${formatPercent(row.measuredCrossZone ?? row.crossZoneFraction)} cross-zone (${row.measuredCrossZone !== null ? 'measured share' : 'predicted share'}) of the volume × ${price}`}
          >
            {formatUsd(row.monthlyCost)}
            <span className="sr-only"> at the {row.measuredCrossZone !== null ? 'measured' : 'predicted'} cross-zone share</span>
          </span>
        );
      },
    },
  ];
}

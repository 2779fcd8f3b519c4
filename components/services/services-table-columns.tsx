/**
 * The Services table's columns as configs (Headlamp style): `id` is the sort key, so what sorting
 * uses stays separate from `render`, what the cell shows — a figure, or, when a type it depends on
 * could not be read, "unknown" with why (never a guess). On a phone only the columns marked
 * `phone` show (Service, hints, cross-zone share, cost), so the table fits the screen.
 */
import type { ReactNode } from 'react';
import { MEASURED_DIFF_ATTENTION } from '@/lib/shared/service-query';
import type { TableSortKey } from '@/lib/shared/services-table-url';
import type { ServiceTableData } from '@/lib/views/services/table';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';
import { ClusterLink } from '../layout/cluster-base';
import { formatGb, VOLUME_SOURCE, VolumeSourceMarker } from '../overview/zone-traffic-source';
import { ATTENTION } from '../shared/labels';
import { formatPercent, formatUsd, mechanismLabel, shortZoneName } from '../ui/format';
import { LINK } from '../ui/panel';
import { Badge, TONE_TEXT, ToneIcon } from '../ui/status';
import { ReasonCell } from './reason-cell';
import type { Row } from './services-table-rows';

export interface ColumnConfig {
  /** Also the sort key of the column. */
  readonly id: TableSortKey;
  readonly header: ReactNode;
  readonly label: string;
  /** The column's width from the `md` breakpoint (a Tailwind width class). */
  readonly width: string;
  /** Shown on a phone (below `md`), with this width; the other columns show from `md`. */
  readonly phone?: string;
  /** A shorter header for a phone's narrow column. */
  readonly phoneHeader?: string;
  readonly align?: 'right';
  /** What the cell shows (`active`: the row holds the table's roving tab stop). */
  readonly render: (row: Row, active: boolean) => ReactNode;
}

const HINTS_OBSERVED_LABEL = { all: 'all endpoints', some: 'some endpoints', none: 'none' } as const;
/** The same, short, for a phone's narrow column. */
const HINTS_OBSERVED_SHORT = { all: 'all', some: 'some', none: 'none' } as const;

/** `+12.3`, `−4.0`, `±0.0`: a difference in points, signed (a true minus sign). */
export function formatPoints(points: number): string {
  return `${points > 0 ? '+' : points < 0 ? '−' : '±'}${Math.abs(points).toFixed(1)}`;
}

/** `3`, `3 and 4`, `3, 4 and 6`; past `shown` counts, `3, 4, … (5 counts)`. */
export function listCounts(counts: readonly number[], shown = 3): string {
  if (counts.length > shown) return `${counts.slice(0, shown).join(', ')}, … (${counts.length} counts)`;
  if (counts.length <= 1) return counts.join('');
  return `${counts.slice(0, -1).join(', ')} and ${counts[counts.length - 1]}`;
}

/**
 * What a row's HPA does to its hints, in a sentence (the cell's title and what screen readers
 * hear), `null` without an HPA or when unknown.
 */
export function hpaSentence(row: Pick<Row, 'hpaScaleDown' | 'hpaRange' | 'mechanism'>): string | null {
  const range = row.hpaRange;
  if (range === null) return null;
  const span = `${range.minReplicas}–${range.maxReplicas}`;
  const others = range.hintsOffAt.filter((n) => n !== range.minReplicas);
  switch (row.hpaScaleDown) {
    case 'off-at-min':
      return `Hints turn off when the HPA scales down to minReplicas ${range.minReplicas}: Σ per-zone minimums exceed ${range.minReplicas} ready endpoints${others.length > 0 ? ` (also at ${listCounts(others)})` : ''}. HPA range ${span}.`;
    case 'off-in-range':
      return `Hints are on at minReplicas ${range.minReplicas} but off at ${listCounts(range.hintsOffAt)} replicas, within the HPA range ${span} (Σ per-zone minimums exceed the count).`;
    case 'on':
      return `Hints stay on at every replica count of the HPA range ${span}: Σ per-zone minimums never exceed the count.`;
    case 'not-applicable':
      return row.mechanism === 'topology-mode' || row.mechanism === 'legacy-annotation'
        ? `HPA range ${span}; the cluster has no zone CPU ratios, so hints are off at every count.`
        : `HPA range ${span}; no per-zone minimums apply: this Service's hints do not come from topology mode Auto.`;
    default:
      return null;
  }
}

/** The HPA column's cell: hints off at minReplicas / at other counts / on throughout, and the range. */
function HpaCell({ row, unknown }: { readonly row: Row; readonly unknown: string | null }) {
  if (row.hpaScaleDown === 'unknown') return <UnknownCell message={unknown ?? 'unknown: zonescope could not look up the HPA'} />;
  const sentence = hpaSentence(row);
  if (row.hpaRange === null || sentence === null) {
    return (
      <span className="text-xs text-slate-600 dark:text-slate-400" title="No HPA scales this Service's Deployment">
        no HPA
      </span>
    );
  }
  const { minReplicas, maxReplicas, hintsOffAt } = row.hpaRange;
  const badge =
    row.hpaScaleDown === 'off-at-min' ? (
      <Badge tone="error">off at min {minReplicas}</Badge>
    ) : row.hpaScaleDown === 'off-in-range' ? (
      <Badge tone="warn">off at {listCounts(hintsOffAt, 2)}</Badge>
    ) : row.hpaScaleDown === 'on' ? (
      <Badge tone="ok">stays on</Badge>
    ) : (
      <span className="text-xs text-slate-600 dark:text-slate-400">n/a</span>
    );
  return (
    <span className="flex flex-col items-start gap-0.5 text-xs" title={sentence}>
      <span aria-hidden="true">{badge}</span>
      <span className="tabular-nums text-slate-600 dark:text-slate-400" aria-hidden="true">
        HPA {minReplicas}–{maxReplicas}
      </span>
      <span className="sr-only">{sentence}</span>
    </span>
  );
}

/** The measured-minus-predicted column's cell: signed points, marked from {@link MEASURED_DIFF_ATTENTION}; blank unless measured with flows. */
function MeasuredDiffCell({ row }: { readonly row: Row }) {
  const points = row.measuredMinusPredicted;
  if (points === null || row.measuredCrossZone === null) return <NoFigure why="Not measured by zone-resolved flows: nothing to compare with the prediction" />;
  const large = Math.abs(points) >= MEASURED_DIFF_ATTENTION;
  const what = `Measured ${formatPercent(row.measuredCrossZone)} cross-zone by zone-resolved flows, predicted ${formatPercent(row.crossZoneFraction)}`;
  return (
    <span className={`block text-right text-sm tabular-nums ${large ? 'font-semibold text-amber-800 dark:text-amber-300' : ''}`} title={`${what}: ${formatPoints(points)} points`}>
      {formatPoints(points)}
      <span className="sr-only"> points ({what})</span>
    </span>
  );
}

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
      width: 'md:w-[14%]',
      phone: 'w-[36%]',
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
          {/* On a phone the reason column is hidden: the attention badge shows under the name. */}
          {row.attention ? (
            <span className={`mt-0.5 flex items-start gap-1 text-xs font-medium md:hidden ${TONE_TEXT[ATTENTION[row.attention].tone]}`}>
              <ToneIcon tone={ATTENTION[row.attention].tone} className="mt-px h-3.5 w-3.5 shrink-0" />
              {ATTENTION[row.attention].label}
            </span>
          ) : null}
        </span>
      ),
    },
    {
      id: 'mechanism',
      label: 'Mechanism',
      header: 'Mechanism',
      width: 'md:w-[9%]',
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
      width: 'md:w-[12%]',
      phone: 'w-[26%]',
      phoneHeader: 'Hints now / exp.',
      render: (row) => {
        if (unknown.hints !== null) return <UnknownCell message={unknown.hints} />;
        const mismatch = row.hintsExpected !== (row.hintsObserved === 'all');
        return (
          <span className="flex flex-col items-start gap-0.5 text-xs">
            <Badge tone={row.hintsObserved === 'all' ? 'ok' : row.hintsObserved === 'some' ? 'warn' : 'neutral'}>
              now: <span className="md:hidden">{HINTS_OBSERVED_SHORT[row.hintsObserved]}</span>
              <span className="hidden md:inline">{HINTS_OBSERVED_LABEL[row.hintsObserved]}</span>
            </Badge>
            <Badge tone={mismatch ? 'warn' : row.hintsExpected ? 'ok' : 'neutral'}>
              <span className="md:hidden">exp.</span>
              <span className="hidden md:inline">expected:</span> {row.hintsExpected ? 'on' : 'off'}
            </Badge>
          </span>
        );
      },
    },
    {
      id: 'reason',
      label: 'Reason / attention',
      header: 'Reason when off / attention',
      width: 'md:w-[14%]',
      render: (row, active) => <ReasonCell row={row} active={active} />,
    },
    {
      id: 'endpoints',
      label: 'Ready endpoints per zone',
      header: 'Ready endpoints per zone',
      width: 'md:w-[9%]',
      render: (row) =>
        unknown.endpoints !== null ? <UnknownCell message={unknown.endpoints} /> : (
        <span className="block">
          <span className="text-xs tabular-nums">{row.readyEndpoints} ready</span>
          <ZoneCounts counts={row.endpointsByZone} zones={zones} />
        </span>
      ),
    },
    {
      id: 'hpa',
      label: 'HPA scale-down (hints at minReplicas to maxReplicas)',
      header: (
        <>
          HPA scale-down <span className="font-normal normal-case">hints, min–max</span>
        </>
      ),
      width: 'md:w-[9%]',
      render: (row) => <HpaCell row={row} unknown={unknown.hpa} />,
    },
    {
      id: 'crossZone',
      label: 'Expected cross-zone share',
      header: 'Cross-zone share',
      width: 'md:w-[8%]',
      phone: 'w-[20%]',
      phoneHeader: 'Cross-zone',
      align: 'right',
      render: (row) =>
        unknown.crossZone !== null ? <UnknownCell message={unknown.crossZone} align="right" /> : (
        <span className="block text-right text-sm tabular-nums">
          <span className="whitespace-nowrap">{formatPercent(row.crossZoneFraction)}</span>
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
      id: 'measuredDiff',
      label: 'Measured minus predicted cross-zone share (points)',
      header: (
        <>
          Measured − predicted <span className="font-normal normal-case">points</span>
        </>
      ),
      width: 'md:w-[9%]',
      align: 'right',
      render: (row) => <MeasuredDiffCell row={row} />,
    },
    {
      id: 'volume',
      label: 'Volume (GB per month)',
      header: (
        <>
          Volume <span className="font-normal normal-case">GB/mo</span>
        </>
      ),
      width: 'md:w-[8%]',
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
      width: 'md:w-[8%]',
      phone: 'w-[18%]',
      phoneHeader: '$/mo',
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

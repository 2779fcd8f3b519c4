'use client';

/**
 * The Services table's reason cell: the attention badge and a short chip for the controller's
 * reason (its bounded code, lib/topology/report/hints-reason.ts), the full message on demand. The
 * chip is a button (`aria-expanded`) that shows the message under it; while folded the message is
 * the chip's title and stays in the cell for screen readers (visually hidden), so the row keeps
 * one line and nothing is lost. Only the row holding the table's tab stop has the chip in the tab
 * order (the rows are one roving tab stop: Tab goes from its link to its chip).
 */
import { useId, useState } from 'react';
import type { HintsReasonCode } from '@/lib/topology/report/hints-reason';
import { reasonCodeOfMessage } from '@/lib/topology/report/hints-reason';
import { ATTENTION } from '../shared/labels';
import { Badge } from '../ui/status';
import type { Row } from './services-table-rows';

/** A few words per reason code: the chip's label (the sentence is `HINTS_REASON_TEXT`). */
export const REASON_CHIP: Readonly<Record<HintsReasonCode, string>> = {
  enabled: 'hints on',
  'traffic-distribution': 'trafficDistribution',
  'not-requested': 'not asked for',
  'not-managed': 'not managed',
  'insufficient-node-info': 'node info missing',
  'nodes-ready-in-one-zone-only': 'one zone only',
  'insufficient-number-of-endpoints': 'endpoints < zones',
  'min-allocation-exceeds-overload-threshold': 'Σ min > endpoints',
  'no-zone-specified': 'endpoint without zone',
  'no-allocated-hints-for-zones': 'zone left without hints',
  'topology-cache-disabled': 'no topology cache',
  unknown: 'unknown',
};

/**
 * The chip's label for a row's reason text: the controller's reason code when the text is one of
 * upstream's messages; `unknown` for zonescope's own "unknown: could not read …"; otherwise
 * (an attention message the badge already names) `details`.
 */
export function reasonChipLabel(reason: string): string {
  const code = reasonCodeOfMessage(reason.replace(/^Hints off: /, ''));
  if (code !== 'unknown') return REASON_CHIP[code];
  return /^unknown\b/i.test(reason) ? REASON_CHIP.unknown : 'details';
}

export function ReasonCell({ row, active }: { readonly row: Row; readonly active: boolean }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  if (!row.reason && !row.attention) return <span className="text-xs text-slate-500 dark:text-slate-400">—</span>;
  return (
    <span className="flex min-w-0 flex-wrap items-center gap-1 text-xs">
      {row.attention ? <Badge tone={ATTENTION[row.attention].tone}>{ATTENTION[row.attention].label}</Badge> : null}
      {row.reason ? (
        <>
          <button
            type="button"
            aria-expanded={open}
            aria-controls={id}
            tabIndex={active ? 0 : -1}
            title={open ? undefined : row.reason}
            onClick={() => setOpen((was) => !was)}
            className="inline-flex max-w-full items-center gap-0.5 rounded border border-slate-300 px-1.5 py-0.5 text-left text-slate-700 hover:bg-slate-100 dark:border-slate-600 dark:text-slate-300 dark:hover:bg-slate-800"
          >
            <span className="truncate">{reasonChipLabel(row.reason)}</span>
            <span aria-hidden="true">{open ? '▴' : '▾'}</span>
            <span className="sr-only">{open ? ' (hide the message)' : ' (show the message)'}</span>
          </button>
          <span id={id} className={open ? 'block w-full text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300' : 'sr-only'}>
            {row.reason}
          </span>
        </>
      ) : null}
    </span>
  );
}

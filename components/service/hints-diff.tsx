/** Observed hints on the EndpointSlices against what the controller would write, per zone and per endpoint. */
import type { ServiceDetail } from '@/lib/topology/report/analysis-schema';
import { Badge, Callout } from '../ui/status';
import { DiffEntriesTable } from './diff-entries-table';
import { firstRows } from './first-rows';

export function HintsDiff({ detail, namespace, name, version }: { readonly detail: ServiceDetail; readonly namespace: string; readonly name: string; readonly version: number }) {
  const firstEntries = detail.diff.inSync ? [] : firstRows(detail).diffEntries;
  const o = detail.observed;
  const e = detail.expected;
  const zones = [...new Set([...Object.keys(o.hintCountsByZone), ...Object.keys(e.hintCountsByZone), ...Object.keys(o.endpointsByZone)])].sort();
  return (
    <div className="space-y-3">
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <caption className="sr-only">Hints per zone observed and expected</caption>
          <thead>
            <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
              <th scope="col" className="py-1.5 pr-3 font-medium">Zone</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium">Ready endpoints</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium">Hinted for zone now</th>
              <th scope="col" className="py-1.5 text-right font-medium">Expected after sync</th>
            </tr>
          </thead>
          <tbody>
            {zones.map((zone) => {
              const now = o.hintCountsByZone[zone] ?? 0;
              const next = e.hintCountsByZone[zone] ?? 0;
              return (
                <tr key={zone} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                  <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-mono font-normal">{zone}</th>
                  <td className="py-1.5 pr-3 text-right tabular-nums">{o.endpointsByZone[zone]?.ready ?? 0}</td>
                  <td className="py-1.5 pr-3 text-right tabular-nums">{now}</td>
                  <td className={`py-1.5 text-right tabular-nums ${now !== next ? 'font-semibold text-amber-800 dark:text-amber-300' : ''}`}>
                    {next}
                    {now !== next ? <span className="sr-only"> (differs)</span> : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {o.slices} slice(s), {o.readyEndpoints} of {o.totalEndpoints} endpoints ready; {o.readyEndpointsWithoutHints} ready endpoint(s) without a zone hint
        {o.hintsPresent && o.readyEndpointsWithoutHints > 0 ? ' — with some hints present, kube-proxy ignores all of them' : ''}.
        {e.slicesToWrite > 0 ? ` The controller would rewrite ${e.slicesToWrite} slice(s).` : ''}
      </p>
      {detail.diff.inSync ? (
        <Callout tone="ok" title="In sync">
          <p>Every endpoint carries the hints the controller would write.</p>
        </Callout>
      ) : (
        <div className="space-y-2">
          <p className="flex flex-wrap gap-2 text-sm">
            <Badge tone="warn">{detail.diff.missing} missing</Badge>
            <Badge tone="warn">{detail.diff.unexpected} unexpected</Badge>
            <Badge tone="warn">{detail.diff.stale} stale</Badge>
          </p>
          <DiffEntriesTable namespace={namespace} name={name} first={firstEntries} total={detail.diffEntries.length} version={version} />
        </div>
      )}
      {detail.byAddressType.length > 1 ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Dual-stack: {detail.byAddressType.map((a) => `${a.addressType} hints ${a.expected.hintsEnabled ? 'on' : 'off'}${a.diff.inSync ? '' : ' (out of sync)'}`).join('; ')}. Figures above are for {e.addressType}.
        </p>
      ) : null}
    </div>
  );
}

/** Which annotation key applies per release and whether kube-proxy needs it. */
import type { ReleaseAnnotationRow } from '@/lib/views/dataplane';
import { Code } from '../ui/panel';
import { Badge } from '../ui/status';

const RULE: Record<ReleaseAnnotationRow['kubeProxyRule'], string> = {
  'lowercase-auto-only': 'needs the annotation, exactly "auto"',
  'auto-either-case': 'needs the annotation, "auto" or "Auto"',
  'any-except-disabled': 'needs the annotation, any value but "disabled"; hints from trafficDistribution alone are ignored',
  'not-consulted': 'does not check the annotation: uses any hints on the slices',
};

export function ReleaseTable({ rows, currentMinor }: { readonly rows: readonly ReleaseAnnotationRow[]; readonly currentMinor: number }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">Release defaults; feature-gate overrides change the last columns.</caption>
        <thead>
          <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
            <th scope="col" className="py-1.5 pr-3 font-medium">Kubernetes</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">Annotation that enables Auto</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">TopologyAwareHints gate</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">trafficDistribution</th>
            <th scope="col" className="py-1.5 font-medium">kube-proxy</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const current = currentMinor >= row.firstMinor && currentMinor <= row.lastMinor;
            return (
              <tr key={row.releases} className={`border-b border-slate-100 align-top last:border-0 dark:border-slate-800 ${current ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}>
                <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-normal">
                  {row.releases} {current ? <Badge tone="info">this cluster</Badge> : null}
                </th>
                <td className="py-1.5 pr-3">
                  <Code>
                    {row.key}: {row.value}
                  </Code>
                  {row.firstMinor >= 27 ? <span className="block text-xs text-slate-600 dark:text-slate-400">a leftover topology-aware-hints key still wins</span> : null}
                </td>
                <td className="py-1.5 pr-3">{row.gateOnByDefault ? 'on by default' : 'off: enable it on the controller manager and kube-proxy'}</td>
                <td className="py-1.5 pr-3">{row.trafficDistribution ? 'PreferClose available' : '—'}</td>
                <td className="py-1.5">{RULE[row.kubeProxyRule]}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

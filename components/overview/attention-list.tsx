/** Services needing attention, with the reason and a link to each Service view. */
import Link from 'next/link';
import type { ClusterReport } from '@/lib/topology/report/analysis-schema';
import { serviceHref } from '../ui/format';
import { LINK } from '../ui/panel';
import { Badge } from '../ui/status';
import { ATTENTION } from '../shared/labels';

export function AttentionList({ items, limit = 25 }: { readonly items: ClusterReport['needsAttention']; readonly limit?: number }) {
  if (items.length === 0) {
    return <p className="text-sm text-slate-700 dark:text-slate-300">No Service needs attention: every Service that asks for hints gets them, and nothing overrides them.</p>;
  }
  const shown = items.slice(0, limit);
  return (
    <div className="space-y-2">
      <ul className="divide-y divide-slate-200 dark:divide-slate-800">
        {shown.map((item) => {
          const a = ATTENTION[item.reason];
          return (
            <li key={`${item.namespace}/${item.name}`} className="space-y-1 py-2">
              <div className="flex flex-wrap items-center gap-2">
                <Link href={serviceHref(item.namespace, item.name)} className={`${LINK} font-mono text-sm`}>
                  {item.namespace}/{item.name}
                </Link>
                <Badge tone={a.tone} title={a.hint}>
                  {a.label}
                </Badge>
              </div>
              <p className="text-sm text-slate-700 dark:text-slate-300">{item.message}</p>
            </li>
          );
        })}
      </ul>
      {items.length > limit ? (
        <p className="text-sm">
          <Link href="/services?attention=1" className={LINK}>
            All {items.length} Services needing attention →
          </Link>
        </p>
      ) : null}
    </div>
  );
}

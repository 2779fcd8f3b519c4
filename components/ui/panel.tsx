/**
 * A titled section of a page: a landmark (`<section aria-labelledby>`) with an `id` so every panel
 * is addressable by URL (`/services/shop/cart#traffic`).
 */
import type { ReactNode } from 'react';

export function Panel({
  id,
  title,
  description,
  actions,
  children,
  className,
  headingLevel = 2,
}: {
  readonly id: string;
  readonly title: ReactNode;
  readonly description?: ReactNode;
  readonly actions?: ReactNode;
  readonly children: ReactNode;
  readonly className?: string;
  readonly headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section id={id} aria-labelledby={`${id}-title`} className={`min-w-0 scroll-mt-20 rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900 ${className ?? ''}`}>
      <div className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-200 px-4 py-3 dark:border-slate-800">
        <div className="min-w-0">
          <Heading id={`${id}-title`} className="text-base font-semibold">
            <a href={`#${id}`} className="hover:underline">
              {title}
            </a>
          </Heading>
          {description ? <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400">{description}</p> : null}
        </div>
        {actions ? <div className="flex shrink-0 items-center gap-2">{actions}</div> : null}
      </div>
      <div className="space-y-4 p-4">{children}</div>
    </section>
  );
}

/** Small print under a number: how it is computed. */
export function Formula({ children, className }: { readonly children: ReactNode; readonly className?: string }) {
  return <p className={`font-mono text-xs text-slate-600 dark:text-slate-400 ${className ?? ''}`}>{children}</p>;
}

/** A big number with a label and its formula. */
export function Stat({ label, value, formula, tone }: { readonly label: ReactNode; readonly value: ReactNode; readonly formula?: ReactNode; readonly tone?: string }) {
  return (
    <div className="min-w-0 rounded-md border border-slate-200 p-3 dark:border-slate-800">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">{label}</dt>
      <dd className={`mt-1 text-2xl font-semibold tabular-nums ${tone ?? ''}`}>{value}</dd>
      {formula ? <dd className="mt-1 font-mono text-xs text-slate-600 dark:text-slate-400">{formula}</dd> : null}
    </div>
  );
}

/** Key–value facts as a description list. */
export function Facts({ items, className, stacked = false }: { readonly items: readonly { readonly label: ReactNode; readonly value: ReactNode }[]; readonly className?: string; readonly stacked?: boolean }) {
  if (stacked) {
    return (
      <dl className={`space-y-2.5 text-sm ${className ?? ''}`}>
        {items.map((item, i) => (
          <div key={i}>
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">{item.label}</dt>
            <dd className="mt-0.5 min-w-0 [overflow-wrap:anywhere]">{item.value}</dd>
          </div>
        ))}
      </dl>
    );
  }
  return (
    <dl className={`grid grid-cols-1 gap-x-4 gap-y-1.5 text-sm sm:grid-cols-[minmax(8rem,14rem)_minmax(0,1fr)] ${className ?? ''}`}>
      {items.map((item, i) => (
        <div key={i} className="contents">
          <dt className="text-slate-600 dark:text-slate-400">{item.label}</dt>
          <dd className="min-w-0 [overflow-wrap:anywhere]">{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Inline code. */
export function Code({ children }: { readonly children: ReactNode }) {
  return <code className="rounded bg-slate-100 px-1 py-0.5 text-[0.85em] text-slate-900 dark:bg-slate-800 dark:text-slate-100">{children}</code>;
}

/** Link styling shared by server components. */
export const LINK = 'font-medium text-sky-800 underline decoration-sky-800/30 underline-offset-2 hover:decoration-sky-800 dark:text-sky-300 dark:decoration-sky-300/40 dark:hover:decoration-sky-300';

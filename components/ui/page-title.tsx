/** The page's h1 with optional breadcrumb, subtitle and badges. */
import type { ReactNode } from 'react';

export function PageTitle({ title, subtitle, breadcrumb, badges }: { readonly title: ReactNode; readonly subtitle?: ReactNode; readonly breadcrumb?: ReactNode; readonly badges?: ReactNode }) {
  return (
    <div className="mb-5 space-y-1">
      {breadcrumb ? <nav aria-label="Breadcrumb" className="text-sm text-slate-600 dark:text-slate-400">{breadcrumb}</nav> : null}
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 tabIndex={-1} className="text-2xl font-semibold tracking-tight focus:outline-none">{title}</h1>
        {badges}
      </div>
      {subtitle ? <p className="max-w-4xl text-sm text-slate-700 dark:text-slate-300">{subtitle}</p> : null}
    </div>
  );
}

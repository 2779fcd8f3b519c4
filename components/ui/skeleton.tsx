/** Loading placeholders that keep the page layout (same boxes as the real panels). */
export function SkeletonBlock({ className }: { readonly className?: string }) {
  return <div aria-hidden="true" className={`animate-pulse rounded bg-slate-200 dark:bg-slate-800 ${className ?? 'h-4 w-full'}`} />;
}

export function SkeletonPanel({ title, lines = 4, height }: { readonly title: string; readonly lines?: number; readonly height?: string }) {
  return (
    <section aria-hidden="true" className="rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <div className="border-b border-slate-200 px-4 py-3 dark:border-slate-800">
        <p className="text-base font-semibold text-slate-400 dark:text-slate-600">{title}</p>
      </div>
      <div className="space-y-3 p-4">
        {height ? <SkeletonBlock className={`${height} w-full`} /> : null}
        {Array.from({ length: lines }, (_, i) => (
          <SkeletonBlock key={i} className={`h-4 ${i % 3 === 2 ? 'w-2/3' : 'w-full'}`} />
        ))}
      </div>
    </section>
  );
}

/** Screen-reader announcement for a loading region. */
export function LoadingAnnouncement({ what }: { readonly what: string }) {
  return (
    <p role="status" className="sr-only">
      Loading {what}…
    </p>
  );
}

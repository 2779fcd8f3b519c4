'use client';

/**
 * Page skeletons for `loading.tsx`: the same grid and panel boxes as the real pages. Client
 * components, so the page's RSC payload carries a reference to each instead of its element tree
 * (every page carries the skeletons of its own and its parent segments).
 */
import { LoadingAnnouncement, SkeletonBlock, SkeletonPanel } from '../ui/skeleton';

function TitleSkeleton({ title, subtitle }: { readonly title: string; readonly subtitle: string }) {
  return (
    <div className="mb-5 space-y-1">
      {/* data-skeleton: RouteFocus waits for the real page's heading instead of focusing this one. */}
      <h1 className="text-2xl font-semibold tracking-tight" data-skeleton="">
        {title}
      </h1>
      <p className="text-sm text-slate-700 dark:text-slate-300">{subtitle}</p>
    </div>
  );
}

export function OverviewSkeleton() {
  return (
    <>
      <LoadingAnnouncement what="the overview" />
      <TitleSkeleton title="Overview" subtitle="Can Topology Aware Routing work in this cluster at all, and where does it fail?" />
      <div className="grid gap-5 lg:grid-cols-3">
        <div className="lg:col-span-2">
          <SkeletonPanel title="Eligibility" lines={6} />
        </div>
        <SkeletonPanel title="Services" lines={6} />
        <div className="lg:col-span-3">
          <SkeletonPanel title="Zone map" height="h-48" lines={2} />
        </div>
        <div className="lg:col-span-2">
          <SkeletonPanel title="Services needing attention" lines={6} />
        </div>
        <SkeletonPanel title="Dataplane" lines={6} />
      </div>
    </>
  );
}

export function ServicesSkeleton() {
  return (
    <>
      <LoadingAnnouncement what="the Services" />
      <TitleSkeleton title="Services" subtitle="Which Services keep traffic in-zone and which do not, and why?" />
      <div className="mb-3 flex gap-3" aria-hidden="true">
        <SkeletonBlock className="h-9 w-72" />
        <SkeletonBlock className="h-9 w-56" />
        <SkeletonBlock className="h-9 w-40" />
      </div>
      <ServicesTableSkeleton />
    </>
  );
}

/** The Services table's outline: its header row and a screenful of rows (the page's skeleton, and the table while its rows load). */
export function ServicesTableSkeleton() {
  return (
    <div className="space-y-2 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900" aria-hidden="true">
      <SkeletonBlock className="h-8 w-full" />
      {Array.from({ length: 8 }, (_, i) => (
        <SkeletonBlock key={i} className="h-12 w-full" />
      ))}
    </div>
  );
}

export function ServiceSkeleton() {
  return (
    <>
      <LoadingAnnouncement what="the Service" />
      <div className="mb-5 space-y-2" aria-hidden="true">
        <SkeletonBlock className="h-4 w-48" />
        <SkeletonBlock className="h-8 w-80" />
        <SkeletonBlock className="h-4 w-96" />
      </div>
      <div className="grid gap-5 lg:grid-cols-3">
        <div className="lg:col-span-2">
          <SkeletonPanel title="Verdict and smallest fix" lines={7} />
        </div>
        <SkeletonPanel title="Topology mode" lines={7} />
        <div className="lg:col-span-3">
          <SkeletonPanel title="Endpoints by zone" height="h-40" lines={3} />
        </div>
        <div className="lg:col-span-3">
          <SkeletonPanel title="Endpoint distribution and per-zone minimums" height="h-56" lines={2} />
        </div>
      </div>
    </>
  );
}

export function DataplaneSkeleton() {
  return (
    <>
      <LoadingAnnouncement what="the dataplane" />
      <TitleSkeleton title="Dataplane" subtitle="Will my proxy honour hints, and what does my proxy mode cost?" />
      <div className="grid gap-5">
        <SkeletonPanel title="Service proxy" lines={6} />
        <SkeletonPanel title="Rule counts per proxy mode" height="h-64" lines={2} />
        <SkeletonPanel title="IPVS schedulers" lines={8} />
      </div>
    </>
  );
}

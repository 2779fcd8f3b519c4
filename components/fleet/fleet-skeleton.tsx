'use client';

/** The fleet page while it renders: its title, the answer panel and the table's box (as components/layout/skeletons.tsx does for the other pages). */
import { LoadingAnnouncement, SkeletonPanel } from '../ui/skeleton';

export function FleetSkeleton() {
  return (
    <>
      <LoadingAnnouncement what="the fleet" />
      <div className="mb-5 space-y-1">
        {/* data-skeleton: RouteFocus waits for the real page's heading instead of focusing this one. */}
        <h1 className="text-2xl font-semibold tracking-tight" data-skeleton="">
          Fleet
        </h1>
        <p className="text-sm text-slate-700 dark:text-slate-300">Every cluster of the kubeconfig side by side: which one spends most on cross-zone traffic, and why?</p>
      </div>
      <div className="space-y-5">
        <SkeletonPanel title="Who spends most" lines={2} />
        <SkeletonPanel title="Clusters" lines={8} />
      </div>
    </>
  );
}

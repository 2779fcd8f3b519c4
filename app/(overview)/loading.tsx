import { OverviewSkeleton } from '@/components/layout/skeletons';

export default function Loading() {
  return <OverviewSkeleton />;
}

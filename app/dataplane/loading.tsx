import { DataplaneSkeleton } from '@/components/layout/skeletons';

export default function Loading() {
  return <DataplaneSkeleton />;
}

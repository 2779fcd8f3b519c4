import { ServicesSkeleton } from '@/components/layout/skeletons';

export default function Loading() {
  return <ServicesSkeleton />;
}

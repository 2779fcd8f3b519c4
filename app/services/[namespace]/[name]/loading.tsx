import { ServiceSkeleton } from '@/components/layout/skeletons';

export default function Loading() {
  return <ServiceSkeleton />;
}

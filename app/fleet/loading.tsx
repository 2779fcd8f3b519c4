import { FleetSkeleton } from '@/components/fleet/fleet-skeleton';

export default function Loading() {
  return <FleetSkeleton />;
}

import type { Metadata } from 'next';

import { ClusterLink } from '@/components/layout/cluster-base';
import { LINK } from '@/components/ui/panel';
import { Callout } from '@/components/ui/status';
import { unknownClusterId, UnknownCluster } from '@/components/layout/unknown-cluster';

export const metadata: Metadata = { title: 'Page not found' };

export default async function NotFound() {
  const unknown = await unknownClusterId();
  if (unknown !== null) return <UnknownCluster id={unknown} />;
  return (
    <div className="max-w-2xl space-y-4">
      <h1 className="text-2xl font-semibold tracking-tight">Page not found</h1>
      <Callout tone="warn" title="There is no page at this address.">
        <p>zonescope has three views: the Overview, the Services (with one page per Service) and the Dataplane.</p>
      </Callout>
      <ul className="flex flex-wrap gap-4">
        <li>
          <ClusterLink href="/" className={LINK}>
            Overview
          </ClusterLink>
        </li>
        <li>
          <ClusterLink href="/services" className={LINK}>
            Services
          </ClusterLink>
        </li>
        <li>
          <ClusterLink href="/dataplane" className={LINK}>
            Dataplane
          </ClusterLink>
        </li>
      </ul>
    </div>
  );
}

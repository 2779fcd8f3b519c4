import { ClusterLink } from '@/components/layout/cluster-base';
import { unknownClusterId, UnknownCluster } from '@/components/layout/unknown-cluster';

import { LINK } from '@/components/ui/panel';
import { Callout } from '@/components/ui/status';

export default async function ServiceNotFound() {
  const unknown = await unknownClusterId();
  if (unknown !== null) return <UnknownCluster id={unknown} />;
  return (
    <div className="max-w-2xl space-y-4">
      <h1 className="text-2xl font-semibold tracking-tight">Service not found</h1>
      <Callout tone="warn" title="This cluster has no Service with that namespace and name.">
        <p>It may have been deleted, or the link has a typo. Names are case-sensitive.</p>
      </Callout>
      <p>
        <ClusterLink href="/services" className={LINK}>
          ← Back to all Services
        </ClusterLink>
      </p>
    </div>
  );
}

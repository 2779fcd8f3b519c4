import type { Metadata } from 'next';
import { connection } from 'next/server';

import { clusterDisplayName, titleWithCluster } from '@/lib/shared/cluster-name';
import { ClusterPending } from '@/components/shared/cluster-status';
import { ServicesTableLoader } from '@/components/services/services-table-loader';
import { PageTitle } from '@/components/ui/page-title';
import { requestScope } from '@/lib/server/clusters';
import { getClusterStatus, getHeader } from '@/lib/views/header';
import { parseTableQuery } from '@/lib/shared/services-table-url';
import { getServiceTable, serviceTableBody } from '@/lib/views/services/table';

export async function generateMetadata(): Promise<Metadata> {
  await connection();
  return { title: titleWithCluster('Services', clusterDisplayName(getHeader(await requestScope()))) };
}

export default async function ServicesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const params = await searchParams;
  const scope = await requestScope();
  const table = getServiceTable(scope);
  const title = <PageTitle title="Services" subtitle="Which Services keep traffic in-zone and which do not, and why? Hints observed on the EndpointSlices against what the controller would write." />;
  if (!table) return <ClusterPending title={title} status={getClusterStatus(scope)} what="the Services" />;
  return (
    <>
      {title}
      {/* The rows load from their own address (one body per table, not a copy per view): see services-table-loader.tsx. */}
      <ServicesTableLoader src={`/api/v1/services/table?v=${serviceTableBody(table).version}`} total={table.rows.length} initial={parseTableQuery(params, table.namespaces)} />
    </>
  );
}

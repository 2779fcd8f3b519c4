import type { Metadata } from 'next';
import { connection } from 'next/server';

import { ClusterStatusPanel } from '@/components/shared/cluster-status';
import type { SortKey, TableQuery } from '@/components/services/services-table';
import { ServicesTable } from '@/components/services/services-table';
import { PageTitle } from '@/components/ui/page-title';
import { getClusterStatus, getServiceTable } from '@/lib/data/views';

export const metadata: Metadata = { title: 'Services' };

const SORTS: readonly SortKey[] = ['service', 'mechanism', 'hints', 'reason', 'endpoints', 'crossZone'];

function one(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The table's query from the URL (unknown values fall back to defaults). */
function parseQuery(params: Record<string, string | string[] | undefined>, namespaces: readonly string[]): TableQuery {
  const sort = one(params.sort);
  const ns = one(params.ns);
  return {
    q: one(params.q).slice(0, 200),
    ns: namespaces.includes(ns) ? ns : '',
    sort: (SORTS as readonly string[]).includes(sort) ? (sort as SortKey) : 'service',
    order: one(params.order) === 'desc' ? 'desc' : 'asc',
    attention: one(params.attention) === '1' || one(params.attention) === 'true',
  };
}

export default async function ServicesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const params = await searchParams;
  const table = getServiceTable();
  const title = <PageTitle title="Services" subtitle="Which Services keep traffic in-zone and which do not, and why? Hints observed on the EndpointSlices against what the controller would write." />;
  if (!table) {
    const status = getClusterStatus();
    return (
      <>
        {title}
        {status.state === 'ready' ? null : <ClusterStatusPanel status={status} what="the Services" />}
      </>
    );
  }
  return (
    <>
      {title}
      <ServicesTable data={table} initial={parseQuery(params, table.namespaces)} />
    </>
  );
}

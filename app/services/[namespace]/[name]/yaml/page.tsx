/**
 * `/services/{namespace}/{name}/yaml`: the Service and its EndpointSlices as the API server has
 * them (read when the page is opened), `managedFields` hidden unless `?managedFields=1`; the same
 * YAML as `GET /api/v1/services/{namespace}/{name}/yaml`.
 */
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';

import { clusterDisplayName, titleWithCluster } from '@/lib/shared/cluster-name';
import { ClusterPending } from '@/components/shared/cluster-status';
import { CopyButton } from '@/components/ui/copy-button';
import { serviceHref } from '@/components/ui/format';
import { PageTitle } from '@/components/ui/page-title';
import { LINK } from '@/components/ui/panel';
import { Callout } from '@/components/ui/status';
import { clusterHref, requestScope } from '@/lib/server/clusters';
import { getClusterStatus, getHeader } from '@/lib/views/header';
import { getServiceYaml } from '@/lib/views/service-yaml';

import type { ServiceParams } from '../params';
import { decodeSegment } from '../params';

export async function generateMetadata({ params }: { params: Promise<ServiceParams> }): Promise<Metadata> {
  await connection();
  const { namespace, name } = await params;
  // Absolute: the Service layout's own title string ends the root layout's template for its children.
  return { title: { absolute: `${titleWithCluster(`${decodeSegment(namespace)}/${decodeSegment(name)} YAML · Services`, clusterDisplayName(getHeader(await requestScope())))} · zonescope` } };
}

export default async function ServiceYamlPage({ params, searchParams }: { params: Promise<ServiceParams>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const { namespace: rawNamespace, name: rawName } = await params;
  const namespace = decodeSegment(rawNamespace);
  const name = decodeSegment(rawName);
  const search = await searchParams;
  const managedFields = (Array.isArray(search.managedFields) ? search.managedFields[0] : search.managedFields) === '1';
  const scope = await requestScope();
  // The Service page, its YAML view and the raw YAML route, all in this cluster.
  const service = serviceHref(namespace, name);
  const href = clusterHref(scope, service);
  const breadcrumb = (
    <>
      <Link href={clusterHref(scope, '/services')} className={LINK}>
        Services
      </Link>{' '}
      / {namespace} /{' '}
      <Link href={href} className={LINK}>
        {name}
      </Link>{' '}
      / <span aria-current="page">YAML</span>
    </>
  );
  const title = <PageTitle title={`${namespace}/${name} YAML`} breadcrumb={breadcrumb} subtitle="The Service and its EndpointSlices as the API server has them now, read when this page opened." />;
  const result = await getServiceYaml(scope, namespace, name, managedFields);
  if (!result.ok && result.error.kind === 'syncing') return <ClusterPending title={title} status={getClusterStatus(scope)} what="this Service" />;
  if (!result.ok && result.error.kind === 'not-found') notFound();
  if (!result.ok) {
    return (
      <>
        {title}
        <Callout tone="error" role="alert" title="The objects could not be read from the API server.">
          <p>{result.error.message}</p>
        </Callout>
      </>
    );
  }
  const { yaml, endpointSlices } = result.value;
  const apiHref = clusterHref(scope, `/api/v1${service}/yaml${managedFields ? '?managedFields=1' : ''}`);
  return (
    <>
      {title}
      <div className="mb-3 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
        <p className="text-slate-700 dark:text-slate-300">
          Service {name} and {endpointSlices.length} EndpointSlice{endpointSlices.length === 1 ? '' : 's'}
          {endpointSlices.length > 0 ? ` (${endpointSlices.join(', ')})` : ''}.
        </p>
        <Link href={managedFields ? `${href}/yaml` : `${href}/yaml?managedFields=1`} className={LINK}>
          {managedFields ? 'Hide managedFields' : 'Show managedFields'}
        </Link>
        <a href={apiHref} className={LINK}>
          Raw YAML
        </a>
        <CopyButton text={yaml} label="Copy YAML" />
      </div>
      <pre
        className="overflow-x-auto rounded-lg border border-slate-200 bg-white p-4 text-xs leading-relaxed text-slate-900 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-100"
        tabIndex={0}
        aria-label={`YAML of ${namespace}/${name} and its EndpointSlices`}
      >
        <code>{yaml}</code>
      </pre>
    </>
  );
}

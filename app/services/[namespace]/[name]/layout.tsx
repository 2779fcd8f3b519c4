import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import type { ReactNode } from 'react';

import { clusterDisplayName, titleWithCluster } from '@/lib/shared/cluster-name';
import { requestScope } from '@/lib/server/clusters';
import { getHeader } from '@/lib/views/header';
import { findService } from '@/lib/views/service/view';

import type { ServiceParams } from './params';
import { decodeSegment } from './params';

export async function generateMetadata({ params }: { params: Promise<ServiceParams> }): Promise<Metadata> {
  await connection();
  const { namespace, name } = await params;
  return { title: titleWithCluster(`${decodeSegment(namespace)}/${decodeSegment(name)} · Services`, clusterDisplayName(getHeader(await requestScope()))) };
}

/**
 * Decides whether the Service exists before anything streams: a layout is outside its own
 * segment's loading.tsx boundary (and no ancestor has one, see app/(overview) and
 * app/services/(list)), so `notFound()` here answers 404 with ../not-found.tsx. Thrown from the
 * page, inside loading.tsx's Suspense boundary, it would come after the 200 status line. While the
 * first sync runs the page renders as before (its syncing panel).
 */
export default async function ServiceLayout({ children, params }: { children: ReactNode; params: Promise<ServiceParams> }) {
  await connection();
  const { namespace, name } = await params;
  if (findService(await requestScope(), decodeSegment(namespace), decodeSegment(name))?.kind === 'not-found') notFound();
  return children;
}

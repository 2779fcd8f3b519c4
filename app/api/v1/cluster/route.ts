/** `GET /api/v1/cluster`: the analyze `cluster` object with the release, assumptions and header freshness. */
import { jsonResponse, methodNotAllowed, notReadyResponse } from '@/lib/data/http';
import { getClusterAnalysis } from '@/lib/data/analysis';
import { getHeader } from '@/lib/data/header';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  const analysis = getClusterAnalysis();
  if (analysis === null) return notReadyResponse('cluster');
  const { schema, kubernetes, assumptions, cluster } = analysis;
  return jsonResponse({ schema, kubernetes, assumptions, cluster, header: getHeader() });
}

const notAllowed = (): Response => methodNotAllowed('cluster', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };

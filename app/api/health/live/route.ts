export const dynamic = 'force-dynamic';

/** Liveness: the server answers. Deliberately independent of the cluster, so an API outage does not restart the pod. */
export function GET(): Response {
  return Response.json({ status: 'alive' }, { headers: { 'Cache-Control': 'no-store' } });
}

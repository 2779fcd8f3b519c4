/**
 * `GET /metrics` (and HEAD): the Prometheus exposition of zonescope's view of the cluster — per-
 * Service hints, endpoints, cross-zone share and cost; the cluster's eligibility, zones and spend;
 * the informers' health (docs/metrics.md). Served from memory: the per-Service block is rendered
 * and UTF-8 encoded once per analysis and traffic answer, so a scrape costs a few dozen cluster
 * series plus sending cached bytes, and never calls the API server. While the first sync runs only
 * the cluster block is served, with `zonescope_cluster_synced 0`. About the default cluster only
 * (one Prometheus job per installation, as before several clusters).
 */
import { defaultScope } from '@/lib/server/clusters';
import { scrapeMetricsChunks } from '@/lib/views/metrics-endpoint';
import { methodRefusal, refusalResponse } from '@/lib/server/request-guards';
import { METRICS_CONTENT_TYPE } from '@/lib/prometheus/exporter/scrape';

export const dynamic = 'force-dynamic';

const HEADERS = { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' } as const;

/**
 * Always the plain text: Next.js gzips it for a scraper that asks (Prometheus always does). A
 * pre-compressed body is not possible from a route handler — Next.js drops a handler's
 * `Content-Encoding` header and would compress the bytes a second time — so at size L the
 * compression (about 13 MiB → 0.4 MiB) is paid per scrape; BENCHMARKS.md has the figures.
 */
export async function GET(): Promise<Response> {
  const chunks = await scrapeMetricsChunks(defaultScope());
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
  return new Response(body, { status: 200, headers: HEADERS });
}

export async function HEAD(): Promise<Response> {
  const length = (await scrapeMetricsChunks(defaultScope())).reduce((sum, chunk) => sum + chunk.length, 0);
  return new Response(null, { status: 200, headers: { ...HEADERS, 'Content-Length': String(length) } });
}

const notAllowed = (request: Request): Response => refusalResponse(methodRefusal(request.method, '/metrics'), request.method);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };

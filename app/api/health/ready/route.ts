import { analysisPass, isServing } from '@/lib/server/analysis';
import { analysisProgress } from '@/lib/views/header';
import { getClusterSource } from '@/lib/k8s/source';

export const dynamic = 'force-dynamic';

/**
 * Readiness: 200 once every resource type finished its first sync (synced or forbidden) and the
 * first analysis pass is done, else 503 with `status: "syncing"`, the per-type listing progress and
 * (once listed) the analysis pass's progress. Cheap: it never runs an analysis itself. About the
 * default cluster only: other clusters open when first viewed and never make the server unready.
 */
export function GET(): Response {
  const state = getClusterSource();
  const statuses = state.statuses().map((s) => ({ resource: s.id, health: s.health, listed: s.listed }));
  const ready = isServing(state);
  const pass = analysisProgress(analysisPass(state));
  const analysis = pass === null ? null : { kind: pass.kind, done: pass.done, total: pass.total, since: pass.since, message: pass.message };
  return Response.json({ status: ready ? 'ready' : 'syncing', resources: statuses, analysis }, { status: ready ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });
}

import { getClusterSource } from '@/lib/k8s/source';

export const dynamic = 'force-dynamic';

/** Readiness: 200 once every resource type finished its first sync (synced or forbidden), else 503. */
export function GET(): Response {
  const state = getClusterSource();
  const statuses = state.statuses().map((s) => ({ resource: s.id, health: s.health, listed: s.listed }));
  const ready = state.isSynced();
  return Response.json({ status: ready ? 'ready' : 'syncing', resources: statuses }, { status: ready ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });
}

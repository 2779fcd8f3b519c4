/**
 * `GET /api/v1/clusters`: the fleet — one row per cluster of the kubeconfig (or
 * `ZONESCOPE_CONTEXTS`) with its state and freshness, release, platform, eligibility, proxy mode,
 * Services asking for hints / with hints on / needing attention, cross-zone $ per month now and
 * at best, and why (the costliest Service, the most common reason for attention). The same data
 * as the `/fleet` page. Cluster-independent: not served under a `/c/{id}` prefix.
 *
 * Like the page, it opens every cluster not open yet, up to `ZONESCOPE_MAX_OPEN_CLUSTERS`; the
 * rows beyond say so. It never answers "syncing": a cluster still syncing is a row saying so.
 * With `ZONESCOPE_FLEET_PROMETHEUS_URL`, the clusters seen only in the fleet's Prometheus follow
 * (`source: "prometheus"`, from its last answer: the request never waits for it).
 */
import { fleetView } from '@/lib/views/fleet/fleet';
import { jsonResponse, methodNotAllowed } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return jsonResponse(fleetView());
}

const notAllowed = (): Response => methodNotAllowed('clusters', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };

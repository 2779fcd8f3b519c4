/**
 * The suite's `test`: every test starts from the eks-demo scenario as the dashboard sees it. Before
 * each test the simulator's faults, RBAC and statistics are reset, and its objects too when anything
 * wrote to the cluster since the last reset (the simulator's request statistics say so: read-only
 * tests leave nothing to undo, and an object reset makes every watch of the dashboard re-list).
 * Then we wait until the dashboard has caught up:
 * - after an object reset, every resource type was listed again and is watched again (the
 *   simulator's statistics), so no informer still holds the pre-reset objects;
 * - every resource type is synced (the dashboard's readiness), and the Services the suite changes
 *   are at the API server's resourceVersion with the API server's hints (the dashboard's API).
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, test as base } from '@playwright/test';
import { getService, hintedEndpoints, resetSimulator, simStats } from './sim';

/** Services some test changes: the dashboard must show exactly the simulator's version of each. */
export const MUTATED_SERVICES = ['shop/recommendations', 'shop/storefront', 'shop/api-gateway', 'platform/config', 'payments/notifier'] as const;

interface ReadyBody {
  status: string;
  resources: { resource: string; health: string }[];
}

interface DashboardService {
  resourceVersion: string;
  observed: { hintCountsByZone: Record<string, number> };
}

/** Whether the dashboard's cache shows what the simulator has (a string saying what differs otherwise). */
async function dashboardLag(request: APIRequestContext, services: readonly string[]): Promise<string> {
  const ready = await request.get('/api/health/ready');
  const body = (await ready.json()) as ReadyBody;
  const notSynced = body.resources.filter((r) => r.health !== 'synced').map((r) => `${r.resource}:${r.health}`);
  if (!ready.ok() || notSynced.length > 0) return `not synced: ${notSynced.join(', ') || body.status}`;
  for (const key of services) {
    const [namespace = '', name = ''] = key.split('/');
    const [sim, hinted, response] = await Promise.all([getService(namespace, name), hintedEndpoints(namespace, name), request.get(`/api/v1/services/${key}`)]);
    if (!response.ok()) return `${key}: dashboard answered ${response.status()}`;
    const dashboard = (await response.json()) as DashboardService;
    if (dashboard.resourceVersion !== sim.metadata.resourceVersion) return `${key}: dashboard at ${dashboard.resourceVersion}, cluster at ${sim.metadata.resourceVersion}`;
    const dashboardHinted = Object.values(dashboard.observed.hintCountsByZone).reduce((a, b) => a + b, 0);
    if (dashboardHinted !== hinted) return `${key}: dashboard sees ${dashboardHinted} hinted endpoints, cluster has ${hinted}`;
  }
  return '';
}

/** Waits (bounded) until the dashboard's cache matches the simulator for `services`. */
export async function waitForDashboard(request: APIRequestContext, services: readonly string[] = MUTATED_SERVICES, timeout = 60_000): Promise<void> {
  await expect
    .poll(() => dashboardLag(request, services), { message: 'the dashboard caught up with the simulated cluster', timeout, intervals: [100, 250, 500, 1000] })
    .toBe('');
}

const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/** The resource types the dashboard lists and watches, as the simulator counts them (lib/k8s/resources.ts). */
const WATCHED = ['nodes', 'services', 'endpointslices', 'pods', 'deployments', 'replicasets', 'horizontalpodautoscalers', 'events', 'configmaps', 'daemonsets'];

/** After an object reset: the types not yet listed again and watched again (empty when all are). */
async function notRelisted(): Promise<string[]> {
  const { requests, openWatches } = await simStats();
  return WATCHED.filter((resource) => (requests[resource]?.list ?? 0) < 1 || (openWatches[resource] ?? 0) < 1);
}

/** Whether a client wrote to the cluster since the simulator's last reset (access reviews aside). */
async function clusterWritten(): Promise<boolean> {
  const { requests } = await simStats();
  return Object.entries(requests).some(([resource, verbs]) => resource !== 'selfsubjectaccessreviews' && WRITE_VERBS.some((verb) => (verbs[verb] ?? 0) > 0));
}

/**
 * Puts the simulated cluster back to the scenario (objects only when something wrote to them;
 * always faults, RBAC and statistics) and waits until the dashboard shows it.
 */
export async function resetAndSettle(request: APIRequestContext): Promise<void> {
  const objects = await clusterWritten();
  await resetSimulator({ objects });
  if (objects) {
    await expect
      .poll(notRelisted, { message: 'the dashboard re-listed and watches every resource type after the reset', timeout: 60_000, intervals: [100, 250, 500] })
      .toEqual([]);
  }
  await waitForDashboard(request);
}

export const test = base.extend<{ settled: undefined }>({
  settled: [
    async ({ request }, use) => {
      await resetAndSettle(request);
      await use(undefined);
    },
    { auto: true },
  ],
});

export { expect };

/**
 * The `ownership` scenario (fixtures/ownership.yaml) on the simulator over real HTTP, read through
 * the dashboard's own cluster source and Service API: an Argo CD-applied Service carries the
 * marker the toggle warns about, an NLB with TCP IP targets shows the client IP as not preserved,
 * and the ExternalName and selector-less Services say what they are and get no toggle (422).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ApiErrorResponse, ServiceResponse } from '../../../../../../lib/views/api-types';
import { getServiceView } from '../../../../../../lib/views/service/view';
import { waitForAnalysis } from '../../../../../../lib/server/analysis';
import { getClusterSource, resetClusterSource } from '../../../../../../lib/k8s/source';
import { gitOpsManager } from '../../../../../../lib/topology/analyses/gitops';
import { defaultControllers } from '../../../../../../sim/default-controllers';
import { loadScenario } from '../../../../../../sim/scenario';
import type { Simulator } from '../../../../../../sim/server';
import { startSimulator } from '../../../../../../sim/server';
import { apiRequest, readJson, routeContext, sameOriginHeaders } from '../../../_testing/harness';
import { GET } from './route';
import { PUT } from './topology-mode/route';
import { defaultScope } from '../../../../../../lib/server/clusters';

const KEYS = ['KUBECONFIG', 'ZONESCOPE_HOST', 'ZONESCOPE_READ_ONLY', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CONTEXT'] as const;
let sim: Simulator;
let dir: string;
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  const scenario = await loadScenario('ownership');
  sim = await startSimulator({ port: 0, objects: scenario.objects, controllers: defaultControllers(), log: () => undefined });
  dir = await mkdtemp(path.join(tmpdir(), 'zonescope-ownership-'));
  for (const key of KEYS) Reflect.deleteProperty(process.env, key);
  process.env.KUBECONFIG = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  process.env.ZONESCOPE_HOST = '127.0.0.1';
  await resetClusterSource();
  if (!(await getClusterSource().waitForSync(15_000))) throw new Error('the cluster source did not sync');
  if (!(await waitForAnalysis(15_000))) throw new Error('the first analysis pass did not finish');
}, 30_000);

afterAll(async () => {
  await resetClusterSource();
  await sim.stop();
  await rm(dir, { recursive: true, force: true });
  for (const key of KEYS) {
    const value = saved[key];
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

async function service(name: string): Promise<ServiceResponse> {
  const response = await GET(apiRequest(`/api/v1/services/default/${name}`), routeContext({ namespace: 'default', name }));
  expect(response.status).toBe(200);
  return readJson<ServiceResponse>(response);
}

describe('the ownership scenario', () => {
  it('web is applied by Argo CD: the toggle warns that a live patch may be reverted', () => {
    const view = getServiceView(defaultScope(), 'default', 'web');
    if (!view.ok) throw new Error('web not found');
    expect(gitOpsManager(view.value.service)?.warning).toBe(
      'Managed by Argo CD (label argocd.argoproj.io/instance=storefront): the next Argo CD sync may revert a live patch. Make the change in Git.',
    );
    const helm = getServiceView(defaultScope(), 'default', 'web-public');
    if (!helm.ok) throw new Error('web-public not found');
    expect(gitOpsManager(helm.value.service)?.tool).toBe('Helm');
  });

  it('checkout: a Helm chart applied by Argo CD with label tracking; its last-applied configuration declares topology-mode, so the next sync puts it back', async () => {
    const body = await service('checkout');
    expect(body.gitOps).toMatchObject({ tool: 'Argo CD', source: 'last-applied', declared: { 'service.kubernetes.io/topology-mode': 'Auto' }, liveChange: 'reverted' });
    expect(body.gitOps?.warning).toContain('the Git source declares service.kubernetes.io/topology-mode: Auto (read from its kubectl.kubernetes.io/last-applied-configuration) — the next Argo CD sync puts it back.');
    // Only the owner facts reach the record, not the applied manifest.
    const view = getServiceView(defaultScope(), 'default', 'checkout');
    if (!view.ok) throw new Error('checkout not found');
    expect(JSON.stringify(view.value.service)).not.toContain('helm.sh/chart');
  });

  it('web-public: NLB IP targets with TCP, client IP not preserved by default', async () => {
    const lb = (await service('web-public')).loadBalancer;
    expect(lb).toMatchObject({ path: 'lb-to-pod', sourceIpPreserved: false, aws: { clientIpSource: 'default for IP targets with TCP/TLS (off)' } });
    expect(lb?.fixes.map((f) => f.title)).toEqual(['Keep the client IP with IP targets']);
  });

  it('payments-db and legacy-db say what they are, and the toggle is refused with 422', async () => {
    expect((await service('payments-db')).expected.verdict).toContain('ExternalName: a DNS CNAME');
    expect((await service('legacy-db')).expected.verdict).toContain('endpointslice.kubernetes.io/managed-by: staff.example.com');
    for (const name of ['payments-db', 'legacy-db']) {
      const response = await PUT(
        apiRequest(`/api/v1/services/default/${name}/topology-mode`, { method: 'PUT', body: JSON.stringify({ mode: 'Auto' }), headers: sameOriginHeaders('1') }),
        routeContext({ namespace: 'default', name }),
      );
      expect(response.status).toBe(422);
      expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('invalid:topology-mode');
    }
  });
});

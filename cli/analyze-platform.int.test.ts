/**
 * Where kube-proxy's configuration lives depends on the platform: against the simulator serving
 * eks-demo's workloads as an EKS, a GKE and an AKS cluster without a readable kube-proxy
 * ConfigMap, `npm run analyze` (live) gives the EKS command only on EKS, and says what applies on
 * GKE and AKS instead (issue "Real clusters", item 9).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { ClusterAnalysis } from '../lib/topology/report/analysis-schema';
import { loadScenario } from '../sim/scenario';
import type { Simulator } from '../sim/server';
import { startSimulator } from '../sim/server';
import type { KubeObject } from '../sim/types';
import { main } from './analyze-cli';

const root = mkdtempSync(path.join(tmpdir(), 'zonescope-analyze-platform-'));
const sims: Simulator[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const sim of sims.splice(0)) await sim.stop();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * eks-demo without its kube-proxy ConfigMap, with node providerIDs rewritten for the platform
 * (and, off EKS, without the Amazon VPC CNI DaemonSet).
 */
async function cluster(providerPrefix: string, version: string): Promise<Simulator> {
  const eks = providerPrefix.startsWith('aws:');
  const objects = (await loadScenario('eks-demo')).objects
    .filter((o) => !(o.kind === 'ConfigMap' && o.metadata.name.startsWith('kube-proxy')))
    .filter((o) => eks || !(o.kind === 'DaemonSet' && o.metadata.name === 'aws-node'))
    .map((o): KubeObject => {
      if (o.kind !== 'Node') return o;
      const spec = (o as { spec?: Record<string, unknown> }).spec ?? {};
      return { ...o, spec: { ...spec, providerID: `${providerPrefix}${o.metadata.name}` } } as KubeObject;
    });
  const sim = await startSimulator({ objects, version, log: () => undefined });
  sims.push(sim);
  return sim;
}

async function dataplane(sim: Simulator, name: string): Promise<ClusterAnalysis['cluster']['dataplane']> {
  for (const env of ['ZONESCOPE_CONTEXT', 'ZONESCOPE_SNAPSHOT', 'KUBERNETES_SERVICE_HOST', 'HTTPS_PROXY', 'https_proxy']) vi.stubEnv(env, '');
  vi.stubEnv('KUBECONFIG', await sim.writeKubeconfig(path.join(root, `${name}.kubeconfig`)));
  let out = '';
  const code = await main(['--format', 'json', '--timeout', '20'], { out: (t) => (out += t), err: () => undefined });
  expect(code).toBe(0);
  return (JSON.parse(out) as ClusterAnalysis).cluster.dataplane;
}

const everyText = (d: ClusterAnalysis['cluster']['dataplane']): string => JSON.stringify(d.notes);

describe('kube-proxy configuration not found, per platform', () => {
  it('EKS: the EKS way to read it', async () => {
    const d = await dataplane(await cluster('aws:///ap-northeast-2a/', 'v1.31.4-eks-2d98532'), 'eks');
    expect(d.platform.platform).toBe('eks');
    expect(d.notes.map((n) => n.title)).toContain('kube-proxy configuration not found');
    expect(everyText(d)).toMatch(/EKS \(server gitVersion v1\.31\.4-eks-2d98532\): the kube-proxy add-on keeps its configuration in kube-system\/kube-proxy-config/);
  });

  it('GKE: says GKE manages kube-proxy and names Dataplane V2, with no EKS command', async () => {
    const d = await dataplane(await cluster('gce://project/us-central1-a/', 'v1.30.5-gke.1014001'), 'gke');
    expect(d.platform).toEqual({ platform: 'gke', evidence: 'server gitVersion v1.30.5-gke.1014001' });
    expect(d.notes.map((n) => n.title)).toContain('GKE manages kube-proxy');
    expect(everyText(d)).toContain('With GKE Dataplane V2 there is no kube-proxy');
    expect(everyText(d)).not.toMatch(/kube-proxy configuration not found|EKS|kube-proxy-config|docs\.aws\.amazon\.com/);
  });

  it('AKS: from the nodes\' providerID, with no EKS command', async () => {
    const d = await dataplane(await cluster('azure:///subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/', 'v1.30.3'), 'aks');
    expect(d.platform.platform).toBe('aks');
    expect(d.notes.map((n) => n.title)).toContain('AKS manages kube-proxy');
    expect(everyText(d)).not.toMatch(/kube-proxy configuration not found|EKS|kube-proxy-config|docs\.aws\.amazon\.com/);
  });
});

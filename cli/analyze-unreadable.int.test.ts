/**
 * `npm run analyze -- --context …` against eks-demo on the simulator over real HTTP, with an
 * identity that cannot read everything: Nodes forbidden (the `view` ClusterRole), everything
 * forbidden, only EndpointSlices, only HPAs forbidden. Exit codes, messages, and the unknown
 * answers in the text, JSON and Markdown output.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultControllers } from '../sim/default-controllers';
import { loadScenario } from '../sim/scenario';
import type { Simulator } from '../sim/server';
import { startSimulator } from '../sim/server';
import type { ClusterAnalysis } from '../lib/topology/report/analysis-schema';
import { main } from './analyze-cli';

let sim: Simulator;
let dir: string;
const saved = { KUBECONFIG: process.env.KUBECONFIG, ZONESCOPE_CONTEXT: process.env.ZONESCOPE_CONTEXT, ZONESCOPE_SNAPSHOT: process.env.ZONESCOPE_SNAPSHOT };

beforeAll(async () => {
  const scenario = await loadScenario('eks-demo');
  sim = await startSimulator({
    port: 0,
    objects: scenario.objects,
    controllers: defaultControllers(),
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
    log: () => undefined,
  });
  dir = await mkdtemp(path.join(tmpdir(), 'zonescope-analyze-unreadable-'));
  process.env.KUBECONFIG = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
}, 30_000);

afterAll(async () => {
  await sim.stop();
  await rm(dir, { recursive: true, force: true });
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

beforeEach(() => {
  sim.faults.resetRbac();
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['--context', 'zonescope-sim', '--timeout', '20', ...argv], { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

const NODES_UNKNOWN = 'unknown: zonescope could not read Nodes (forbidden)';

describe('npm run analyze on a live cluster whose identity cannot read everything', () => {
  it('reads eks-demo in full when everything is allowed', async () => {
    const { code, out } = await run('--format', 'json', '--fail-on', 'ineligible');
    expect(code).toBe(0);
    const analysis = JSON.parse(out) as ClusterAnalysis;
    expect(analysis.unreadable).toEqual([]);
    expect(analysis.cluster.unknown).toEqual({});
    expect(analysis.cluster.eligible).toBe(true);
  });

  it('with Nodes forbidden, says eligibility, zones and cross-zone are unknown instead of "Not eligible" and 0 %', async () => {
    sim.faults.deny({ verbs: ['list', 'watch'], resources: ['nodes'] });
    const text = await run();
    expect(text.code).toBe(0);
    expect(text.out).toContain(`Eligible for Topology Aware Routing: ${NODES_UNKNOWN}`);
    expect(text.out).not.toContain('Eligible for Topology Aware Routing: NO');
    expect(text.out).toContain(`Zones: ${NODES_UNKNOWN}`);
    expect(text.out).toMatch(/shop\/cart {2}\[topology-mode\] hints expected unknown, observed no hints; cross-zone unknown: zonescope could not read Nodes \(forbidden\)/);
    expect(text.out).not.toMatch(/cross-zone now 0\.0%/);
    expect(text.out).toContain('Could not read Nodes (forbidden): unknown cluster.zones, cluster.eligibility, cluster.ruleEstimates, services[].expectedHints, services[].crossZone, services[].fixes');
    expect(text.err).toContain('analyze: warning: zonescope could not read Nodes (forbidden) as system:serviceaccount:zonescope:zonescope');
    expect(text.err).toContain('RBAC rule that grants it: apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"]');

    const json = await run('--format', 'json');
    const analysis = JSON.parse(json.out) as ClusterAnalysis;
    expect(analysis.unreadable).toEqual([
      {
        resource: 'nodes',
        name: 'Nodes',
        reason: 'forbidden',
        affects: ['cluster.zones', 'cluster.eligibility', 'cluster.ruleEstimates', 'services[].expectedHints', 'services[].crossZone', 'services[].fixes'],
      },
    ]);
    expect(analysis.cluster.unknown).toEqual({ zones: NODES_UNKNOWN, eligibility: NODES_UNKNOWN, ruleEstimates: NODES_UNKNOWN });
    expect(analysis.cluster.verdict).toBe(NODES_UNKNOWN);
    const cart = analysis.services.find((s) => s.name === 'cart');
    expect(cart?.unknown).toEqual({ expectedHints: NODES_UNKNOWN, crossZone: NODES_UNKNOWN, fixes: NODES_UNKNOWN });
    expect(cart?.expected.verdict).toBe(NODES_UNKNOWN);
    // "Hints off" is the controller's verdict, which is unknown: no Service is listed for it.
    expect(analysis.cluster.needsAttention.filter((a) => a.reason === 'hints-off')).toEqual([]);

    const markdown = await run('--format', 'markdown');
    expect(markdown.out).toContain(`Eligible: **unknown** — ${NODES_UNKNOWN}`);
    expect(markdown.out).toMatch(/\| shop\/cart \| topology-mode \| unknown \| no hints \| unknown \| unknown \|/);
  });

  it('with Nodes forbidden, shows one Service without guessing its minimum table or fix', async () => {
    sim.faults.deny({ verbs: ['list', 'watch'], resources: ['nodes'] });
    const { code, out } = await run('--service', 'shop/catalog');
    expect(code).toBe(0);
    expect(out).toContain(`Fix: ${NODES_UNKNOWN}`);
    expect(out).not.toContain('kubectl scale deployment/catalog');
    expect(out).not.toContain('Per-zone minimum:');
  });

  it('with Nodes forbidden, fails the --fail-on rules that need them closed', async () => {
    sim.faults.deny({ verbs: ['list', 'watch'], resources: ['nodes'] });
    const { code, err } = await run('--fail-on', 'cross-zone>0.3', '--fail-on', 'ineligible', '--fail-on', 'hints-off');
    expect(code).toBe(1);
    expect(err).toContain('analyze: fail-on cross-zone>0.3: could not be evaluated because zonescope could not read Nodes (forbidden); failing closed');
    expect(err).toContain('analyze: fail-on ineligible: could not be evaluated because zonescope could not read Nodes (forbidden); failing closed');
    expect(err).toContain('analyze: fail-on hints-off: could not be evaluated because zonescope could not read Nodes (forbidden); failing closed');
  });

  it('with everything forbidden, exits 3 naming the types, the identity and the RBAC rules instead of reporting "Services (0)"', async () => {
    sim.faults.setRbac({ user: 'alice@example.com', allow: [] });
    const { code, out, err } = await run('--fail-on', 'cross-zone>0.3');
    expect(code).toBe(3);
    expect(out).toBe('');
    expect(err).toContain('analyze: could not read the cluster: zonescope could not read Services, EndpointSlices (forbidden) as alice@example.com; every answer needs them.');
    expect(err).toContain('RBAC rule that grants it: apiGroups: [""], resources: ["services"], verbs: ["get", "list", "watch"]');
    expect(err).toContain('RBAC rule that grants it: apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["get", "list", "watch"]');
  });

  it('with only EndpointSlices forbidden, exits 3 as well', async () => {
    sim.faults.deny({ verbs: ['list', 'watch'], resources: ['endpointslices'] });
    const { code, err } = await run();
    expect(code).toBe(3);
    expect(err).toContain('zonescope could not read EndpointSlices (forbidden) as system:serviceaccount:zonescope:zonescope');
  });

  it('with only HPAs forbidden, leaves zones and cross-zone known and marks the HPA answers unknown', async () => {
    sim.faults.deny({ verbs: ['list', 'watch'], resources: ['horizontalpodautoscalers'] });
    const json = await run('--format', 'json', '--fail-on', 'ineligible');
    expect(json.code).toBe(0);
    const analysis = JSON.parse(json.out) as ClusterAnalysis;
    expect(analysis.unreadable.map((u) => u.resource)).toEqual(['hpas']);
    expect(analysis.cluster.unknown).toEqual({});
    expect(analysis.cluster.eligible).toBe(true);
    const ledger = analysis.services.find((s) => s.name === 'ledger');
    const hpaUnknown = 'unknown: zonescope could not read HorizontalPodAutoscalers (forbidden)';
    expect(ledger?.unknown).toEqual({ hpa: hpaUnknown, fixes: hpaUnknown });
    expect(json.err).toContain('RBAC rule that grants it: apiGroups: ["autoscaling"], resources: ["horizontalpodautoscalers"], verbs: ["get", "list", "watch"]');

    const gated = await run('--fail-on', 'cross-zone>0.5');
    expect(gated.code).toBe(1);
    expect(gated.err).toContain('shop/cart (61.1%)');
    expect(gated.err).not.toContain('could not be evaluated');
    expect(gated.out).toContain('HPA / scale-down risk unknown: zonescope could not read HorizontalPodAutoscalers (forbidden)');
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ClusterAnalysis } from '../lib/topology/report/analysis-schema';
import { main } from './analyze-cli';

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('npm run analyze', () => {
  it('prints the analyze JSON for eks-demo with the documented fields', async () => {
    const { code, out } = await run('--snapshot', 'fixtures/eks-demo.yaml', '--format', 'json');
    expect(code).toBe(0);
    const analysis = JSON.parse(out) as ClusterAnalysis;
    expect(analysis.cluster.eligible).toBe(true);
    expect(analysis.cluster.proxyMode).toBe('iptables');
    expect(analysis.cluster.zones.map((z) => [z.name, z.cpuMillis])).toEqual([
      ['ap-northeast-2a', 15680],
      ['ap-northeast-2b', 11760],
      ['ap-northeast-2c', 7840],
    ]);
    const cart = analysis.services.find((s) => s.name === 'cart');
    expect(cart?.expected.hintsEnabled).toBe(false);
    expect(cart?.expected.event?.message).toBe('Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4');
    const ledger = analysis.services.find((s) => s.name === 'ledger');
    expect(ledger?.hpa).not.toBeNull();
    expect(ledger?.traffic.crossZoneFraction).toBeGreaterThan(0);
    expect(ledger?.traffic.crossZoneFractionIfNone).toBeGreaterThan(ledger?.traffic.crossZoneFraction ?? 1);
  });

  it.each(['eks-demo', 'missing-zone-label', 'single-zone', 'cilium-kpr', 'ipvs'])('analyses the bundled scenario %s', async (name) => {
    const { code, out } = await run('--snapshot', `fixtures/${name}.yaml`);
    expect(code).toBe(0);
    expect(out).toMatch(/Eligible for Topology Aware Routing: (yes|NO)/);
  });

  it('names the node to label when one node lacks a zone, and --fail-on ineligible exits 1', async () => {
    const { code, out, err } = await run('--snapshot', 'fixtures/missing-zone-label.yaml', '--fail-on', 'ineligible');
    expect(out).toContain('kubectl label node self-managed-node-1 topology.kubernetes.io/zone=ap-northeast-2b');
    expect(code).toBe(1);
    expect(err).toContain('fail-on ineligible');
  });

  it('shows one Service with its minimum table and the smallest fix', async () => {
    const { code, out } = await run('--snapshot', 'fixtures/eks-demo.yaml', '--service', 'shop/catalog');
    expect(code).toBe(0);
    expect(out).toContain('2 + 2 + 1 = 5 > 4 ready endpoints → hints off');
    expect(out).toContain('kubectl scale deployment/catalog -n shop --replicas=5');
  });

  it('fails cleanly on a bad snapshot, naming the file and document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonescope-analyze-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {}\n');
    const { code, out, err } = await run('--snapshot', file);
    expect(code).toBe(3);
    expect(out).toBe('');
    expect(err).toContain(`${file}, document 1, items[0]`);
  });

  it.each([
    [['--snapshot', 'x', '--context', 'y'], 'exactly one of'],
    [['--snapshot', 'fixtures/eks-demo.yaml', '--fail-on', 'cross-zone>2'], 'fraction from 0 to 1'],
    [['--snapshot', 'fixtures/eks-demo.yaml', '--format', 'xml'], '--format must be'],
    [['--snapshot', 'fixtures/eks-demo.yaml', '--service', 'a/b/c'], 'NAMESPACE/NAME'],
  ])('rejects bad arguments %j with exit 2', async (argv, message) => {
    const { code, err } = await run(...argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
  });

  it('--fail-on cross-zone>0.5 lists the Services over the threshold', async () => {
    const { code, err } = await run('--snapshot', 'fixtures/eks-demo.yaml', '--fail-on', 'cross-zone>0.5', '--format', 'markdown');
    expect(code).toBe(1);
    expect(err).toContain('shop/cart (61.1%)');
    expect(err).not.toContain('shop/checkout');
  });
});

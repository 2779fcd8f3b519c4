import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import type { ClusterAnalysis } from '../lib/topology/report/analysis-schema';
import { main } from './analyze-cli';
import type { Args } from './args';
import { parseArgs } from './args';
import type { ClusterExitCode, ClusterSection } from './several-clusters';
import { clusterHeading, forEachInOrder, worstExitCode } from './several-clusters';

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
    const { code, out, err } = await run('--snapshot', file).finally(() => rmSync(dir, { recursive: true, force: true }));
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

  it.each([
    [['--snapshot', 'fixtures/eks-demo.yaml', '--gb-per-endpoint', '-1'], '--gb-per-endpoint needs a non-negative number, got "-1"'],
    [['--snapshot', 'fixtures/eks-demo.yaml', '--price-per-gb', '101'], '--price-per-gb takes a number from 0 to 100, got 101'],
    [['--snapshot', 'fixtures/eks-demo.yaml', '--fail-on', 'cross-zone-cost>lots'], 'unknown --fail-on rule "cross-zone-cost>lots"'],
    [['--snapshot', 'fixtures/eks-demo.yaml', '--volumes'], '--volumes needs a value'],
  ])('rejects bad traffic arguments %j with exit 2', async (argv, message) => {
    const { code, out, err } = await run(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
  });

  it('--fail-on cross-zone>0.5 lists the Services over the threshold', async () => {
    const { code, err } = await run('--snapshot', 'fixtures/eks-demo.yaml', '--fail-on', 'cross-zone>0.5', '--format', 'markdown');
    expect(code).toBe(1);
    expect(err).toContain('shop/cart (61.1%)');
    expect(err).not.toContain('shop/checkout');
  });
});

describe('npm run analyze: zone traffic', () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  function volumesFile(content: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'zonescope-volumes-'));
    folders.push(dir);
    const file = join(dir, 'volumes.json');
    writeFileSync(file, content);
    return file;
  }

  it('text: totals now / after the next sync / best with dollars and saving, the price, the sources, the top Services with their fix', async () => {
    const { code, out } = await run('--snapshot', 'fixtures/eks-demo.yaml');
    expect(code).toBe(0);
    expect(out).toContain('Zone traffic (13 Services, per month):');
    expect(out).toContain('  Price: AWS (detected: server gitVersion v1.31.4-eks-2d98532): $0.01/GB leaving one zone and $0.01/GB entering the other — $0.02 per cross-zone GB.');
    expect(out).toMatch(/^ {2}now +\$25\.72\/month {2}1,286 of 4,200 GB cross-zone \(30\.6%\)$/m);
    // The best achievable takes each Service's smallest verified fix too (storefront: 2 more endpoints).
    expect(out).toMatch(/^ {2}best achievable +\$3\.94\/month {2}197 of 4,200 GB cross-zone \(4\.7%\) {2}saves \$21\.78\/month$/m);
    expect(out).toContain(
      '    shop/storefront  $2.00/month: 100 of 150 GB cross-zone (66.7%), assumed: 50 GB per ready endpoint per month × 3; best $0.00 with its smallest fix, saves $2.00; fix: Add 2 ready endpoints, to 5 (fewest donations with 1 in ap-northeast-2a, 1 in ap-northeast-2b) (saves $2.00)',
    );
    expect(out).toContain("    Assumed: 13 Services at 50 GB per ready endpoint per month — set ZONESCOPE_GB_PER_ENDPOINT, or a Service's own volume in ZONESCOPE_TRAFFIC_VOLUMES");
    expect(out).toContain(
      '    platform/config  $6.00/month: 300 of 450 GB cross-zone (66.7%), assumed: 50 GB per ready endpoint per month × 9; best $1.00 with topology mode Auto, saves $5.00; fix: Set service.kubernetes.io/topology-mode: Auto (saves $5.00)',
    );
    expect(out).toContain('Assumption: Traffic volume per Service: 50 GB per ready endpoint per month, assumed.');
  });

  it('markdown: the same section as tables', async () => {
    const { code, out } = await run('--snapshot', 'fixtures/eks-demo.yaml', '--format', 'markdown');
    expect(code).toBe(0);
    expect(out).toContain('## Zone traffic');
    expect(out).toContain('| best achievable | $3.94 | $21.78 | 197 | 4,200 | 4.7% |');
    expect(out).toContain('| platform/config | $6.00 | 450 | assumed: 50 GB per ready endpoint per month × 9 | 66.7% | $1.00 (with topology mode Auto) | $5.00 | Set service.kubernetes.io/topology-mode: Auto |');
  });

  it('JSON: a top-level traffic block whose total is the sum of the Services, scaled by --gb-per-endpoint', async () => {
    const base = JSON.parse((await run('--snapshot', 'fixtures/eks-demo.yaml', '--format', 'json')).out) as ClusterAnalysis;
    const sum = base.services.reduce((total, s) => total + s.traffic.monthlyCost.now.monthlyCost, 0);
    expect(base.traffic.totals.now.monthlyCost).toBeCloseTo(sum, 9);
    expect(base.traffic.topByCost).toHaveLength(9);
    const doubled = JSON.parse((await run('--snapshot', 'fixtures/eks-demo.yaml', '--format', 'json', '--gb-per-endpoint', '100')).out) as ClusterAnalysis;
    expect(doubled.traffic.totals.now.monthlyCost).toBeCloseTo(2 * base.traffic.totals.now.monthlyCost, 9);
    const flat = JSON.parse((await run('--snapshot', 'fixtures/eks-demo.yaml', '--format', 'json', '--gb-per-month', '1000')).out) as ClusterAnalysis;
    expect(flat.traffic.totals.now.gbPerMonth).toBe(13_000);
  });

  it('--volumes sets single Services: their volume and its label, the source counts', async () => {
    const file = volumesFile(JSON.stringify({ 'shop/storefront': 5000 }));
    const { code, out } = await run('--snapshot', 'fixtures/eks-demo.yaml', '--format', 'json', '--volumes', file);
    expect(code).toBe(0);
    const analysis = JSON.parse(out) as ClusterAnalysis;
    const storefront = analysis.services.find((s) => s.name === 'storefront');
    expect(storefront?.traffic.volume).toMatchObject({ gbPerMonth: 5000, source: { kind: 'set', label: 'set: 5,000 GB per month for this Service' } });
    expect(analysis.traffic.sources.set).toEqual({ services: 1, gbPerMonth: 5000 });
    expect(analysis.traffic.topByCost[0]?.name).toBe('storefront');
  });

  it('eks-demo with 30,000 GB a month on shop/storefront: it heads the savings with its smallest fix, the best achievable reflects it, and it leads the attention list', async () => {
    const file = volumesFile(JSON.stringify({ 'shop/storefront': 30_000 }));
    const analysis = JSON.parse((await run('--snapshot', 'fixtures/eks-demo.yaml', '--format', 'json', '--volumes', file)).out) as ClusterAnalysis;
    const top = analysis.traffic.topBySaving[0];
    expect(top).toMatchObject({ namespace: 'shop', name: 'storefront', bestScenario: 'fix' });
    expect(top?.fix).toMatch(/^Add 2 ready endpoints, to 5/);
    // Most of its cost saved: 2 of 3 endpoints' zones → hints on everywhere.
    expect((top?.saving ?? 0) / (top?.monthlyCost ?? 1)).toBeGreaterThan(0.9);
    expect(analysis.traffic.saving.best).toBeGreaterThan(top?.saving ?? Infinity);
    expect(analysis.traffic.totals.best.monthlyCost).toBeLessThan(analysis.traffic.totals.now.monthlyCost - (top?.saving ?? 0) + 1e-6);
    // Not annotated, yet listed: its fix saves more than the threshold; the list is costliest first.
    expect(analysis.cluster.needsAttention[0]).toMatchObject({ namespace: 'shop', name: 'storefront', reason: 'costly-fixable' });
    const storefront = analysis.services.find((s) => s.name === 'storefront');
    expect(storefront?.fixes[0]).toMatchObject({ primary: true, monthlySaving: top?.fixSaving });
  });

  it.each([
    ['a missing file', null, 'no such file'],
    ['invalid JSON', '{"shop/cart": ', 'not valid JSON'],
    ['an array', '[1, 2]', 'expected a JSON object {"namespace/name": GB per month, …}'],
    ['a key without a namespace', '{"cart": 10}', 'key "cart" is not namespace/name'],
    ['a negative volume', '{"shop/cart": -5}', '"shop/cart" must be a number of GB per month from 0 to 1000000000, got -5'],
    ['a string volume', '{"shop/cart": "10"}', '"shop/cart" must be a number of GB per month from 0 to 1000000000, got "10"'],
  ])('--volumes with %s: a clear error, exit 2, nothing on stdout', async (_, content, message) => {
    const file = content === null ? join(tmpdir(), 'zonescope-no-such-volumes.json') : volumesFile(content);
    const { code, out, err } = await run('--snapshot', 'fixtures/eks-demo.yaml', '--volumes', file);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`analyze: --volumes ${file}: ${message}`);
  });

  it("--fail-on 'cross-zone-cost>USD' exits 1 naming the total and the limit, 0 under it; with --service, that Service's cost", async () => {
    const over = await run('--snapshot', 'fixtures/eks-demo.yaml', '--fail-on', 'cross-zone-cost>20');
    expect(over.code).toBe(1);
    expect(over.err).toContain("analyze: fail-on cross-zone-cost>20: the cluster's cross-zone traffic costs $25.72 a month now, over the limit of $20");
    const under = await run('--snapshot', 'fixtures/eks-demo.yaml', '--fail-on', 'cross-zone-cost>30');
    expect(under.code).toBe(0);
    expect(under.err).toBe('');
    const one = await run('--snapshot', 'fixtures/eks-demo.yaml', '--service', 'shop/cart', '--fail-on', 'cross-zone-cost>1');
    expect(one.code).toBe(1);
    expect(one.err).toContain("analyze: fail-on cross-zone-cost>1: shop/cart's cross-zone traffic costs $1.22 a month now, over the limit of $1");
    expect(one.out).toContain('Traffic: 100 GB per month (assumed: 50 GB per ready endpoint per month × 2); cross-zone now $1.22/month');
  });

  it('--help lists the traffic options and the cost rule', async () => {
    const { code, out } = await run('--help');
    expect(code).toBe(0);
    for (const text of ['--gb-per-endpoint N', '--gb-per-month N', '--volumes FILE', '--price SPEC', '--price-per-gb N', '--prometheus URL', 'cross-zone-cost>USD']) expect(out).toContain(text);
  });

  it('--price: the same cluster costs $X on AWS, about $X/2 on Google Cloud and $0 on Azure', async () => {
    const cost = async (price: string) => (JSON.parse((await run('--snapshot', 'fixtures/eks-demo.yaml', '--format', 'json', '--price', price)).out) as ClusterAnalysis).traffic.totals.now.monthlyCost;
    const aws = await cost('aws');
    expect(aws).toBeCloseTo(25.72, 2);
    expect(await cost('gcp')).toBeCloseTo((aws / 2) * (1e9 / 2 ** 30), 6);
    expect(await cost('azure')).toBe(0);
    const bad = await run('--snapshot', 'fixtures/eks-demo.yaml', '--price', 'cheap');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('analyze: --price must be aws, gcp, azure, or a price such as "0.01/GB x2"');
  });
});

describe('npm run analyze: several clusters (argument parsing and helpers)', () => {
  const parsed = (...argv: string[]): Args => {
    const args = parseArgs(argv);
    if (typeof args === 'string') throw new Error(args);
    return args;
  };

  it('--all-contexts reads every context; --contexts A,B names them, trimmed and without repeats, in either order with --all-contexts', () => {
    expect(parsed('--all-contexts').clusters).toEqual({ contexts: null });
    expect(parsed('--contexts', 'prod, staging,prod').clusters).toEqual({ contexts: ['prod', 'staging'] });
    expect(parsed('--all-contexts', '--contexts', 'b,a').clusters).toEqual({ contexts: ['b', 'a'] });
    expect(parsed('--contexts', 'b,a', '--all-contexts', '--fail-on', 'ineligible').clusters).toEqual({ contexts: ['b', 'a'] });
    expect(parsed('--context', 'prod').clusters).toBeNull();
    expect(parsed().clusters).toBeNull();
  });

  it.each([
    [['--all-contexts', '--snapshot', 'fixtures/eks-demo.yaml'], '--snapshot and --all-contexts/--contexts are exclusive'],
    [['--contexts', 'a', '--snapshot', 'fixtures/eks-demo.yaml'], '--snapshot and --all-contexts/--contexts are exclusive'],
    [['--all-contexts', '--context', 'prod'], '--context and --all-contexts/--contexts are exclusive'],
    [['--contexts', 'a,,b'], '--contexts needs comma-separated context names, got "a,,b"'],
    [['--contexts', ' '], '--contexts needs comma-separated context names'],
    [['--contexts'], '--contexts needs a value'],
    [['--contexts', '--all-contexts'], '--contexts needs a value'],
  ])('rejects %j with exit 2 and nothing on stdout', async (argv, message) => {
    const { code, out, err } = await run(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
  });

  it('the exit code is the worst of the clusters: 3 over 1 over 0', () => {
    const cases: [ClusterExitCode[], ClusterExitCode][] = [
      [[], 0],
      [[0, 0], 0],
      [[0, 1, 0], 1],
      [[1, 3, 0], 3],
      [[3, 1], 3],
    ];
    for (const [codes, worst] of cases) expect(worstExitCode(codes)).toBe(worst);
  });

  it('forEachInOrder runs at most `limit` tasks at once and hands results on in item order', async () => {
    const resolvers = new Map<number, (value: string) => void>();
    let running = 0;
    let most = 0;
    const seen: string[] = [];
    const done = forEachInOrder(
      [0, 1, 2, 3],
      2,
      (item) =>
        new Promise<string>((resolve) => {
          running++;
          most = Math.max(most, running);
          resolvers.set(item, (value) => {
            running--;
            resolve(value);
          });
        }),
      (result, index) => seen.push(`${index}:${result}`),
    );
    await expect.poll(() => [...resolvers.keys()]).toEqual([0, 1]);
    resolvers.get(1)?.('b'); // finishes first, but waits for item 0
    // Its place is taken by item 2 at once; its result is not reported before item 0's.
    await expect.poll(() => [...resolvers.keys()]).toEqual([0, 1, 2]);
    expect(seen).toEqual([]);
    resolvers.get(0)?.('a');
    await expect.poll(() => seen).toEqual(['0:a', '1:b']);
    resolvers.get(3)?.('d');
    resolvers.get(2)?.('c');
    await done;
    expect(seen).toEqual(['0:a', '1:b', '2:c', '3:d']);
    expect(most).toBe(2);
  });

  it('a heading names the display name, the context and the server', () => {
    expect(clusterHeading({ displayName: 'prod', context: 'arn:aws:eks:eu-west-1:123456789012:cluster/prod', server: 'https://example.eks.amazonaws.com' })).toBe(
      'Cluster prod (context arn:aws:eks:eu-west-1:123456789012:cluster/prod, server https://example.eks.amazonaws.com)',
    );
    expect(clusterHeading({ displayName: 'in-cluster', context: null, server: 'https://10.0.0.1:443' })).toBe('Cluster in-cluster (in-cluster service account, server https://10.0.0.1:443)');
    expect(clusterHeading({ displayName: 'default', context: null, server: null })).toBe('Cluster default (no kubeconfig)');
  });

  it('--help documents --all-contexts, --contexts and the worst-of exit code', async () => {
    const { code, out } = await run('--help');
    expect(code).toBe(0);
    expect(out).toContain('--all-contexts');
    expect(out).toContain('--contexts A,B');
    expect(out).toContain('exits with the worst of them (3 over 1 over 0)');
  });
});

describe('npm run analyze: several clusters without a reachable one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zonescope-analyze-contexts-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // Never contacted: every test here fails before connecting.
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{ name: a, cluster: { server: "http://127.0.0.1:9", insecure-skip-tls-verify: true } }]',
      'users: [{ name: a, user: { token: t } }]',
      'contexts: [{ name: a, context: { cluster: a, user: a } }, { name: broken, context: { cluster: gone, user: a } }]',
      'current-context: a',
      '',
    ].join('\n'),
  );
  const environment = (env: Record<string, string>) => {
    for (const name of ['KUBECONFIG', 'ZONESCOPE_CONTEXT', 'ZONESCOPE_CONTEXTS', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CLUSTER_NAME', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT']) vi.stubEnv(name, '');
    vi.stubEnv('HOME', dir);
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  };
  afterEach(() => vi.unstubAllEnvs());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('JSON: a context the kubeconfig lacks and one naming no cluster are sections with their error, in --contexts order, exit 3', async () => {
    environment({ KUBECONFIG: kubeconfig });
    const { code, out, err } = await run('--contexts', 'missing,broken', '--format', 'json', '--fail-on', 'ineligible');
    expect(code).toBe(3);
    const json = JSON.parse(out) as { clusters: ClusterSection[]; exitCode: number };
    expect(json.exitCode).toBe(3);
    expect(json.clusters).toEqual([
      { id: 'missing', context: 'missing', displayName: 'missing', server: null, ok: false, exitCode: 3, error: 'Context "missing" is not in the kubeconfig (contexts: a, broken).' },
      { id: 'broken', context: 'broken', displayName: 'broken', server: null, ok: false, exitCode: 3, error: 'Context "broken" names cluster "gone", which the kubeconfig does not define.' },
    ]);
    expect(err).toContain('analyze [missing]: Context "missing" is not in the kubeconfig');
  });

  it('text: without any configuration, one section saying so and a summary, exit 3', async () => {
    environment({});
    const { code, out } = await run('--all-contexts');
    expect(code).toBe(3);
    expect(out).toMatch(/^Cluster default \(no kubeconfig\)\n=+\nCould not read this cluster: No cluster configured: set KUBECONFIG/);
    expect(out).toContain('Summary: 1 cluster, exit 3\n  default  could not be read (exit 3)\n');
  });
});

/**
 * `npm run analyze -- --all-contexts` / `--contexts A,B` against three simulators of different
 * scenarios behind one kubeconfig, over real HTTP, plus a context whose server nothing listens on:
 *
 * - `shop`: eks-demo, eligible;
 * - `zoneless`: missing-zone-label, ineligible (a node without a zone);
 * - `edge`: single-zone, its identity forbidden to list Nodes (the sim's RBAC faults);
 * - `lost`: a port nobody listens on.
 *
 * One section per cluster (text, Markdown, JSON), `--fail-on` evaluated per cluster, the exit code
 * the worst of them, and ZONESCOPE_CONTEXTS honoured.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadScenario } from '../sim/scenario';
import type { Simulator } from '../sim/server';
import { startSimulator } from '../sim/server';
import type { ClusterSection } from './several-clusters';
import { main } from './analyze-cli';

const sims: Simulator[] = [];
let dir = '';
let kubeconfig = '';
let lostServer = '';
let shopServer = '';

/** A port that was free a moment ago and that nothing listens on now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface KubeconfigParts {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
}

/** The cluster and user of one simulator's kubeconfig. */
function entriesOf(yaml: string): { cluster: Record<string, unknown>; user: Record<string, unknown> } {
  const parsed = parse(yaml) as KubeconfigParts;
  const cluster = parsed.clusters[0]?.cluster;
  const user = parsed.users[0]?.user;
  if (cluster === undefined || user === undefined) throw new Error('the simulator wrote a kubeconfig without a cluster or user');
  return { cluster, user };
}

async function simulator(scenario: string): Promise<Simulator> {
  const loaded = await loadScenario(scenario);
  const sim = await startSimulator({ port: 0, objects: loaded.objects, ...(loaded.serverVersion !== undefined ? { version: loaded.serverVersion } : {}), log: () => undefined });
  sims.push(sim);
  return sim;
}

beforeAll(async () => {
  const [shop, zoneless, edge] = await Promise.all([simulator('eks-demo'), simulator('missing-zone-label'), simulator('single-zone')]);
  if (shop === undefined || zoneless === undefined || edge === undefined) throw new Error('a simulator did not start');
  edge.faults.deny({ verbs: ['list', 'watch'], resources: ['nodes'] });
  shopServer = shop.url;
  lostServer = `http://127.0.0.1:${await closedPort()}`;
  const named: [string, { cluster: Record<string, unknown>; user: Record<string, unknown> }][] = [
    ['shop', entriesOf(shop.kubeconfig())],
    ['zoneless', entriesOf(zoneless.kubeconfig())],
    ['edge', entriesOf(edge.kubeconfig())],
    ['lost', entriesOf(shop.kubeconfig({ server: lostServer }))],
  ];
  dir = await mkdtemp(path.join(tmpdir(), 'zonescope-analyze-all-'));
  kubeconfig = path.join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: named.map(([name, parts]) => ({ name, cluster: parts.cluster })),
      users: named.map(([name, parts]) => ({ name, user: parts.user })),
      contexts: named.map(([name]) => ({ name, context: { cluster: name, user: name, namespace: 'default' } })),
      'current-context': 'shop',
    }),
    { mode: 0o600 },
  );
}, 30_000);

afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

afterEach(() => vi.unstubAllEnvs());

/** Only this kubeconfig counts (not a developer's own, nor a proxy or a dashboard setting). */
function environment(env: Record<string, string> = {}): void {
  for (const name of ['ZONESCOPE_CONTEXT', 'ZONESCOPE_CONTEXTS', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CLUSTER_NAME', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) {
    vi.stubEnv(name, '');
  }
  vi.stubEnv('KUBECONFIG', kubeconfig);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
}

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

/** The text of one section: from its heading to the next heading or the summary. */
function section(out: string, heading: string): string {
  const start = out.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}" in:\n${out}`);
  const rest = out.slice(start + heading.length + 1);
  const end = rest.search(/^(Cluster \S+ \(context |Summary: )/m);
  return end < 0 ? rest : rest.slice(0, end);
}

// The unreachable cluster keeps retrying (connection refused may pass) until --timeout: keep it short.
const TIMEOUT = ['--timeout', '6'];

describe('npm run analyze --all-contexts', () => {
  it('text: a section per cluster in kubeconfig order with its heading, --fail-on per cluster, a summary, exit 3 (the worst)', async () => {
    environment();
    const { code, out, err } = await run('--all-contexts', '--fail-on', 'ineligible', ...TIMEOUT);
    expect(code).toBe(3);

    const headings = out.split('\n').filter((line) => line.startsWith('Cluster '));
    expect(headings).toEqual([
      `Cluster shop (context shop, server ${shopServer})`,
      expect.stringMatching(/^Cluster zoneless \(context zoneless, server http:\/\/127\.0\.0\.1:\d+\)$/),
      expect.stringMatching(/^Cluster edge \(context edge, server http:\/\/127\.0\.0\.1:\d+\)$/),
      `Cluster lost (context lost, server ${lostServer})`,
    ]);

    const shop = section(out, `Cluster shop (context shop, server ${shopServer})`);
    expect(shop).toMatch(/^=+\n/);
    expect(shop).toContain('Eligible for Topology Aware Routing: yes');
    expect(shop).toContain('Zone traffic (');
    expect(shop).toContain('Fail-on: every rule passed (ineligible)');

    const zoneless = section(out, headings[1] ?? '');
    expect(zoneless).toContain('Eligible for Topology Aware Routing: NO');
    expect(zoneless).toContain('Fail-on: a rule held (exit 1):\n  ineligible: ');

    const edge = section(out, headings[2] ?? '');
    expect(edge).toContain('Eligible for Topology Aware Routing: unknown: zonescope could not read Nodes (forbidden)');
    expect(edge).toContain('ineligible: could not be evaluated because zonescope could not read Nodes (forbidden); failing closed');

    const lost = section(out, `Cluster lost (context lost, server ${lostServer})`);
    expect(lost).toMatch(/^=+\nCould not read this cluster: the cluster did not sync within 6 s: /);
    expect(lost).not.toContain('Fail-on:');

    expect(out).toMatch(/Summary: 4 clusters, exit 3\n {2}shop {6}ok\n {2}zoneless {2}fail-on held: ineligible \(exit 1\)\n {2}edge {6}fail-on held: ineligible \(exit 1\)\n {2}lost {6}could not be read \(exit 3\)\n$/);

    // stderr names the cluster of every warning, error and rule that held.
    expect(err).toContain('analyze [zoneless]: fail-on ineligible: ');
    expect(err).toContain('analyze [edge]: warning: zonescope could not read Nodes (forbidden)');
    expect(err).toContain('analyze [edge]: fail-on ineligible: could not be evaluated');
    expect(err).toContain('analyze [lost]: the cluster did not sync within 6 s');
    expect(err).not.toContain('analyze [shop]');
  }, 60_000);

  it('JSON: { clusters } with id, context, display name, server, ok, error, failOn and report per cluster; --contexts picks and orders them', async () => {
    environment();
    const { code, out } = await run('--contexts', 'edge,lost,shop', '--format', 'json', '--fail-on', 'ineligible', '--fail-on', 'attention>100', ...TIMEOUT);
    expect(code).toBe(3);
    const json = JSON.parse(out) as { clusters: ClusterSection[]; exitCode: number };
    expect(json.exitCode).toBe(3);
    expect(json.clusters.map((c) => [c.id, c.context, c.displayName, c.ok, c.exitCode])).toEqual([
      ['edge', 'edge', 'edge', true, 1],
      ['lost', 'lost', 'lost', false, 3],
      ['shop', 'shop', 'shop', true, 0],
    ]);
    const [edge, lost, shop] = json.clusters;
    expect(edge?.failOn).toEqual({
      rules: ['ineligible', 'attention>100'],
      // Both need the Nodes, which this identity may not list: each fails closed, in this cluster only.
      held: ['ineligible', 'attention>100'],
      failures: [
        'ineligible: could not be evaluated because zonescope could not read Nodes (forbidden); failing closed',
        'attention>100: could not be evaluated because zonescope could not read Nodes (forbidden); failing closed',
      ],
    });
    expect(edge?.report?.unreadable.map((u) => u.resource)).toEqual(['nodes']);
    expect(lost).toMatchObject({ server: lostServer, error: expect.stringMatching(/^the cluster did not sync within 6 s: /) });
    expect(lost?.report).toBeUndefined();
    expect(lost?.failOn).toBeUndefined();
    expect(shop?.server).toBe(shopServer);
    expect(shop?.failOn).toEqual({ rules: ['ineligible', 'attention>100'], held: [], failures: [] });
    expect(shop?.report?.cluster.eligible).toBe(true);
    expect(shop?.report?.cluster.zones.map((z) => z.name)).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
  }, 60_000);

  it('without the unreachable cluster the worst is 1, and with only passing clusters 0; Markdown sections too', async () => {
    environment();
    const held = await run('--contexts', 'shop,zoneless', '--format', 'markdown', '--fail-on', 'ineligible', ...TIMEOUT);
    expect(held.code).toBe(1);
    expect(held.out).toMatch(/^# zonescope analysis: 2 clusters\n\n## shop\n\ncontext `shop`, server `http:\/\/127\.0\.0\.1:\d+`\.\n/);
    expect(held.out).toContain('### Zone traffic');
    expect(held.out).toContain('## zoneless');
    expect(held.out).toContain('| zoneless | zoneless | fail-on held: ineligible (exit 1) |');
    expect(held.out).toContain('2 clusters, exit 1.');

    const passed = await run('--contexts', 'shop', '--fail-on', 'ineligible', ...TIMEOUT);
    expect(passed.code).toBe(0);
    expect(passed.out).toContain('Summary: 1 cluster, exit 0\n  shop  ok\n');
  }, 60_000);

  it('--all-contexts honours ZONESCOPE_CONTEXTS, and a name the kubeconfig lacks is a section with its error', async () => {
    environment({ ZONESCOPE_CONTEXTS: 'zoneless,nowhere' });
    const { code, out } = await run('--all-contexts', '--format', 'json', ...TIMEOUT);
    expect(code).toBe(3);
    const json = JSON.parse(out) as { clusters: ClusterSection[] };
    expect(json.clusters.map((c) => [c.context, c.ok, c.exitCode])).toEqual([
      ['zoneless', true, 0],
      ['nowhere', false, 3],
    ]);
    expect(json.clusters[1]?.error).toBe('Context "nowhere" is not in the kubeconfig (contexts: shop, zoneless, edge, lost).');
  }, 60_000);
});

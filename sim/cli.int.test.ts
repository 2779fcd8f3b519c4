/**
 * The CLI as a process: `node --import tsx sim/cli.ts ...` (what `npm run sim -- ...` runs).
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import https from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultContextName, parseCliArgs } from './cli-args';
import { waitFor } from './test-support';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Cli {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function cli(...args: string[]): Cli {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sim/cli.ts', ...args], { cwd: PROJECT });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

describe('defaultContextName', () => {
  it('names the kubeconfig after what the simulator serves', () => {
    expect(defaultContextName('eks-demo')).toBe('eks-demo');
    expect(defaultContextName('generated:realistic-S')).toBe('generated-realistic-s');
    expect(defaultContextName('dumps/prod-eu.yaml')).toBe('prod-eu');
    expect(defaultContextName('dumps/cluster-b/')).toBe('cluster-b');
    expect(defaultContextName('***')).toBe('zonescope-sim');
  });
});

describe('parseCliArgs', () => {
  it('accepts the documented forms', () => {
    expect(parseCliArgs(['--scenario', 'tiny'])).toEqual({
      kind: 'run',
      options: {
        scenario: 'tiny', snapshot: undefined, port: 0, kubeconfig: undefined, context: 'tiny', serverVersion: undefined, tls: false, tlsNames: [], auth: 'none',
        trafficMetrics: { flowZoneLabels: false, exporter: 'beyla', interZone: true },
      },
    });
    expect(parseCliArgs(['--scenario', 'tiny', '--flow-zone-labels', '--exporter=obi', '--no-inter-zone'])).toMatchObject({
      kind: 'run', options: { trafficMetrics: { flowZoneLabels: true, exporter: 'obi', interZone: false } },
    });
    expect(parseCliArgs(['--scenario', 'tiny', '--tls', '--tls-san', 'sim.example.test, 10.0.0.7', '--auth=client-cert'])).toMatchObject({
      kind: 'run', options: { tls: true, tlsNames: ['sim.example.test', '10.0.0.7'], auth: 'client-cert' },
    });
    expect(parseCliArgs(['--scenario', 'tiny', '--auth', 'exec'])).toMatchObject({ kind: 'run', options: { tls: false, auth: 'exec' } });
    expect(parseCliArgs(['--snapshot=dump.yaml', '--port', '6443', '--kubeconfig', 'k'])).toMatchObject({
      kind: 'run', options: { snapshot: 'dump.yaml', port: 6443, kubeconfig: 'k', context: 'dump' },
    });
    expect(parseCliArgs(['--scenario', 'eks-demo', '--context', 'prod-eu'])).toMatchObject({ kind: 'run', options: { context: 'prod-eu' } });
    expect(parseCliArgs(['--help'])).toEqual({ kind: 'help' });
  });

  it.each([
    [[], 'one of --scenario or --snapshot is required'],
    [['--scenario', 'a', '--snapshot', 'b'], '--scenario and --snapshot are exclusive'],
    [['--scenario'], '--scenario needs a value'],
    [['--scenario', '--port', '1'], '--scenario needs a value'],
    [['--scenario', 'a', '--port', 'x'], '--port must be an integer from 0 to 65535, got "x"'],
    [['--scenario', 'a', '--port', '70000'], '--port must be an integer from 0 to 65535, got "70000"'],
    [['--scenario', 'a', '--verbose'], 'unknown argument "--verbose"'],
    [['--scenario', 'a', '--scenario', 'b'], '--scenario given twice'],
    [['--scenario', 'a', '--server-version', '1.30'], '--server-version must look like v1.31.4, got "1.30"'],
    [['--scenario', 'a', '--auth', 'basic'], '--auth must be one of none, token, client-cert, exec, got "basic"'],
    [['--scenario', 'a', '--auth', 'client-cert'], '--auth client-cert needs --tls (client certificates are checked in the TLS handshake)'],
    [['--scenario', 'a', '--tls-san', 'x.test'], '--tls-san needs --tls'],
    [['--scenario', 'a', '--tls', '--tls-san', 'a b'], '--tls-san takes host names or IP addresses, got "a b"'],
    [['--scenario', 'a', '--tls', '--tls'], '--tls given twice'],
    [['--scenario', 'a', '--exporter', 'otel'], '--exporter must be one of beyla, obi, got "otel"'],
    [['--scenario', 'a', '--flow-zone-labels', '--flow-zone-labels'], '--flow-zone-labels given twice'],
    [['--scenario', 'a', '--context', 'bad name'], '--context takes letters, digits, ".", "_", ":" and "-" (at most 253, starting with a letter or digit), got "bad name"'],
  ])('rejects %j', (argv, message) => {
    expect(parseCliArgs(argv)).toEqual({ kind: 'error', message });
  });
});

describe('sim CLI', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sim-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a scenario, writes a kubeconfig, prints the URL and export line, and stops on SIGTERM', async () => {
    const kubeconfig = path.join(dir, 'nested', 'kubeconfig');
    const run = cli('--scenario', 'tiny', '--port', '0', '--kubeconfig', kubeconfig);
    try {
      await waitFor(() => run.stdout().includes('export KUBECONFIG='), 15_000, 'the CLI to start');
      const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout())?.[1];
      expect(url).toBeDefined();
      expect(run.stdout()).toContain(`export KUBECONFIG=${kubeconfig}`);
      expect(run.stdout()).toContain('(beyla flows without src_zone/dst_zone, inter-zone metric on; scrape with honor_labels: true)');
      const config = parse(await readFile(kubeconfig, 'utf8')) as {
        'current-context': string;
        clusters: { cluster: Record<string, unknown> }[];
        users: { user: Record<string, unknown> }[];
      };
      // Named after what it serves, so two simulators' kubeconfigs merge (KUBECONFIG=a:b).
      expect(config['current-context']).toBe('tiny');
      expect(config.clusters[0]?.cluster).toEqual({ server: url, 'insecure-skip-tls-verify': true });
      expect(config.users[0]?.user.token).toEqual(expect.any(String));
      const nodes = (await (await fetch(`${url ?? ''}/api/v1/nodes`)).json()) as { kind: string; items: unknown[] };
      expect(nodes.kind).toBe('NodeList');
      expect(nodes.items).toHaveLength(3);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exit).toBe(0);
    expect(run.stdout()).toContain('SIGTERM, stopping');
  });

  it('serves a snapshot with the version its ServerVersion document names', async () => {
    const snapshot = path.join(dir, 'snap.yaml');
    await writeFile(snapshot, [
      'apiVersion: zonescope.dev/v1\nkind: ServerVersion\ngitVersion: v1.26.3\n',
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n',
    ].join('---\n'));
    const run = cli('--snapshot', snapshot, '--kubeconfig', path.join(dir, 'kc2'));
    try {
      await waitFor(() => run.stdout().includes('export KUBECONFIG='), 15_000, 'the CLI to start');
      expect(run.stdout()).toContain('(Kubernetes v1.26.3)');
      const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout())?.[1] ?? '';
      expect(await (await fetch(`${url}/version`)).json()).toMatchObject({ gitVersion: 'v1.26.3', minor: '26' });
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exit).toBe(0);
  });

  // A process of its own: starting tsx and making the RSA keys take several seconds on a busy machine.
  it('--tls --auth client-cert: serves HTTPS and writes a kubeconfig with the CA and a client certificate', { timeout: 30_000 }, async () => {
    const kubeconfig = path.join(dir, 'tls', 'kubeconfig');
    const run = cli('--scenario', 'tiny', '--tls', '--auth', 'client-cert', '--kubeconfig', kubeconfig);
    try {
      await waitFor(() => run.stdout().includes('export KUBECONFIG='), 20_000, 'the CLI to start');
      const url = /at (https:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout())?.[1] ?? '';
      expect(url).not.toBe('');
      expect(run.stdout()).toContain('TLS: server certificate for 127.0.0.1, ::1, localhost, signed by a CA generated at start-up (in the kubeconfig as certificate-authority-data)');
      expect(run.stdout()).toContain('auth: client certificate signed by the generated CA required (in the kubeconfig)');
      const config = parse(await readFile(kubeconfig, 'utf8')) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
      const cluster = config.clusters[0]?.cluster ?? {};
      const user = config.users[0]?.user ?? {};
      const pem = (data: string | undefined): string => Buffer.from(data ?? '', 'base64').toString('utf8');
      const get = (options: https.RequestOptions): Promise<number | string> =>
        new Promise((resolve) => {
          https.get(`${url}/api/v1/nodes`, { agent: false, ...options }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          }).on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        });
      const ca = pem(cluster['certificate-authority-data']);
      expect(await get({ ca, cert: pem(user['client-certificate-data']), key: pem(user['client-key-data']) })).toBe(200);
      expect(await get({ ca })).toBe('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exit).toBe(0);
  });

  it('exits 2 with the usage on bad arguments', async () => {
    const run = cli('--scenario', 'tiny', '--port', 'nope');
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain('--port must be an integer');
    expect(run.stderr()).toContain('usage: npm run sim --');
  });

  it('exits 1 naming the file and document of a malformed snapshot', async () => {
    const snapshot = path.join(dir, 'bad.yaml');
    await writeFile(snapshot, 'apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: [\n');
    const run = cli('--snapshot', snapshot);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toContain(`${snapshot}, document 2: YAML syntax error`);
  });
});

/**
 * `npm run image:test`: deploy/Dockerfile built and run as a cluster would run it, on this machine
 * without a Docker engine or an image registry (issue 31).
 * 1. The Dockerfile's base (`node:24-bookworm-slim`) is assembled from Debian's packages and the
 *    npm registry's Node binary, and tagged as the Dockerfile names it (scripts/image/base-image.ts;
 *    kept in the image store between runs).
 * 2. `buildah bud --isolation chroot` builds deploy/Dockerfile as it is, from the repository root
 *    (its `.dockerignore` applies), and tags the result as the manifests name it.
 * 3. podman runs it twice as the Deployment does (non-root from the image, read-only root
 *    filesystem, `/tmp` and `.next/cache` as the only writable paths, every capability dropped, no
 *    privilege escalation) against the simulator: once with a kubeconfig mounted, once in-cluster
 *    (KUBERNETES_SERVICE_HOST/PORT and a service-account folder at the path the kubelet mounts it,
 *    over TLS with a required token). Each answers the Overview, a Service page and `/metrics`,
 *    asked from inside the container and from the host.
 * The containers share the host's network (the only network podman has here), so each is told to
 * listen on loopback only (HOSTNAME, ZONESCOPE_HOST), on a free port.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startScenarioSimulator } from '../../app/api/v1/_testing/harness';
import { freeLoopbackPort } from '../../sim/prometheus';
import type { Simulator } from '../../sim/server';
import { podEnvironment } from '../../sim/test-support';
import { baseImageOfFile, ensureBaseImage } from './base-image';
import { capture, missingTools, PODMAN_RUN_BASE, podman, podmanResult, stream } from './containers';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const DOCKERFILE = path.join(ROOT, 'deploy', 'Dockerfile');
/** The tag the test builds, and the one the manifests name (deploy/kubernetes/base/deployment.yaml). */
const IMAGE = 'localhost/zonescope:image-test';
const MANIFEST_IMAGE = /image:\s*(\S+)/.exec(readFileSync(path.join(ROOT, 'deploy', 'kubernetes', 'base', 'deployment.yaml'), 'utf8'))?.[1] ?? '';
/** Where the kubelet mounts a Pod's service-account token, CA and namespace. */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** A Service of eks-demo with hints on, and its page. */
const SERVICE = { namespace: 'payments', name: 'ledger' } as const;

const log = (line: string): void => {
  process.stdout.write(`image: ${line}\n`);
};

interface RunningContainer {
  readonly name: string;
  readonly port: number;
}

/** `podman run -d` with the Deployment's security settings, on a free loopback port. */
async function runContainer(name: string, env: Record<string, string>, mounts: readonly string[]): Promise<RunningContainer> {
  const port = await freeLoopbackPort();
  await podmanResult(['rm', '--force', name]);
  await podman([
    'run', '--detach', '--name', name,
    ...PODMAN_RUN_BASE,
    '--read-only', '--read-only-tmpfs=false',
    '--tmpfs', '/tmp:rw,size=256m', '--tmpfs', '/app/.next/cache:rw,size=256m,mode=1777',
    '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
    '--memory', '1g',
    '--env', `PORT=${port}`, '--env', 'HOSTNAME=127.0.0.1', '--env', 'ZONESCOPE_HOST=127.0.0.1',
    ...Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
    ...mounts.flatMap((mount) => ['--volume', mount]),
    IMAGE,
  ]);
  return { name, port };
}

/** GET `path` from inside the container (its own Node: the image has no curl): status and body. */
async function getInside(container: RunningContainer, urlPath: string): Promise<{ status: number; body: string }> {
  const script = `fetch('http://127.0.0.1:${container.port}${urlPath}').then(async (r) => { process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })); }, (e) => { process.stdout.write(JSON.stringify({ status: 0, body: String(e) })); })`;
  const result = await podmanResult(['exec', container.name, 'node', '-e', script], 60_000);
  if (result.code !== 0) throw new Error(`podman exec ${container.name} node -e fetch(…) exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as { status: number; body: string };
}

/** Waits until the container's dashboard is ready (every resource type listed); its log on failure. */
async function waitReady(container: RunningContainer, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    const state = (await podmanResult(['inspect', '--format', '{{.State.Status}}', container.name])).stdout.trim();
    if (state !== 'running') break;
    try {
      const response = await fetch(`http://127.0.0.1:${container.port}/api/health/ready`, { signal: AbortSignal.timeout(5_000) });
      last = `${response.status} ${await response.text()}`;
      if (response.status === 200) return;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const logs = await podmanResult(['logs', '--tail', '60', container.name]);
  throw new Error(`${container.name} was not ready (last: ${last}); its log:\n${logs.stdout}${logs.stderr}`);
}

/** The Overview, a Service page and /metrics, from inside the container and from the host. */
async function expectPagesAndMetrics(container: RunningContainer): Promise<void> {
  const overview = await getInside(container, '/');
  expect(overview.status, 'GET / (Overview) inside the container').toBe(200);
  expect(overview.body).toContain('Overview');
  expect(overview.body).toContain(SERVICE.namespace);

  const page = await getInside(container, `/services/${SERVICE.namespace}/${SERVICE.name}`);
  expect(page.status, 'GET the Service page inside the container').toBe(200);
  expect(page.body).toContain(`${SERVICE.namespace}/${SERVICE.name}`);

  const metrics = await getInside(container, '/metrics');
  expect(metrics.status, 'GET /metrics inside the container').toBe(200);
  expect(metrics.body).toMatch(new RegExp(`^zonescope_service_hints_observed_ratio\\{[^}]*namespace="${SERVICE.namespace}"[^}]*service="${SERVICE.name}"[^}]*\\} 1$`, 'm'));

  for (const urlPath of ['/', `/services/${SERVICE.namespace}/${SERVICE.name}`, '/metrics']) {
    const response = await fetch(`http://127.0.0.1:${container.port}${urlPath}`);
    expect(response.status, `GET ${urlPath} from the host`).toBe(200);
  }
}

/**
 * This machine's npm settings that the build's `npm ci` needs to reach the registry as this
 * machine does: its registry, proxies and CA file (a TLS-inspecting proxy's CA, as here and in
 * many companies). They reach the RUN steps as mounted files (a global npmrc, the CA file),
 * never as layers of the image, and the Dockerfile stays as it is.
 */
async function buildNpmSettings(work: string): Promise<{ volumes: string[]; described: string }> {
  const get = async (key: string): Promise<string | null> => {
    const value = (await capture('npm', ['config', 'get', key])).stdout.trim();
    return value === '' || value === 'null' || value === 'undefined' ? null : value;
  };
  const lines: string[] = [];
  const volumes: string[] = [];
  const registry = await get('registry');
  if (registry !== null && registry !== 'https://registry.npmjs.org/') lines.push(`registry=${registry}`);
  for (const key of ['proxy', 'https-proxy', 'noproxy']) {
    const value = await get(key);
    if (value !== null) lines.push(`${key}=${value}`);
  }
  const cafile = (await get('cafile')) ?? process.env.NODE_EXTRA_CA_CERTS?.trim() ?? null;
  if (cafile !== null && existsSync(cafile)) {
    volumes.push('--volume', `${cafile}:/run/zonescope-build/ca.crt:ro`);
    lines.push('cafile=/run/zonescope-build/ca.crt');
  }
  if (lines.length === 0) return { volumes, described: '' };
  const npmrc = path.join(work, 'build-npmrc');
  writeFileSync(npmrc, `${lines.join('\n')}\n`);
  volumes.push('--volume', `${npmrc}:/usr/local/etc/npmrc:ro`);
  return { volumes, described: `; this machine's npm ${lines.map((line) => line.split('=')[0]).join(', ')} mounted for it` };
}

describe('the image of deploy/Dockerfile', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'zonescope-image-'));
  const containers: string[] = [];
  const sims: Simulator[] = [];

  beforeAll(async () => {
    const missing = missingTools();
    if (missing !== null) throw new Error(missing);
    const base = baseImageOfFile(DOCKERFILE);
    await ensureBaseImage(base, log);
    const npmSettings = await buildNpmSettings(work);
    log(`buildah bud --isolation chroot -f deploy/Dockerfile -t ${IMAGE} . (npm ci and next build inside${npmSettings.described})`);
    const started = Date.now();
    await stream(
      'buildah',
      ['bud', '--isolation', 'chroot', '--network', 'host', '--pull=never', '--layers', ...npmSettings.volumes, '-f', DOCKERFILE, '-t', IMAGE, ROOT],
      (line) => {
        if (/^STEP \d+\/\d+|^COMMIT|^Successfully|error/i.test(line)) log(`  ${line}`);
      },
      { timeoutMs: 20 * 60_000 },
    );
    log(`built ${IMAGE} in ${Math.round((Date.now() - started) / 1000)} s`);
    if (MANIFEST_IMAGE !== '') await podman(['tag', IMAGE, MANIFEST_IMAGE]);
  }, 40 * 60_000);

  afterAll(async () => {
    for (const name of containers) await podmanResult(['rm', '--force', '--time', '5', name]);
    for (const sim of sims) await sim.stop();
    rmSync(work, { recursive: true, force: true });
  }, 120_000);

  async function startEksDemo(): Promise<Simulator> {
    const sim = await startScenarioSimulator('eks-demo', { tls: true, auth: 'token' });
    sims.push(sim);
    return sim;
  }

  it('is the Dockerfile\'s runtime stage: non-root by default, serving server.js on port 3000, tagged as the manifests name it', async () => {
    const config = JSON.parse(await podman(['image', 'inspect', '--format', '{{json .Config}}', IMAGE])) as { User?: string; Entrypoint?: string[]; Cmd?: string[]; ExposedPorts?: Record<string, unknown>; WorkingDir?: string };
    expect(config.User).toBe('65532:65532');
    // The base's entrypoint, as the official node image has it.
    expect(config.Entrypoint).toEqual(['docker-entrypoint.sh']);
    expect(config.WorkingDir).toBe('/app');
    expect(config.Cmd).toEqual(['node', '--max-semi-space-size=32', 'server.js']);
    expect(Object.keys(config.ExposedPorts ?? {})).toEqual(['3000/tcp']);
    expect(MANIFEST_IMAGE).toMatch(/^ghcr\.io\/zonescope\/zonescope:/);
    expect((await podmanResult(['image', 'exists', MANIFEST_IMAGE])).code).toBe(0);
  });

  it('with a kubeconfig mounted: says why when its user may not read it; readable, non-root on a read-only root filesystem, the Overview, a Service page and /metrics answer 200', async () => {
    const sim = await startEksDemo();
    const kubeconfig = await sim.writeKubeconfig(path.join(work, 'kubeconfig'));

    // As written (mode 0600, owned by root), the image's user may not read it: the log says so
    // and how to fix it, rather than a Pod that never turns ready in silence.
    const unreadable = await runContainer('zonescope-image-test-unreadable', { KUBECONFIG: '/etc/zonescope/kubeconfig' }, [`${kubeconfig}:/etc/zonescope/kubeconfig:ro`]);
    containers.push(unreadable.name);
    await expect
      .poll(async () => {
        const logs = await podmanResult(['logs', unreadable.name]);
        return `${logs.stdout}${logs.stderr}`;
      }, { timeout: 60_000, interval: 500 })
      .toContain('cannot read the cluster: Cannot load kubeconfig /etc/zonescope/kubeconfig (EACCES): this process (uid 65532, gid 65532) may not read it');
    await podmanResult(['rm', '--force', '--time', '2', unreadable.name]);

    chmodSync(kubeconfig, 0o644);
    const container = await runContainer('zonescope-image-test-kubeconfig', { KUBECONFIG: '/etc/zonescope/kubeconfig' }, [`${kubeconfig}:/etc/zonescope/kubeconfig:ro`]);
    containers.push(container.name);
    await waitReady(container);

    const uid = await podman(['exec', container.name, 'node', '-p', 'process.getuid() + ":" + process.getgid()']);
    expect(uid.trim(), 'the server runs as the image\'s user').toBe('65532:65532');
    expect((await podman(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', container.name])).trim()).toBe('true');
    const write = await podmanResult(['exec', container.name, 'node', '-e', "require('fs').writeFileSync('/app/probe', 'x')"]);
    expect(write.code, 'writing into /app fails').not.toBe(0);
    expect(write.stderr).toContain('EROFS');
    expect((await podmanResult(['exec', container.name, 'node', '-e', "require('fs').writeFileSync('/tmp/probe', 'x')"])).code, '/tmp is writable').toBe(0);

    await expectPagesAndMetrics(container);
    const logs = await podmanResult(['logs', container.name]);
    expect(`${logs.stdout}${logs.stderr}`, 'no credential in the log').not.toContain(sim.token);
  }, 300_000);

  it('in-cluster, with a service-account folder where the kubelet mounts it: the Overview, a Service page and /metrics answer 200', async () => {
    const sim = await startEksDemo();
    const saDir = path.join(work, 'serviceaccount');
    const podEnv = podEnvironment(sim, saDir, 'zonescope');
    const container = await runContainer(
      'zonescope-image-test-in-cluster',
      { KUBERNETES_SERVICE_HOST: podEnv.KUBERNETES_SERVICE_HOST ?? '', KUBERNETES_SERVICE_PORT: podEnv.KUBERNETES_SERVICE_PORT ?? '' },
      [`${saDir}:${SERVICE_ACCOUNT_DIR}:ro`],
    );
    containers.push(container.name);
    await waitReady(container);
    const fleet = JSON.stringify(await (await fetch(`http://127.0.0.1:${container.port}/api/v1/clusters`)).json());
    expect(fleet, 'the one cluster is the in-cluster one').toContain('"displayName":"in-cluster"');
    await expectPagesAndMetrics(container);
  }, 300_000);
});

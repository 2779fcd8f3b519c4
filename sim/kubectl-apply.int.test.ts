/**
 * GitOps writes with the real kubectl against the simulator: `kubectl apply` (client-side, with
 * its last-applied annotation), `kubectl apply --server-side` (managedFields, conflicts, force),
 * `kubectl edit`, `kubectl annotate`, `kubectl explain`, and field validation, all reading the
 * simulator's OpenAPI v3 documents. Skipped only when kubectl is not installed (KUBECTL names
 * another binary).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from './scenario';
import type { Simulator } from './server';
import { startSimulator } from './server';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const TOPOLOGY = 'service.kubernetes.io/topology-mode';
const now = (): Date => new Date('2025-06-01T12:00:00Z');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  subresource?: string;
  fieldsV1: { 'f:metadata'?: { 'f:annotations'?: Record<string, unknown> } };
}

function manifest(name: string, annotations: Record<string, string>, extraSpec = ''): string {
  const lines = Object.entries(annotations).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`);
  return [
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    `  name: ${name}`,
    '  namespace: default',
    '  labels:',
    `    app: ${name}`,
    ...(lines.length > 0 ? ['  annotations:', ...lines] : []),
    'spec:',
    '  selector:',
    `    app: ${name}`,
    '  ports:',
    '  - port: 80',
    '    targetPort: 8080',
    ...(extraSpec ? [extraSpec] : []),
    '',
  ].join('\n');
}

// Each test runs several kubectl processes (a second or more each on a loaded machine).
describe.skipIf(!existsSync(KUBECTL))('GitOps writes with kubectl', { timeout: 60_000 }, () => {
  let sim: Simulator;
  let dir: string;
  let kubeconfig: string;

  function kubectl(args: string[], env: Record<string, string> = {}): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        KUBECTL,
        [`--kubeconfig=${kubeconfig}`, `--cache-dir=${path.join(dir, 'cache')}`, '--request-timeout=10s', ...args],
        { env: { ...process.env, HOME: dir, KUBECONFIG: '', ...env }, timeout: 20_000 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  async function ok(...args: string[]): Promise<string> {
    const run = await kubectl(args);
    if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
    return run.stdout;
  }

  async function file(name: string, text: string): Promise<string> {
    const at = path.join(dir, name);
    await writeFile(at, text);
    return at;
  }

  async function annotation(name: string): Promise<string> {
    return ok('get', 'svc', name, '-o', `jsonpath={.metadata.annotations.${TOPOLOGY.replace(/\./g, '\\.')}}`);
  }

  async function entries(name: string): Promise<Entry[]> {
    return JSON.parse(await ok('get', 'svc', name, '-o', 'jsonpath={.metadata.managedFields}')) as Entry[];
  }

  /** The managers that own the topology annotation, as zonescope reads them. */
  async function topologyOwners(name: string): Promise<string[]> {
    return (await entries(name)).filter((e) => `f:${TOPOLOGY}` in (e.fieldsV1['f:metadata']?.['f:annotations'] ?? {})).map((e) => `${e.manager}/${e.operation}`);
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sim-kubectl-apply-'));
    sim = await startSimulator({ port: 0, objects: (await loadScenario('tiny')).objects, log: () => undefined, now });
    kubeconfig = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  });

  afterAll(async () => {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('kubectl explain prints the descriptions of trafficDistribution and EndpointSlice hints', async () => {
    const traffic = await ok('explain', 'service.spec.trafficDistribution');
    expect(traffic).toMatch(/^KIND:\s+Service$/m);
    expect(traffic).toMatch(/^FIELD: trafficDistribution <string>$/m);
    expect(traffic).toContain('PreferClose');
    const hints = await ok('explain', 'endpointslices.endpoints.hints');
    expect(hints).toMatch(/^GROUP:\s+discovery\.k8s\.io$/m);
    expect(hints).toMatch(/^\s+forZones\s+<\[\]ForZone>$/m);
    expect((await kubectl(['explain', 'service.spec.noSuchField'])).stderr).toContain('field "noSuchField" does not exist');
  });

  it('kubectl apply creates with the last-applied annotation, then a second apply changes the annotation', async () => {
    const first = await file('csa.yaml', manifest('csa', { [TOPOLOGY]: 'Auto' }));
    expect(await ok('apply', '-f', first)).toBe('service/csa created\n');
    const lastApplied = JSON.parse(await ok('get', 'svc', 'csa', '-o', 'jsonpath={.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}')) as { metadata: { annotations: Record<string, string> } };
    expect(lastApplied.metadata.annotations[TOPOLOGY]).toBe('Auto');
    expect(await topologyOwners('csa')).toEqual(['kubectl-client-side-apply/Update']);

    await file('csa.yaml', manifest('csa', { [TOPOLOGY]: 'Disabled' }));
    expect(await ok('apply', '-f', first)).toBe('service/csa configured\n');
    expect(await annotation('csa')).toBe('Disabled');
    expect(sim.store.get('services', 'default', 'csa')?.metadata.annotations?.[TOPOLOGY]).toBe('Disabled');
    expect(await ok('apply', '-f', first)).toBe('service/csa unchanged\n');
  });

  it('kubectl apply --server-side records the kubectl manager, and another manager gets the conflict', async () => {
    await ok('apply', '-f', await file('ssa-csa.yaml', manifest('ssa', { [TOPOLOGY]: 'Auto' })));
    const changed = await file('ssa.yaml', manifest('ssa', { [TOPOLOGY]: 'Disabled' }));

    const conflict = await kubectl(['apply', '--server-side', '--field-manager=argocd', '-f', changed]);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain(`Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .metadata.annotations.${TOPOLOGY}`);
    expect(await annotation('ssa')).toBe('Auto');

    // kubectl itself may take over what its client-side apply declared.
    expect(await ok('apply', '--server-side', '-f', changed)).toBe('service/ssa serverside-applied\n');
    expect(await annotation('ssa')).toBe('Disabled');
    expect((await ok('get', 'svc', 'ssa', '-o', 'jsonpath={.metadata.managedFields[*].manager}')).split(' ')).toContain('kubectl');
    expect(await topologyOwners('ssa')).toEqual(['kubectl/Apply']);

    const again = await kubectl(['apply', '--server-side', '--field-manager=argocd', '-f', await file('ssa-argo.yaml', manifest('ssa', { [TOPOLOGY]: 'Auto' }))]);
    expect(again.stderr).toContain(`Apply failed with 1 conflict: conflict with "kubectl": .metadata.annotations.${TOPOLOGY}`);
    expect(await ok('apply', '--server-side', '--field-manager=argocd', '--force-conflicts', '-f', path.join(dir, 'ssa-argo.yaml'))).toBe('service/ssa serverside-applied\n');
    expect(await annotation('ssa')).toBe('Auto');
    expect(await topologyOwners('ssa')).toEqual(['argocd/Apply']);
  });

  it('kubectl apply --server-side removes an annotation it applied before and no longer applies', async () => {
    const both = await file('prune.yaml', manifest('prune', { [TOPOLOGY]: 'Auto', team: 'payments' }));
    await ok('apply', '--server-side', '--field-manager=flux', '-f', both);
    expect(await annotation('prune')).toBe('Auto');
    await file('prune.yaml', manifest('prune', { team: 'payments' }));
    await ok('apply', '--server-side', '--field-manager=flux', '-f', both);
    expect(sim.store.get('services', 'default', 'prune')?.metadata.annotations).toEqual({ team: 'payments' });
  });

  it('kubectl edit changes an annotation through $EDITOR and kubectl-edit owns it; kubectl annotate then takes it', async () => {
    await ok('apply', '--server-side', '--field-manager=argocd', '-f', await file('edit.yaml', manifest('edited', { [TOPOLOGY]: 'Auto' })));
    const editor = await file('editor.sh', `#!/bin/sh\nsed -i 's|${TOPOLOGY}: Auto|${TOPOLOGY}: Disabled|' "$1"\n`);
    await chmod(editor, 0o755);
    const edit = await kubectl(['edit', 'svc', 'edited'], { EDITOR: editor, KUBE_EDITOR: editor });
    expect(edit.stderr).toBe('');
    expect(edit.stdout).toBe('service/edited edited\n');
    expect(await annotation('edited')).toBe('Disabled');
    expect(await topologyOwners('edited')).toEqual(['kubectl-edit/Update']);

    expect(await ok('annotate', 'svc', 'edited', '--overwrite', `${TOPOLOGY}=Auto`)).toBe('service/edited annotated\n');
    expect(await topologyOwners('edited')).toEqual(['kubectl-annotate/Update']);
    // The GitOps tool re-applying its manifest now meets the drift.
    const reapply = await kubectl(['apply', '--server-side', '--field-manager=argocd', '-f', await file('edit-back.yaml', manifest('edited', { [TOPOLOGY]: 'Disabled' }))]);
    expect(reapply.stderr).toContain(`conflict with "kubectl-annotate" using v1: .metadata.annotations.${TOPOLOGY}`);
  });

  it('rejects an invented field under kubectl\'s default strict validation and stores nothing', async () => {
    const typo = await file('typo.yaml', manifest('typo', { [TOPOLOGY]: 'Auto' }, '  trafficDistributon: PreferClose'));
    const strict = await kubectl(['apply', '-f', typo]);
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.trafficDistributon"');
    expect(sim.store.get('services', 'default', 'typo')).toBeUndefined();
    const ssa = await kubectl(['apply', '--server-side', '-f', typo]);
    expect(ssa.stderr).toContain('.spec.trafficDistributon: field not declared in schema');
    expect(sim.store.get('services', 'default', 'typo')).toBeUndefined();
    const warned = await kubectl(['apply', '--validate=warn', '-f', typo]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('Warning: unknown field "spec.trafficDistributon"');
  });

  it('serves managedFields in -o yaml dumps and keeps them through a Deployment scale', async () => {
    const deploy = await file('deploy.yaml', [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: shop', '  namespace: default', 'spec:', '  replicas: 2',
      '  selector:', '    matchLabels: {app: shop}', '  template:', '    metadata:', '      labels: {app: shop}', '    spec:', '      containers:',
      '      - name: shop', '        image: nginx:1.27', '        ports:', '        - containerPort: 8080', '        readinessProbe:',
      '          httpGet: {path: /healthz, port: 8080}', '        resources:', '          requests: {cpu: 100m}', '',
    ].join('\n'));
    await ok('apply', '--server-side', '-f', deploy);
    await ok('scale', 'deploy', 'shop', '--replicas=4');
    const yaml = await ok('get', 'deploy', 'shop', '-o', 'yaml', '--show-managed-fields');
    expect(yaml).toMatch(/^ {2}managedFields:$/m);
    expect(yaml).toMatch(/k:\{"containerPort":8080,"protocol":"TCP"\}:/);
    expect(yaml).toMatch(/^ {4}manager: kubectl\n {4}operation: Update\n {4}subresource: scale$/m);
    expect(sim.store.get('deployments', 'default', 'shop')?.spec).toMatchObject({ replicas: 4 });
  });
});

describe('apply patches over HTTP', () => {
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, objects: (await loadScenario('tiny')).objects, log: () => undefined, now });
  });

  afterAll(async () => {
    await sim.stop();
  });

  const url = (name: string, query = ''): string => `${sim.url}/api/v1/namespaces/default/services/${name}${query}`;

  it('requires fieldManager (422) and creates the object when it is absent (201)', async () => {
    const body = manifest('http-apply', { [TOPOLOGY]: 'Auto' });
    const missing = await fetch(url('http-apply'), { method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' }, body });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({
      kind: 'Status', reason: 'Invalid', code: 422,
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    });
    expect(sim.store.get('services', 'default', 'http-apply')).toBeUndefined();

    const created = await fetch(url('http-apply', '?fieldManager=terraform'), { method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' }, body });
    expect(created.status).toBe(201);
    const object = (await created.json()) as { metadata: { managedFields: Entry[] }; spec: { clusterIP: string } };
    expect(object.spec.clusterIP).toMatch(/^10\.96\./);
    expect(object.metadata.managedFields.map((e) => [e.manager, e.operation, e.apiVersion, e.time])).toEqual([['terraform', 'Apply', 'v1', '2025-06-01T12:00:00Z']]);

    const forceOnMerge = await fetch(url('http-apply', '?force=true'), { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{}' });
    expect(await forceOnMerge.json()).toMatchObject({ code: 422, message: 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch' });
  });

  it('records writes without fieldManager under the User-Agent and streams managedFields to watchers', async () => {
    const start = sim.store.resourceVersion;
    const watch = await fetch(`${sim.url}/api/v1/namespaces/default/services?watch=true&resourceVersion=${start}`);
    const reader = watch.body?.getReader();
    const patched = await fetch(url('web'), {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json', 'User-Agent': 'gitops-bot/2.1 (linux)' },
      body: JSON.stringify({ metadata: { annotations: { [TOPOLOGY]: 'Auto' } } }),
    });
    expect(patched.status).toBe(200);
    let text = '';
    const decoder = new TextDecoder();
    while (!text.includes('\n') && reader !== undefined) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    await reader?.cancel();
    const event = JSON.parse(text.split('\n')[0] ?? '{}') as { type: string; object: { metadata: { managedFields: Entry[] } } };
    expect(event.type).toBe('MODIFIED');
    const bot = event.object.metadata.managedFields.find((e) => e.manager === 'gitops-bot');
    expect(bot).toMatchObject({ operation: 'Update', apiVersion: 'v1', time: '2025-06-01T12:00:00Z' });
    expect(bot?.fieldsV1['f:metadata']?.['f:annotations']).toEqual({ '.': {}, [`f:${TOPOLOGY}`]: {} });
  });
});

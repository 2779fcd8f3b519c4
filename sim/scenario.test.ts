import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadScenario, loadScenarioFile, parseScenario, ScenarioError, scenarioEntries } from './scenario';
import { node, service } from './test-support';
import type { KubeObject } from './types';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems.map((p) => `${p.document}${p.item !== undefined ? `.${p.item}` : ''}: ${p.message}`);
    throw error;
  }
  throw new Error('expected a ScenarioError');
}

describe('parseScenario', () => {
  it('reads multi-document YAML with single objects and kubectl List documents', () => {
    const text = [
      stringify(node('n1', 'z1')),
      stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: [service('a'), service('b', 'other')] }),
      '',
    ].join('---\n');
    const scenario = parseScenario(text, 'dump.yaml');
    expect(scenario.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      'Node//n1',
      'Service/default/a',
      'Service/other/b',
    ]);
    expect(scenario.warnings).toEqual([]);
  });

  it('takes the Kubernetes version from a zonescope.dev/v1 ServerVersion document', () => {
    const text = ['apiVersion: zonescope.dev/v1\nkind: ServerVersion\ngitVersion: v1.27.3-eks-1\n', stringify(node('n', 'z'))].join('---\n');
    const scenario = parseScenario(text, 'v.yaml');
    expect(scenario.serverVersion).toBe('v1.27.3-eks-1');
    expect(scenario.objects).toHaveLength(1);
    expect(problemsOf(() => parseScenario('apiVersion: zonescope.dev/v1\nkind: ServerVersion\ngitVersion: 1.27\n', 'v.yaml'))).toEqual([
      '1: ServerVersion.gitVersion must look like v1.31.4, got 1.27',
    ]);
  });

  it('reads JSON objects, Lists and arrays', () => {
    expect(parseScenario(JSON.stringify(service('a')), 'one.json').objects).toHaveLength(1);
    expect(parseScenario(JSON.stringify({ apiVersion: 'v1', kind: 'ServiceList', items: [service('a'), service('b')] }), 'x.json').objects).toHaveLength(2);
    expect(parseScenario(JSON.stringify([service('a'), node('n', 'z')]), 'arr').objects).toHaveLength(2);
  });

  it('keeps fields it does not know and defaults a missing namespace', () => {
    const svc = service('a');
    delete svc.metadata.namespace;
    svc.spec = { ...(svc.spec as object), futureField: { x: 1 } };
    const [loaded] = parseScenario(stringify(svc), 's.yaml').objects;
    expect(loaded?.metadata.namespace).toBe('default');
    expect(loaded?.spec).toMatchObject({ futureField: { x: 1 } });
  });

  it('skips unknown kinds with a warning naming the document and item, or fails in strict mode', () => {
    const text = [stringify(service('a')), stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' } }] })].join('---\n');
    const scenario = parseScenario(text, 'mixed.yaml');
    expect(scenario.objects).toHaveLength(1);
    expect(scenario.warnings).toEqual([{ file: 'mixed.yaml', document: 2, item: 1, message: 'skipped unknown kind v1 Secret "s"' }]);
    expect(problemsOf(() => parseScenario(text, 'mixed.yaml', { unknownKinds: 'error' }))).toEqual(['2.1: unknown kind v1 Secret']);
  });

  it('reports YAML syntax errors with file, document and line, and loads nothing', () => {
    const text = `${stringify(service('a'))}---\nkind: Service\nmetadata: {name: [unclosed\n`;
    try {
      parseScenario(text, 'broken.yaml');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ScenarioError);
      const message = (error as ScenarioError).message;
      expect(message).toContain('broken.yaml, document 2');
      expect(message).toMatch(/YAML syntax error \(line \d+, column \d+\)/);
    }
  });

  it('reports JSON syntax errors', () => {
    expect(problemsOf(() => parseScenario('{"kind": "Service",', 'bad.json'))[0]).toMatch(/^1: invalid JSON/);
  });

  it('reports every malformed object at once', () => {
    const labelled = service('c');
    (labelled.metadata as Record<string, unknown>).labels = { n: 1 };
    const text = [
      stringify({ kind: 'Service', metadata: { name: 'a' } }),
      stringify({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default' } }),
      stringify(labelled),
      stringify({ apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'default' } }),
      stringify(service('dup')),
      stringify(service('dup')),
      stringify({ apiVersion: 'v1', kind: 'List', items: 'nope' }),
      '- just\n- a list\n',
    ].join('---\n');
    expect(problemsOf(() => parseScenario(text, 'bad.yaml'))).toEqual([
      '1: apiVersion is missing or not a string',
      '2: Service has no metadata.name',
      '3: metadata.labels must map strings to strings',
      '4: HorizontalPodAutoscaler is served as autoscaling/v2, autoscaling/v1, not autoscaling/v2beta2',
      '6: duplicate Service "dup" (first at bad.yaml, document 5)',
      '7: List.items is not a list',
      '8: the object is not a JSON/YAML mapping',
    ]);
  });
});

describe('scenario files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sim-scenario-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the bundled tiny scenario: 3 nodes in 3 zones, a Deployment, its pods and Service', async () => {
    const scenario = await loadScenario('tiny');
    const nodes = scenario.objects.filter((o) => o.kind === 'Node');
    expect(nodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']).sort()).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect(nodes.every((n) => typeof (n.status as { allocatable?: { cpu?: unknown } }).allocatable?.cpu === 'string')).toBe(true);
    expect(scenario.objects.filter((o) => o.kind === 'Pod')).toHaveLength(3);
    expect(scenario.objects.some((o) => o.kind === 'Deployment' && o.metadata.name === 'web')).toBe(true);
    expect(scenario.objects.some((o) => o.kind === 'Service' && o.metadata.name === 'web')).toBe(true);
  });

  it('names unknown scenarios and lists the available ones', async () => {
    await writeFile(path.join(dir, 'one.yaml'), stringify(service('a')));
    await expect(loadScenario('nope', { fixturesDir: dir })).rejects.toThrowError(/unknown scenario "nope"; available: one/);
    await expect(loadScenario('../etc/passwd', { fixturesDir: dir })).rejects.toThrowError(ScenarioError);
    expect((await loadScenario('one', { fixturesDir: dir })).objects).toHaveLength(1);
  });

  it('reports unreadable files', async () => {
    await expect(loadScenarioFile(path.join(dir, 'missing.yaml'))).rejects.toThrowError(/cannot read the file/);
  });
});

describe('scenarioEntries', () => {
  it('reassigns uids, rewrites references, drops resourceVersions and adds namespaces', () => {
    const owner: KubeObject = { ...service('web', 'shop'), metadata: { ...service('web', 'shop').metadata, uid: 'old-svc', resourceVersion: '99' } };
    const slice: KubeObject = {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: 'web-1', namespace: 'shop', uid: 'old-slice', ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'old-svc' }] },
      addressType: 'IPv4', endpoints: [],
    };
    const ev: KubeObject = {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'shop' },
      regarding: { kind: 'Service', name: 'web', namespace: 'shop', uid: 'old-svc' }, note: 'hello', reason: 'R', type: 'Normal',
    };
    let n = 0;
    const entries = scenarioEntries([owner, slice, ev], () => `new-${++n}`);
    const byKind = new Map(entries.map((e) => [`${e.object.kind}/${e.object.metadata.name}`, e]));
    const svc = byKind.get('Service/web')?.object;
    expect(svc?.metadata.uid).toMatch(/^new-/);
    expect(svc?.metadata.resourceVersion).toBeUndefined();
    expect(byKind.get('EndpointSlice/web-1')?.object.metadata.ownerReferences?.[0]?.uid).toBe(svc?.metadata.uid);
    const stored = byKind.get('Event/e');
    expect(stored?.resource).toBe('events');
    expect(stored?.object).toMatchObject({ apiVersion: 'v1', message: 'hello', involvedObject: { uid: svc?.metadata.uid } });
    expect(entries.filter((e) => e.resource === 'namespaces').map((e) => e.object.metadata.name).sort()).toEqual([
      'default', 'kube-node-lease', 'kube-public', 'kube-system', 'shop',
    ]);
    expect(owner.metadata.uid).toBe('old-svc');
  });
});

describe('large JSON dumps are read as a stream', () => {
  it('gives the same scenario as reading the file whole, and names broken JSON', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-scenario-stream-'));
    try {
      const list = {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'a' } } },
          { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
        ],
      };
      const file = path.join(dir, 'dump.json');
      writeFileSync(file, JSON.stringify(list));
      const whole = await loadScenarioFile(file);
      const streamed = await loadScenarioFile(file, { streamJsonAboveBytes: 0 });
      expect(streamed.objects).toEqual(whole.objects);
      expect(streamed.objects.map((o) => o.metadata.name)).toEqual(['n1', 'web']);

      const broken = path.join(dir, 'broken.json');
      writeFileSync(broken, JSON.stringify(list).slice(0, -20));
      await expect(loadScenarioFile(broken, { streamJsonAboveBytes: 0 })).rejects.toThrowError(/invalid JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { SnapshotProblem, SnapshotResult } from './snapshot/results';
import { formatProblem } from './snapshot/results';
import { parseSnapshotDocuments, snapshotFromText } from './snapshot/from-text';
import { loadSnapshot } from './snapshot/load';
import { dumpFolder, ok } from './snapshot-test-support';

const TESTDATA = path.join(__dirname, 'testdata');
const dumpText = readFileSync(path.join(TESTDATA, 'kubectl-dump.yaml'), 'utf8');
const kubeSystemText = readFileSync(path.join(TESTDATA, 'kube-system.yaml'), 'utf8');

const { dir: tmp, write } = dumpFolder('zonescope-snapshot-');

function errors(result: SnapshotResult | ReturnType<typeof parseSnapshotDocuments>): readonly SnapshotProblem[] {
  if (result.ok) throw new Error('expected failure');
  expect(Object.keys(result)).toEqual(['ok', 'errors']); // nothing half-loaded
  return result.errors;
}

describe('good dumps', () => {
  it('loads the kubectl `v1 List` dump of every kind', () => {
    const { snapshot, summary } = ok(snapshotFromText(dumpText, 'dump.yaml'));
    expect(snapshot.nodes.map((n) => n.name)).toEqual(['ip-10-0-1-23.eu-west-1.compute.internal', 'ip-10-0-2-7.eu-west-1.compute.internal']);
    expect(snapshot.services.map((s) => s.name)).toEqual(['checkout', 'legacy-db']);
    expect(snapshot.endpointSlices).toHaveLength(2);
    expect(snapshot.pods).toHaveLength(2);
    expect(snapshot.deployments).toHaveLength(1);
    expect(snapshot.replicaSets).toHaveLength(1);
    expect(snapshot.hpas).toHaveLength(1);
    // Only the Event about a Service is kept.
    expect(snapshot.events.map((e) => e.reason)).toEqual(['TopologyAwareHintsDisabled']);
    expect(summary.dropped).toEqual({ Event: 1 });
    expect(summary.records.events).toBe(1);
    expect(snapshot.version).toBeNull();
    expect(summary.versionSource).toBeNull();
    expect(snapshot.proxy).toBeNull();
    expect(snapshot.cni).toEqual({ cilium: null, calico: null, awsVpcCni: false });
  });

  it('loads a folder: the dump, kube-system ConfigMaps and DaemonSets (typed list), version.json; skips other files', async () => {
    const folder = path.join(tmp, 'folder');
    write('folder/10-dump.yaml', dumpText);
    write('folder/nested/kube-system.yml', kubeSystemText);
    write('folder/version.json', readFileSync(path.join(TESTDATA, 'version.json'), 'utf8'));
    write('folder/README.md', '# not a snapshot');
    write('folder/.hidden.yaml', 'garbage: [');
    const { snapshot, summary } = ok(await loadSnapshot(folder));
    expect(summary.files.map((f) => path.relative(folder, f))).toEqual(['10-dump.yaml', 'nested/kube-system.yml', 'version.json']);
    expect(snapshot.version).toEqual({ gitVersion: 'v1.30.2-eks-db838b0', minor: 30, platform: 'eks' });
    expect(summary.versionSource).toContain('version.json');
    expect(snapshot.proxy).toMatchObject({ mode: 'ipvs', ipvsScheduler: 'rr', source: 'kube-system/kube-proxy-config' });
    expect(snapshot.cni.awsVpcCni).toBe(true);
    expect(snapshot.cni.cilium).toMatchObject({ kubeProxyReplacement: 'true', serviceTopology: true });
    expect(snapshot.cni.calico).toMatchObject({ bpfEnabled: true });
    expect(summary.records.configmaps).toBe(3); // kube-proxy-config, kube-proxy (no config key), cilium-config
    expect(summary.dropped.ConfigMap).toBe(1); // coredns
  });

  it('loads the same dump as JSON (kubectl -o json) and as typed API lists', async () => {
    const list = parseAllDocuments(dumpText)[0]?.toJS() as { items: { kind: string }[] };
    const file = write('json/dump.json', JSON.stringify(list, null, 2));
    const fromJson = ok(await loadSnapshot(file));
    const fromYaml = ok(snapshotFromText(dumpText, 'dump.yaml'));
    expect(fromJson.snapshot).toEqual(fromYaml.snapshot);

    // `kubectl get --raw /api/v1/nodes` style: a NodeList whose items carry no kind.
    const nodes = list.items.filter((i) => i.kind === 'Node').map(({ kind: _kind, ...rest }) => rest);
    const typed = ok(snapshotFromText(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: nodes }), 'nodes.json'));
    expect(typed.snapshot.nodes).toEqual(fromYaml.snapshot.nodes);
  });

  it('loads multi-document YAML with single objects, empty documents and a kubectl version document', () => {
    const items = (parseAllDocuments(dumpText)[0]?.toJS() as { items: unknown[] }).items;
    const text = [
      '---',
      ...items.map((i) => `${stringify(i)}---`),
      stringify({ clientVersion: { gitVersion: 'v1.32.0' }, kustomizeVersion: 'v5.5.0', serverVersion: { major: '1', minor: '29', gitVersion: 'v1.29.4-gke.1043002' } }),
      '---',
      '# trailing comment only',
      '',
    ].join('\n');
    const { snapshot, summary } = ok(snapshotFromText(text, 'multi.yaml'));
    expect(snapshot.services).toHaveLength(2);
    expect(snapshot.version).toEqual({ gitVersion: 'v1.29.4-gke.1043002', minor: 29, platform: 'gke' });
    expect(summary.documents).toBeGreaterThan(items.length);
  });

  it('reads a support bundle folder\'s `kubectl version` output: its serverVersion when nothing else names one, skipped without one', async () => {
    const kubectlVersion = {
      clientVersion: { major: '1', minor: '31', gitVersion: 'v1.31.2', gitCommit: '5864a4677267e6adeae276ad85882a8714d69d9d', platform: 'linux/amd64' },
      kustomizeVersion: 'v5.4.2',
      serverVersion: { major: '1', minor: '30+', gitVersion: 'v1.30.5-eks-ce1d5eb', platform: 'linux/amd64' },
    };
    write('bundle/cluster.yaml', dumpText);
    write('bundle/version.yaml', stringify(kubectlVersion));
    const bundle = ok(await loadSnapshot(path.join(tmp, 'bundle')));
    expect(bundle.snapshot.version).toEqual({ gitVersion: 'v1.30.5-eks-ce1d5eb', minor: 30, platform: 'eks' });
    expect(bundle.summary.versionSource).toContain('version.yaml');
    // The server was out of reach when the bundle was taken: client and kustomize only — skipped, nothing refused.
    write('client-only/cluster.yaml', dumpText);
    write('client-only/version.yaml', stringify({ clientVersion: kubectlVersion.clientVersion, kustomizeVersion: 'v5.4.2' }));
    const clientOnly = ok(await loadSnapshot(path.join(tmp, 'client-only')));
    expect(clientOnly.snapshot.version).toBeNull();
    expect(clientOnly.snapshot.services).toHaveLength(2);
    // What the dump names itself (ServerVersion, `kubectl get --raw /version`) wins over it, in any order.
    write('both/a-version.yaml', stringify(kubectlVersion));
    write('both/b-dump.yaml', dumpText);
    write('both/c-version.json', readFileSync(path.join(TESTDATA, 'version.json'), 'utf8'));
    const both = ok(await loadSnapshot(path.join(tmp, 'both')));
    expect(both.snapshot.version?.gitVersion).toBe('v1.30.2-eks-db838b0');
    expect(both.summary.versionSource).toContain('c-version.json');
    // Any other document without a kind keeps its error.
    expect(errors(snapshotFromText(stringify({ clientVersion: { gitVersion: 'v1.31.2' }, owner: 'team-a' }), 'v.yaml'))[0]?.message).toBe('the document has no kind (and is not a /version document)');
  });

  it('accepts the simulator ServerVersion document and ignores unknown kinds (counted)', () => {
    const text = [
      'apiVersion: zonescope.dev/v1\nkind: ServerVersion\ngitVersion: v1.31.4-eks-2d98532',
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop',
      'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\nspec: 42',
    ].join('\n---\n');
    const { snapshot, summary } = ok(snapshotFromText(text, 'misc.yaml'));
    expect(snapshot.version?.minor).toBe(31);
    expect(summary.ignoredKinds).toEqual({ Namespace: 1, Ingress: 1 });
  });

  it('refuses an object given twice, naming both places', () => {
    const a = 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    topology.kubernetes.io/zone: a';
    const b = 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    topology.kubernetes.io/zone: b';
    expect(errors(snapshotFromText(`${a}\n---\n${b}`, 'dup.yaml')).map(formatProblem)).toEqual([
      'dup.yaml, document 2 (Node n1): given twice: also in dup.yaml, document 1; keep one of them',
    ]);
  });

  it('parseSnapshotDocuments returns every object with its location for the simulator', () => {
    const parsed = parseSnapshotDocuments(kubeSystemText, 'ks.yaml');
    if (!parsed.ok) throw new Error('expected ok');
    expect(parsed.objects.map((o) => `${o.kind}/${String((o.object.metadata as { name: string }).name)}@${o.location.document}:${o.location.item ?? '-'}`)).toEqual([
      'ConfigMap/coredns@1:0',
      'ConfigMap/kube-proxy-config@1:1',
      'ConfigMap/kube-proxy@1:2',
      'ConfigMap/cilium-config@1:3',
      'DaemonSet/aws-node@2:0',
      'DaemonSet/calico-node@2:1',
    ]);
    // Typed-list items get their kind and apiVersion filled in.
    expect(parsed.objects[4]?.object).toMatchObject({ kind: 'DaemonSet', apiVersion: 'apps/v1' });
  });
});

describe('bad input', () => {
  it('reports a YAML syntax error with file, document and line', () => {
    const text = 'apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b\n';
    const [problem, ...rest] = errors(snapshotFromText(text, 'broken.yaml'));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ file: 'broken.yaml', document: 2 });
    expect(problem?.line).toBeGreaterThanOrEqual(8);
    expect(formatProblem(problem as SnapshotProblem)).toMatch(/^broken\.yaml, document 2 \(line \d+, column \d+\): YAML syntax error: /);
  });

  it('reports duplicate keys as a YAML error', () => {
    const [problem] = errors(snapshotFromText('kind: Node\nkind: Pod\n', 'dup-keys.yaml'));
    expect(problem?.message).toMatch(/unique/);
  });

  it('reports a JSON syntax error with its position', () => {
    const [problem] = errors(snapshotFromText('{\n  "kind": "List",\n  "items": [,]\n}', 'dump.json'));
    expect(problem).toMatchObject({ file: 'dump.json', document: 1, line: 3 });
    expect(problem?.message).toMatch(/^JSON syntax error/);
  });

  it.each([
    ['a scalar', 'just text', /found string "just text"/],
    ['a list', '- a\n- b', /found a list/],
    ['an object without kind', 'apiVersion: v1\nmetadata:\n  name: x', /has no kind/],
  ])('rejects a document that is %s', (_what, text, message) => {
    const [problem] = errors(snapshotFromText(text, 'x.yaml'));
    expect(problem).toMatchObject({ file: 'x.yaml', document: 1 });
    expect(problem?.message).toMatch(message);
  });

  it('names the List item without metadata.name or kind', () => {
    const text = stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'ok' } },
        { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'a' } },
        { apiVersion: 'v1', metadata: { name: 'kindless' } },
      ],
    });
    const problems = errors(snapshotFromText(text, 'list.yaml'));
    expect(problems.map(formatProblem)).toEqual([
      'list.yaml, document 1, items[1] (Pod a/?): metadata.name is missing or not a string',
      'list.yaml, document 1, items[2]: the object has no kind',
    ]);
  });

  it('rejects an EndpointSlice whose endpoints is not a list, or whose addresses are not strings', () => {
    const slice = (endpoints: unknown): string =>
      stringify({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's', namespace: 'a' }, addressType: 'IPv4', endpoints });
    expect(errors(snapshotFromText(slice({ addresses: ['10.0.0.1'] }), 'es.yaml')).map(formatProblem)).toEqual([
      'es.yaml, document 1 (EndpointSlice a/s): endpoints must be a list, not a mapping',
    ]);
    expect(errors(snapshotFromText(slice([{ addresses: [10] }]), 'es.yaml')).map(formatProblem)).toEqual([
      'es.yaml, document 1 (EndpointSlice a/s): endpoints[0].addresses[0] must be a string, not number 10',
    ]);
    expect(errors(snapshotFromText(slice([{ addresses: ['10.0.0.1'], hints: { forZones: 'a' } }]), 'es.yaml'))[0]?.message).toBe(
      'endpoints[0].hints.forZones must be a list, not string "a"',
    );
  });

  it('rejects wrong types where zonescope reads (labels, replicas, ports)', () => {
    const cases: [unknown, RegExp][] = [
      [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', labels: { version: 1.5 } } }, /metadata\.labels must be a mapping of strings to strings/],
      [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: '3' } }, /spec\.replicas must be a number, not string "3"/],
      [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: { port: 80 } } }, /spec\.ports must be a list/],
      [{ apiVersion: 'v1', kind: 'Pod', metadata: 'p' }, /metadata must be a mapping/],
    ];
    for (const [object, message] of cases) expect(errors(snapshotFromText(stringify(object), 'w.yaml'))[0]?.message).toMatch(message);
  });

  it('rejects a List whose items is not a list', () => {
    expect(errors(snapshotFromText('apiVersion: v1\nkind: List\nitems: {a: 1}\n', 'l.yaml'))[0]?.message).toBe('items of a List must be a list, not a mapping');
  });

  it('rejects contradicting server versions', () => {
    const text = 'gitVersion: v1.30.1\n---\nmajor: "1"\nminor: "29"\ngitVersion: v1.29.0\n';
    expect(errors(snapshotFromText(text, 'v.yaml'))[0]?.message).toMatch(/v1\.29\.0 contradicts v1\.30\.1/);
  });

  it('fails as a whole when one file of a folder is bad, listing every bad file', async () => {
    const folder = path.join(tmp, 'bad-folder');
    write('bad-folder/a-good.yaml', dumpText);
    write('bad-folder/b-bad.yaml', 'kind: Node\nmetadata: [\n');
    write('bad-folder/c-bad.json', '{"kind": "Pod", "metadata": {"name": 3}}');
    const problems = errors(await loadSnapshot(folder));
    expect(problems.map((p) => path.basename(p.file))).toEqual(['b-bad.yaml', 'c-bad.json']);
  });

  it('reports a missing path and an empty folder', async () => {
    expect(errors(await loadSnapshot(path.join(tmp, 'nope')))[0]?.message).toBe('no such file or folder');
    mkdirSync(path.join(tmp, 'empty'), { recursive: true });
    expect(errors(await loadSnapshot(path.join(tmp, 'empty')))[0]?.message).toBe('no .yaml, .yml or .json files found');
  });
});

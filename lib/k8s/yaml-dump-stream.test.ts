/**
 * YAML dumps as `kubectl get … -o yaml` prints them stream like JSON ones: the splitter holds one
 * item at a time, whatever the chunks; block scalars and several documents split right; a List's
 * items wait for the List's `kind` as records, not as objects; and what a load keeps holds none of
 * the dump's text. (The 200 MB figure is in docs/cli.md; the equality with the JSON form of a
 * kubectl dump of the simulator is lib/k8s/yaml-dump.int.test.ts.)
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { DumpEvent } from './dump-stream/dump-events';
import { YamlDumpSplitter } from './dump-stream/yaml-splitter';
import { SnapshotCollector } from './snapshot/collector';
import { FileReader } from './snapshot/file-reader';
import { snapshotFromText } from './snapshot/from-text';
import { loadSnapshot } from './snapshot/load';
import { dumpFolder, ok } from './snapshot-test-support';

const { write } = dumpFolder('zonescope-yaml-stream-');

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use once what is unreachable is collected (after the current job, so WeakRefs may clear). */
async function heapAfterGc(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A Pod as kubectl prints it from an EKS cluster: long names, managedFields, a last-applied annotation. */
function kubectlPod(i: number): Record<string, unknown> {
  const name = `checkout-api-7d9f8c6b5-${String(i).padStart(5, '0')}`;
  const managed = (manager: string) => ({
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`f:field-${manager}-${k}`, { '.': {}, [`f:nested-${k}`]: {}, [`f:other-${k}`]: {} }])),
    manager,
    operation: 'Update',
    time: '2026-10-27T21:37:07Z',
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'checkout' }, spec: { containers: [{ name: 'api', image: 'registry.example.com/checkout/api:1.2.3' }] } })}\n`,
        'kubernetes.io/psp': 'eks.privileged',
      },
      labels: { app: 'checkout-api', 'pod-template-hash': '7d9f8c6b5' },
      managedFields: [managed('kube-controller-manager'), managed('kubelet')],
      name,
      namespace: 'checkout',
      ownerReferences: [{ apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'ReplicaSet', name: 'checkout-api-7d9f8c6b5', uid: `0f3a${String(i).padStart(8, '0')}` }],
      uid: `3b1c${String(i).padStart(8, '0')}-aaaa-bbbb-cccc-000000000000`,
    },
    spec: { containers: [{ image: 'registry.example.com/checkout/api:1.2.3', name: 'api', resources: { requests: { cpu: '250m' } } }], nodeName: `ip-10-0-${i % 7}-${i % 200}.ec2.internal` },
    status: { conditions: [{ status: 'True', type: 'Ready' }], phase: 'Running', podIP: `10.1.${(i >> 8) & 255}.${i & 255}` },
  };
}

/** `kubectl get pods -o yaml`: a `v1 List`, items at column 0 under `items:`. */
function kubectlList(items: readonly unknown[]): string {
  return stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } });
}

describe('the YAML splitter', () => {
  it('holds one item at a time: each item is read before the source has given much more than it', () => {
    const text = kubectlList(Array.from({ length: 60 }, (_, i) => kubectlPod(i)));
    const bytes = Buffer.from(text);
    const itemBytes = bytes.length / 60;
    for (const chunk of [1024, 65_536]) {
      let consumed = 0;
      const seenAt: number[] = [];
      const splitter = new YamlDumpSplitter((event) => {
        if (event.type === 'item') seenAt.push(consumed);
      }, 100);
      for (let at = 0; at < bytes.length; at += chunk) {
        const piece = bytes.subarray(at, at + chunk);
        consumed += piece.length;
        splitter.push(piece);
      }
      splitter.end();
      expect(seenAt).toHaveLength(60);
      // Item k is complete once item k+1 starts: emitted within one item and one chunk of its end.
      seenAt.forEach((at, k) => expect(at, `item ${k}`).toBeLessThan((k + 2) * itemBytes + chunk + 200));
    }
  });

  it('splits block scalars (|, |-, >), several documents and 2-indented items as the yaml parser reads them whole', () => {
    const text = [
      '# kubectl get svc -o yaml; kubectl get pods -o yaml',
      'apiVersion: v1',
      'items:',
      '- apiVersion: v1',
      '  kind: Service',
      '  metadata:',
      '    annotations:',
      '      kubectl.kubernetes.io/last-applied-configuration: |',
      '        {"apiVersion":"v1","kind":"Service",',
      '          "spec": {}}',
      '',
      '        # not a comment',
      '      note: >',
      '        folded',
      '        text',
      '      other: |-',
      '        - kept',
      '    name: cart-service-long-name',
      '    namespace: shop',
      '  spec:',
      '    selector: {app: cart}',
      'kind: List',
      'metadata:',
      '  resourceVersion: ""',
      '---',
      'apiVersion: v1',
      'kind: PodList',
      'items:',
      '  - metadata: {name: cart-0, namespace: shop}',
      '    spec: {nodeName: n-1}',
      '  - metadata:',
      '      name: cart-1',
      '      namespace: shop',
      '...',
      '---',
      'apiVersion: v1',
      'kind: Node',
      'metadata: {name: n-1}',
      '',
    ].join('\n');
    const splitEvents: DumpEvent[] = [];
    const splitter = new YamlDumpSplitter((event) => splitEvents.push(event), 100);
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 7) splitter.push(bytes.subarray(at, at + 7));
    splitter.end();
    expect(splitEvents.filter((e) => e.type === 'error')).toEqual([]);
    const service = splitEvents.find((e) => e.type === 'item' && e.document === 1);
    expect(service).toMatchObject({
      value: {
        metadata: {
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1","kind":"Service",\n  "spec": {}}\n\n# not a comment\n', note: 'folded text\n', other: '- kept' },
          name: 'cart-service-long-name',
        },
      },
    });
    expect(splitEvents.map((e) => [e.type, e.document, e.type === 'item' ? e.item : null])).toEqual([
      ['item', 1, 0],
      ['document', 1, null],
      ['item', 2, 0],
      ['item', 2, 1],
      ['document', 2, null],
      ['document', 3, null],
    ]);
    const { snapshot, summary } = ok(snapshotFromText(text, 'dump.yaml'));
    expect(summary.documents).toBe(3);
    expect(snapshot.pods.map((p) => p.name)).toEqual(['cart-0', 'cart-1']);
    expect(snapshot.services.map((s) => s.name)).toEqual(['cart-service-long-name']);
  });
});

describe('what a YAML load holds', () => {
  it("a List's items wait for the List's kind as records: no item object is kept", async () => {
    const collector = new SnapshotCollector(false);
    const reader = new FileReader(collector, 'pods.yaml');
    const refs: WeakRef<object>[] = [];
    const feed = (i: number): void => {
      const value = kubectlPod(i);
      refs.push(new WeakRef(value));
      reader.onEvent({ type: 'item', document: 1, item: i, value });
    };
    for (let i = 0; i < 50; i++) feed(i);
    await heapAfterGc();
    expect(refs.flatMap((ref, i) => (ref.deref() !== undefined ? [i] : []))).toEqual([]);
    reader.onEvent({ type: 'document', document: 1, value: { apiVersion: 'v1', items: [], kind: 'List', metadata: { resourceVersion: '' } }, splitItems: 50 });
    const { snapshot } = ok(collector.result(['pods.yaml']));
    expect(snapshot.pods.map((p) => p.name)).toEqual(Array.from({ length: 50 }, (_, i) => `checkout-api-7d9f8c6b5-${String(i).padStart(5, '0')}`));
  });

  it("a loaded YAML dump keeps none of its text (the records' strings are their own), and equals the JSON dump's snapshot", async () => {
    const items = Array.from({ length: 200 }, (_, i) => kubectlPod(i));
    const yamlText = kubectlList(items);
    const yamlFile = write('pods.yaml', yamlText);
    const jsonFile = write('pods.json', JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, 4));
    // Warm up (modules, compiled code) on another dump.
    ok(await loadSnapshot(write('warm.yaml', kubectlList([kubectlPod(9999)]))));
    const before = await heapAfterGc();
    const yaml = ok(await loadSnapshot(yamlFile, { wholeFileBytes: 0, chunkBytes: 64 * 1024 }));
    const retained = (await heapAfterGc()) - before;
    expect(yaml.snapshot.pods).toHaveLength(200);
    // Slices of the text would keep every Pod's whole text (about the file's size); records are a fraction of it.
    expect(retained).toBeLessThan(yamlText.length / 3);
    const json = ok(await loadSnapshot(jsonFile, { wholeFileBytes: 0, chunkBytes: 64 * 1024 }));
    expect(yaml.snapshot).toEqual(json.snapshot);
  }, 30_000);
});

/** The incremental index (lib/k8s/cluster-sources/index-incremental.ts): equal to a fresh index, with unchanged lookups and lists kept. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot, EndpointSliceRecord, HpaRecord, PodRecord } from '../../topology/model/cluster-model';
import { indexCluster } from '../../topology/model/cluster-model';
import { snapshotFromText } from '../snapshot/from-text';
import { indexIncrementally } from './index-incremental';

const TESTDATA = path.join(__dirname, '..', 'testdata');

function dumpSnapshot(): ClusterSnapshot {
  const result = snapshotFromText(readFileSync(path.join(TESTDATA, 'kubectl-dump.yaml'), 'utf8'), 'dump.yaml');
  if (!result.ok) throw new Error('bad testdata');
  return result.snapshot;
}

/** Maps as sorted entries, so two indexes can be compared by content. */
function content(index: ReturnType<typeof indexCluster>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(index)) {
    if (value instanceof Map) out[key] = [...value.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  }
  return out;
}

describe('indexIncrementally', () => {
  it('equals indexCluster and reuses the lookups of unchanged types', () => {
    const first = dumpSnapshot();
    const index1 = indexIncrementally(first, null);
    expect(content(index1)).toEqual(content(indexCluster(first)));

    const second: ClusterSnapshot = { ...first, services: first.services.slice(1) };
    const index2 = indexIncrementally(second, index1);
    expect(content(index2)).toEqual(content(indexCluster(second)));
    expect(index2.snapshot).toBe(second);
    expect(index2.podsByNamespace).toBe(index1.podsByNamespace); // pods unchanged: reused
    expect(index2.nodesByName).toBe(index1.nodesByName);
    expect(index2.servicesByKey).not.toBe(index1.servicesByKey);
    expect(index2.servicesByKey.size).toBe(1);
  });
});

describe('indexIncrementally: patching replaced records', () => {
  const pod = (namespace: string, name: string, ready = true): PodRecord => ({ namespace, name, labels: {}, nodeName: null, phase: 'Running', ready, terminating: false, owner: null });
  const slice = (namespace: string, service: string | null, name: string, rv = '1'): EndpointSliceRecord => ({
    namespace,
    name,
    resourceVersion: rv,
    serviceName: service,
    managedBy: null,
    addressType: 'IPv4',
    ports: [],
    endpoints: [],
  });
  const hpa = (name: string, target: string, min = 1): HpaRecord => ({ namespace: 'ns', name, scaleTargetRef: { kind: 'Deployment', name: target }, minReplicas: min, maxReplicas: 5, currentReplicas: null, desiredReplicas: null });
  /** Lookups with their entries in iteration order (order counts too). */
  const ordered = (index: ReturnType<typeof indexCluster>) => Object.fromEntries(Object.entries(index).filter(([, v]) => v instanceof Map).map(([k, v]) => [k, [...(v as Map<string, unknown>).entries()]]));

  it('equals indexCluster, order included, after in-place replacements, additions and removals', () => {
    const base: ClusterSnapshot = {
      ...dumpSnapshot(),
      pods: Array.from({ length: 40 }, (_, i) => pod(`ns-${i % 4}`, `p-${i}`)),
      endpointSlices: Array.from({ length: 20 }, (_, i) => slice(`ns-${i % 3}`, i % 5 === 0 ? null : `svc-${i % 7}`, `s-${i}`)),
      hpas: [hpa('a', 'web'), hpa('b', 'web'), hpa('c', 'api')],
    };
    fc.assert(
      fc.property(
        fc.array(fc.record({ kind: fc.constantFrom('pod', 'slice', 'hpa', 'add-pod', 'drop-slice'), at: fc.nat() }), { minLength: 1, maxLength: 6 }),
        (changes) => {
          let before = base;
          let index = indexIncrementally(before, null);
          for (const change of changes) {
            const after: ClusterSnapshot = { ...before };
            if (change.kind === 'pod') {
              const pods = [...before.pods];
              const i = change.at % pods.length;
              pods[i] = { ...(pods[i] as PodRecord), ready: !(pods[i] as PodRecord).ready };
              Object.assign(after, { pods });
            } else if (change.kind === 'slice') {
              const slices = [...before.endpointSlices];
              const i = change.at % slices.length;
              slices[i] = { ...(slices[i] as EndpointSliceRecord), resourceVersion: `${change.at}` };
              Object.assign(after, { endpointSlices: slices });
            } else if (change.kind === 'hpa') {
              const hpas = [...before.hpas];
              const i = change.at % hpas.length;
              hpas[i] = { ...(hpas[i] as HpaRecord), minReplicas: change.at };
              Object.assign(after, { hpas });
            } else if (change.kind === 'add-pod') {
              Object.assign(after, { pods: [...before.pods, pod(`ns-${change.at % 5}`, `new-${change.at}`)] });
            } else {
              Object.assign(after, { endpointSlices: before.endpointSlices.filter((_, i) => i !== change.at % before.endpointSlices.length) });
            }
            const next = indexIncrementally(after, index);
            expect(ordered(next)).toEqual(ordered(indexCluster(after)));
            // Groups whose records did not change keep their list.
            for (const [namespace, list] of next.podsByNamespace) {
              const old = index.podsByNamespace.get(namespace);
              if (old && old.length === list.length && old.every((p, i) => p === list[i])) expect(list).toBe(old);
            }
            before = after;
            index = next;
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

import { afterEach, describe, expect, it } from 'vitest';

import { internNullable, internRecord, internStats, internString, internStringMap, resetInternTables } from './intern';
import { endpointFromWire } from './wire-to-record/endpoint-slice';
import { projectPod } from './wire-to-record/workloads';

afterEach(() => resetInternTables());

describe('interning of slim records', () => {
  it('equal strings and maps share one copy; shared maps are frozen', () => {
    const a = internString(['us-east', '1a'].join('-'));
    expect(internString(['us-east', '1a'].join('-'))).toBe(a);
    expect(internNullable(null)).toBeNull();
    const labels = internStringMap({ app: 'web', tier: 'backend' });
    expect(internStringMap({ app: 'web', tier: 'backend' })).toBe(labels);
    expect(internStringMap({ tier: 'backend', app: 'web' })).not.toBe(labels);
    expect(Object.isFrozen(labels)).toBe(true);
    const owner = internRecord({ kind: 'ReplicaSet', name: 'web-1' });
    expect(internRecord({ kind: 'ReplicaSet', name: 'web-1' })).toBe(owner);
    expect(() => {
      (owner as { name: string }).name = 'x';
    }).toThrow();
  });

  it('pods of one ReplicaSet share labels and owner; endpoints of a zone share hints', () => {
    const pod = (name: string) =>
      projectPod({
        metadata: { namespace: 'team', name, labels: { app: 'web', 'pod-template-hash': 'abc' }, ownerReferences: [{ kind: 'ReplicaSet', name: 'web-abc', controller: true }] },
        spec: { nodeName: 'node-1' },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      });
    const [p1, p2] = [pod('web-abc-1'), pod('web-abc-2')];
    expect(p1.labels).toBe(p2.labels);
    expect(p1.owner).toBe(p2.owner);
    expect(p1.namespace).toBe(p2.namespace);
    const endpoint = (ip: string) => endpointFromWire({ addresses: [ip], zone: 'a', nodeName: 'node-1', conditions: { ready: true }, hints: { forZones: [{ name: 'a' }] } });
    expect(endpoint('10.0.0.1').hints).toBe(endpoint('10.0.0.2').hints);
    expect(endpoint('10.0.0.1').addresses).toEqual(['10.0.0.1']);
    expect(internStats().records).toBeGreaterThan(0);
  });
});

describe('string-map interning by hash', () => {
  it('tells apart maps whose text would run together, differ in one value, in order, or in size', () => {
    const maps: Record<string, string>[] = [{ a: 'bc' }, { ab: 'c' }, { a: 'b', c: '' }, { a: 'bc', d: 'e' }, { d: 'e', a: 'bc' }, {}, { a: '' }, { '': 'a' }];
    const shared = maps.map((m) => internStringMap({ ...m }));
    for (let i = 0; i < maps.length; i++) {
      expect(shared[i]).toEqual(maps[i]);
      expect(Object.keys(shared[i] ?? {})).toEqual(Object.keys(maps[i] ?? {}));
      expect(internStringMap({ ...maps[i] })).toBe(shared[i]);
      for (let j = 0; j < i; j++) expect(shared[j]).not.toBe(shared[i]);
    }
  });

  it('keeps maps whose hashes collide apart (compared entry by entry)', () => {
    // These two hash alike (32-bit FNV-1a of their entries).
    const a = internStringMap({ app: 'web-805787' });
    const b = internStringMap({ app: 'web-2331600' });
    expect(a).toEqual({ app: 'web-805787' });
    expect(b).toEqual({ app: 'web-2331600' });
    expect(internStringMap({ app: 'web-805787' })).toBe(a);
    expect(internStringMap({ app: 'web-2331600' })).toBe(b);
    expect(internStats().stringMaps).toBe(2);
  });

  it('keeps every map of a large label population exact', () => {
    const all = Array.from({ length: 20_000 }, (_, i) => ({ app: `web-${i % 997}`, 'pod-template-hash': `h${i % 1013}` }));
    const shared = all.map((m) => internStringMap(m));
    expect(shared.every((m, i) => JSON.stringify(m) === JSON.stringify(all[i]))).toBe(true);
    const distinct = new Set(all.map((m) => JSON.stringify(m))).size;
    expect(new Set(shared).size).toBe(distinct);
    expect(internStats().stringMaps).toBe(distinct);
  });
});

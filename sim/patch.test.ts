import { describe, expect, it } from 'vitest';
import { applyJsonPatch, applyMergePatch, applyPatch, applyStrategicMergePatch, parseJsonPointer, PatchError, patchTypeOf } from './patch';

describe('JSON merge patch (RFC 7386 appendix A)', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  cases.forEach(([target, patch, expected], i) => {
    it(`case ${i + 1}`, () => {
      expect(applyMergePatch(target, patch)).toEqual(expected);
    });
  });
});

describe('strategic merge patch', () => {
  const service = {
    metadata: { name: 'web', annotations: { a: '1', 'service.kubernetes.io/topology-aware-hints': 'auto' }, finalizers: ['x'] },
    spec: { replicas: 3, ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] },
  };

  it('merges maps and deletes keys set to null (annotations)', () => {
    const out = applyStrategicMergePatch(service, {
      metadata: { annotations: { 'service.kubernetes.io/topology-mode': 'Auto', 'service.kubernetes.io/topology-aware-hints': null } },
      spec: { replicas: 5 },
    });
    expect(out).toMatchObject({ metadata: { annotations: { a: '1', 'service.kubernetes.io/topology-mode': 'Auto' } }, spec: { replicas: 5 } });
    expect((out as { metadata: { annotations: Record<string, string> } }).metadata.annotations).not.toHaveProperty('service.kubernetes.io/topology-aware-hints');
  });

  it('merges lists by their upstream merge key (service ports by port, containers by name)', () => {
    expect(applyStrategicMergePatch(service, { spec: { ports: [{ port: 443, name: 'tls' }, { port: 8080 }] } })).toMatchObject({
      spec: { ports: [{ port: 80, name: 'http' }, { port: 443, name: 'tls' }, { port: 8080 }] },
    });
    const deployment = { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } } } };
    expect(applyStrategicMergePatch(deployment, { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } })).toEqual({
      spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:2' }] } } },
    });
  });

  it('honours $patch delete and replace, $retainKeys and $deleteFromPrimitiveList', () => {
    expect(applyStrategicMergePatch(service, { spec: { ports: [{ port: 80, $patch: 'delete' }] } })).toMatchObject({ spec: { ports: [{ port: 443 }] } });
    expect(applyStrategicMergePatch(service, { spec: { ports: [{ $patch: 'replace' }, { port: 9 }] } })).toMatchObject({ spec: { ports: [{ port: 9 }] } });
    expect(applyStrategicMergePatch(service, { metadata: { annotations: { $patch: 'replace', b: '2' } } })).toMatchObject({ metadata: { annotations: { b: '2' } } });
    expect(applyStrategicMergePatch({ spec: { a: 1, b: 2 } }, { spec: { $retainKeys: ['b', 'c'], c: 3 } })).toEqual({ spec: { b: 2, c: 3 } });
    expect(applyStrategicMergePatch(service, { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } })).toMatchObject({ metadata: { finalizers: [] } });
    expect(applyStrategicMergePatch(service, { metadata: { finalizers: ['y', 'x'] } })).toMatchObject({ metadata: { finalizers: ['x', 'y'] } });
  });

  it('replaces lists without a known merge key', () => {
    expect(applyStrategicMergePatch({ spec: { topologyKeys: ['a', 'b'] } }, { spec: { topologyKeys: ['c'] } })).toEqual({ spec: { topologyKeys: ['c'] } });
  });

  it('rejects unknown $patch directives as malformed', () => {
    expect(() => applyStrategicMergePatch({}, { $patch: 'explode' })).toThrowError(PatchError);
  });
});

describe('JSON patch (RFC 6902)', () => {
  const doc = { metadata: { name: 'x', resourceVersion: '5', annotations: { 'a/b': '1', 'c~d': '2' } }, list: [1, 2, 3] };

  it('adds, replaces and removes through escaped pointers', () => {
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/metadata/annotations/service.kubernetes.io~1topology-mode', value: 'Auto' },
      { op: 'replace', path: '/metadata/annotations/a~1b', value: 'one' },
      { op: 'remove', path: '/metadata/annotations/c~0d' },
      { op: 'add', path: '/list/-', value: 4 },
      { op: 'add', path: '/list/0', value: 0 },
      { op: 'remove', path: '/list/1' },
    ]);
    expect(out).toEqual({
      metadata: { name: 'x', resourceVersion: '5', annotations: { 'a/b': 'one', 'service.kubernetes.io/topology-mode': 'Auto' } },
      list: [0, 2, 3, 4],
    });
    expect(doc.metadata.annotations).toEqual({ 'a/b': '1', 'c~d': '2' });
  });

  it('moves and copies', () => {
    expect(applyJsonPatch({ a: { b: 1 }, c: {} }, [{ op: 'move', from: '/a/b', path: '/c/d' }, { op: 'copy', from: '/c/d', path: '/e' }])).toEqual({ a: {}, c: { d: 1 }, e: 1 });
  });

  it('fails a test operation as a non-malformed PatchError', () => {
    const patch = [{ op: 'test', path: '/metadata/resourceVersion', value: '4' }, { op: 'replace', path: '/metadata/name', value: 'y' }];
    try {
      applyJsonPatch(doc, patch);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PatchError);
      expect((error as PatchError).malformed).toBe(false);
      expect((error as PatchError).message).toBe('testing value /metadata/resourceVersion failed: test failed');
    }
    expect(applyJsonPatch(doc, [{ op: 'test', path: '/metadata/resourceVersion', value: '5' }])).toEqual(doc);
  });

  it('fails operations on missing paths, and malformed documents', () => {
    expect(() => applyJsonPatch({}, [{ op: 'add', path: '/metadata/annotations/x', value: '1' }])).toThrowError(/missing path/);
    expect(() => applyJsonPatch({}, [{ op: 'remove', path: '/nope' }])).toThrowError(/nonexistent key/);
    expect(() => applyJsonPatch({ l: [] }, [{ op: 'replace', path: '/l/0', value: 1 }])).toThrowError(/out of range/);
    for (const bad of [{ op: 'add' }, [{ op: 'frobnicate', path: '/a' }], [{ op: 'add', path: '/a' }], [{ op: 'move', path: '/a' }]]) {
      try {
        applyJsonPatch({}, bad);
        expect.unreachable();
      } catch (error) {
        expect((error as PatchError).malformed).toBe(true);
      }
    }
  });

  it('parses JSON pointers', () => {
    expect(parseJsonPointer('')).toEqual([]);
    expect(parseJsonPointer('/a~1b/~01/')).toEqual(['a/b', '~1', '']);
    expect(() => parseJsonPointer('a')).toThrowError(PatchError);
  });
});

describe('applyPatch', () => {
  it('maps content types', () => {
    expect(patchTypeOf('application/merge-patch+json; charset=utf-8')).toBe('merge');
    expect(patchTypeOf('application/strategic-merge-patch+json')).toBe('strategic');
    expect(patchTypeOf('application/json-patch+json')).toBe('json');
    expect(patchTypeOf('application/apply-patch+yaml')).toBeUndefined();
  });

  it('returns an independent copy', () => {
    const target = { metadata: { name: 'x', labels: { a: '1' } }, spec: { replicas: 1 } };
    const out = applyPatch('merge', target, { spec: { replicas: 2 } }) as typeof target;
    out.metadata.labels.a = 'changed';
    expect(target.metadata.labels.a).toBe('1');
    expect(() => applyPatch('merge', target, [1])).toThrowError(PatchError);
  });
});

import { afterEach, describe, expect, it } from 'vitest';

import { internNullable, internRecord, internStats, internString, internStringMap, resetInternTables } from './intern';
import { endpointFromWire, projectPod } from './wire-to-record';

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

import { describe, expect, it } from 'vitest';
import { kindType } from '../openapi/definitions';
import { ApiError } from '../status';
import type { KubeObject } from '../types';
import type { FieldManagerScope, ManagedFieldsEntry } from './field-manager';
import { applyConfiguration, LAST_APPLIED_ANNOTATION, managerFromUserAgent, recordUpdate } from './field-manager';
import { FieldSet, pathString } from './field-set';
import { compare, merge, SchemaError, toFieldSet, unknownFields } from './typed';

const TOPOLOGY = 'service.kubernetes.io/topology-mode';
const serviceType = kindType('v1', 'Service') ?? { kind: 'object' };

function scope(now = '2025-06-01T12:00:00Z', apiVersion = 'v1'): FieldManagerScope {
  return {
    apiVersion,
    subresource: '',
    typeAt: (version) => kindType(version, 'Service'),
    convert: (object, version) => (version === apiVersion ? object : undefined),
    statusSeparate: true,
    now,
  };
}

function svc(annotations: Record<string, string> | undefined, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}), labels: { app: 'web' } },
    spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
    ...extra,
  };
}

function entries(object: KubeObject): ManagedFieldsEntry[] {
  return (object.metadata.managedFields ?? []) as ManagedFieldsEntry[];
}

function owner(object: KubeObject, manager: string): ManagedFieldsEntry | undefined {
  return entries(object).find((e) => e.manager === manager);
}

/** The annotation keys an entry owns (what zonescope reads: f:metadata → f:annotations → f:<key>). */
function annotationKeys(entry: ManagedFieldsEntry | undefined): string[] {
  const metadata = entry?.fieldsV1['f:metadata'] as Record<string, Record<string, unknown>> | undefined;
  return Object.keys(metadata?.['f:annotations'] ?? {}).filter((k) => k !== '.').map((k) => k.slice(2));
}

/** A create recorded by `manager`, as the create handler records it. */
function created(object: KubeObject, manager: string, now?: string): KubeObject {
  const copy = structuredClone(object);
  recordUpdate(scope(now), undefined, copy, manager);
  return copy;
}

/** An update of `live` to `next` by `manager`. */
function updated(live: KubeObject, next: KubeObject, manager: string, now?: string): KubeObject {
  const copy = structuredClone(next);
  if (copy.metadata.managedFields === undefined && live.metadata.managedFields !== undefined) copy.metadata.managedFields = structuredClone(live.metadata.managedFields);
  recordUpdate(scope(now), live, copy, manager);
  return copy;
}

describe('field sets in the FieldsV1 format', () => {
  it('writes members with children as ".", leaves as {}, and reads them back', () => {
    const set = FieldSet.of(['f:metadata', 'f:annotations'], ['f:metadata', 'f:annotations', `f:${TOPOLOGY}`], ['f:spec', 'f:selector']);
    const fields = set.toFieldsV1();
    expect(fields).toEqual({ 'f:metadata': { 'f:annotations': { '.': {}, [`f:${TOPOLOGY}`]: {} } }, 'f:spec': { 'f:selector': {} } });
    expect(FieldSet.fromFieldsV1(fields).equals(set)).toBe(true);
    expect(() => FieldSet.fromFieldsV1({ 'x:bad': {} })).toThrow(/unknown FieldsV1 path element/);
  });

  it('prints paths as structured-merge-diff does', () => {
    expect(pathString(['f:metadata', 'f:annotations', `f:${TOPOLOGY}`])).toBe(`.metadata.annotations.${TOPOLOGY}`);
    expect(pathString(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:targetPort'])).toBe('.spec.ports[port=80,protocol="TCP"].targetPort');
    expect(pathString(['f:metadata', 'f:finalizers', 'v:"kubernetes"'])).toBe('.metadata.finalizers[="kubernetes"]');
  });

  it('takes unions, differences and intersections of members', () => {
    const a = FieldSet.of(['f:a'], ['f:b', 'f:c']);
    const b = FieldSet.of(['f:b', 'f:c'], ['f:d']);
    expect(a.union(b).paths()).toEqual([['f:a'], ['f:b', 'f:c'], ['f:d']]);
    expect(a.difference(b).paths()).toEqual([['f:a']]);
    expect(a.intersection(b).paths()).toEqual([['f:b', 'f:c']]);
  });
});

describe('typed walks over the schema table', () => {
  it('names every applied leaf, keyed items by their keys (with defaults) and atomic maps whole', () => {
    const fields = toFieldSet(svc({ [TOPOLOGY]: 'Auto' }), serviceType).toFieldsV1();
    expect(fields).toEqual({
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': { 'f:annotations': { [`f:${TOPOLOGY}`]: {} }, 'f:labels': { 'f:app': {} }, 'f:name': {}, 'f:namespace': {} },
      'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} } }, 'f:selector': {} },
    });
  });

  it('rejects undeclared fields and keyed items without their keys, as a typed conversion does', () => {
    expect(() => toFieldSet(svc(undefined, { spec: { trafficDistributon: 'PreferClose' } }), serviceType)).toThrow(
      new SchemaError('.spec.trafficDistributon: field not declared in schema'),
    );
    expect(() => toFieldSet(svc(undefined, { spec: { ports: [{ targetPort: 80 }] } }), serviceType)).toThrow(/element 0: associative list with keys has an element that omits key field "port"/);
    expect(unknownFields(svc(undefined, { spec: { ports: [{ port: 80, nodeport: 1 }], typo: 1 } }), serviceType)).toEqual(['spec.ports[0].nodeport', 'spec.typo']);
  });

  it('owns a map itself only when a change adds the whole map', () => {
    const without = svc(undefined);
    const added = compare(without, svc({ [TOPOLOGY]: 'Auto' }), serviceType).added;
    expect(added.has(['f:metadata', 'f:annotations'])).toBe(true);
    const withOther = svc({ other: 'x' });
    const keyAdded = compare(withOther, svc({ other: 'x', [TOPOLOGY]: 'Auto' }), serviceType);
    expect(keyAdded.added.paths()).toEqual([['f:metadata', 'f:annotations', `f:${TOPOLOGY}`]]);
    const changed = compare(svc({ [TOPOLOGY]: 'Auto' }), svc({ [TOPOLOGY]: 'Disabled' }), serviceType);
    expect(changed.modified.paths()).toEqual([['f:metadata', 'f:annotations', `f:${TOPOLOGY}`]]);
    // spec and status are always present on a real API server's objects: adding fields to them never owns them.
    const specAdded = compare({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } }, svc(undefined), serviceType).added;
    expect(specAdded.has(['f:spec'])).toBe(false);
    expect(specAdded.has(['f:spec', 'f:ports'])).toBe(true);
  });

  it('merges keyed lists item by item and replaces atomic maps', () => {
    const live = svc(undefined, { spec: { selector: { app: 'web', tier: 'front' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 8080, name: 'http' }] } });
    const config = { spec: { selector: { app: 'web' }, ports: [{ port: 443, targetPort: 8443 }, { port: 80, targetPort: 9090 }] } };
    expect(merge(live, config, serviceType)).toMatchObject({
      spec: { selector: { app: 'web' }, ports: [{ port: 443, targetPort: 8443 }, { port: 80, protocol: 'TCP', targetPort: 9090, name: 'http' }] },
    });
  });
});

describe('managedFields of updates', () => {
  it('records a create under its manager with exactly the fields the request set', () => {
    const object = created(svc({ [TOPOLOGY]: 'Auto' }), 'kubectl-client-side-apply');
    expect(entries(object)).toEqual([
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2025-06-01T12:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:annotations': { '.': {}, [`f:${TOPOLOGY}`]: {} }, 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} } }, 'f:selector': {} },
        },
      },
    ]);
  });

  it('moves an annotation key to the manager that changes it and drops emptied entries', () => {
    const first = created(svc({ [TOPOLOGY]: 'Auto' }), 'helm', '2025-06-01T10:00:00Z');
    const annotated = updated(first, svc({ [TOPOLOGY]: 'Disabled' }), 'kubectl-annotate', '2025-06-01T11:00:00Z');
    expect(annotationKeys(owner(annotated, 'helm'))).toEqual([]);
    expect(annotationKeys(owner(annotated, 'kubectl-annotate'))).toEqual([TOPOLOGY]);
    expect(owner(annotated, 'helm')?.time).toBe('2025-06-01T10:00:00Z');
    // helm keeps the map it created (a member with no keys left is written {}) and its other fields.
    expect(owner(annotated, 'helm')?.fieldsV1).toMatchObject({ 'f:metadata': { 'f:annotations': {}, 'f:labels': { '.': {}, 'f:app': {} } } });
    // Removing the key removes it from every owner; an entry left with nothing goes.
    const removed = updated(annotated, svc({}), 'zonescope', '2025-06-01T12:00:00Z');
    expect(owner(removed, 'kubectl-annotate')).toBeUndefined();
    expect(owner(removed, 'zonescope')).toBeUndefined();
    // An update that changes nothing keeps the entries and their times.
    const same = updated(annotated, svc({ [TOPOLOGY]: 'Disabled' }), 'kubectl-edit', '2025-06-01T13:00:00Z');
    expect(same.metadata.managedFields).toEqual(annotated.metadata.managedFields);
  });

  it('takes managedFields a request sets when they are valid, clears them on [], and ignores broken ones', () => {
    const live = created(svc({ [TOPOLOGY]: 'Auto' }), 'helm');
    const handMade: ManagedFieldsEntry[] = [{ manager: 'flux', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { [`f:${TOPOLOGY}`]: {} } } } }];
    const replaced = updated(live, { ...svc({ [TOPOLOGY]: 'Auto' }), metadata: { ...svc({ [TOPOLOGY]: 'Auto' }).metadata, managedFields: handMade } }, 'kubectl');
    expect(entries(replaced).map((e) => e.manager)).toEqual(['flux']);
    const cleared = updated(live, { ...svc({ [TOPOLOGY]: 'Auto' }), metadata: { ...svc({ [TOPOLOGY]: 'Auto' }).metadata, managedFields: [] } }, 'kubectl');
    expect(cleared.metadata.managedFields).toBeUndefined();
    const broken = updated(live, { ...svc({ [TOPOLOGY]: 'Auto' }), metadata: { ...svc({ [TOPOLOGY]: 'Auto' }).metadata, managedFields: [{ manager: 'x', operation: 'Delete' }] } }, 'kubectl');
    expect(entries(broken).map((e) => e.manager)).toEqual(['helm']);
  });

  it('folds more than ten update entries into ancient-changes, oldest first', () => {
    let object = created(svc({}), 'm00', '2025-06-01T00:00:00Z');
    for (let i = 1; i <= 11; i++) {
      const time = `2025-06-01T${String(i).padStart(2, '0')}:00:00Z`;
      object = updated(object, svc({ ...object.metadata.annotations, [`k${i}`]: 'v' }), `m${String(i).padStart(2, '0')}`, time);
    }
    const managers = entries(object).map((e) => e.manager);
    expect(managers).toHaveLength(10);
    expect(managers[0]).toBe('ancient-changes');
    expect(annotationKeys(owner(object, 'ancient-changes'))).toEqual(['k1', 'k2']);
  });

  it('names a manager after the User-Agent up to its first slash', () => {
    expect(managerFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9')).toBe('kubectl');
    expect(managerFromUserAgent('node-fetch')).toBe('node-fetch');
    expect(managerFromUserAgent('a\u0001b/1')).toBe('ab');
    expect(managerFromUserAgent('x'.repeat(200))).toHaveLength(128);
  });
});

describe('server-side apply', () => {
  function apply(live: KubeObject | undefined, config: KubeObject, manager: string, force = false, now?: string): KubeObject {
    return applyConfiguration(scope(now), live, config, manager, force).object;
  }

  function conflictOf(run: () => unknown): ApiError {
    try {
      run();
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
    throw new Error('expected a conflict');
  }

  it('records exactly the applied fields under an Apply entry', () => {
    const object = apply(undefined, svc({ [TOPOLOGY]: 'Auto' }), 'argocd');
    expect(entries(object)).toEqual([
      {
        manager: 'argocd',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2025-06-01T12:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:annotations': { [`f:${TOPOLOGY}`]: {} }, 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} } }, 'f:selector': {} },
        },
      },
    ]);
    expect(object.metadata.annotations).toEqual({ [TOPOLOGY]: 'Auto' });
  });

  it('fails with a 409 naming the owner of a field it would change, and takes it when forced', () => {
    const live = created(svc({ [TOPOLOGY]: 'Auto' }), 'kubectl-client-side-apply');
    const error = conflictOf(() => apply(live, svc({ [TOPOLOGY]: 'Disabled' }), 'argocd'));
    expect(error.code).toBe(409);
    expect(error.reason).toBe('Conflict');
    expect(error.message).toBe(`Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .metadata.annotations.${TOPOLOGY}`);
    expect(error.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: `.metadata.annotations.${TOPOLOGY}` }]);
    // The same value is no conflict: both own it.
    const shared = apply(live, svc({ [TOPOLOGY]: 'Auto' }), 'argocd');
    expect(annotationKeys(owner(shared, 'argocd'))).toEqual([TOPOLOGY]);
    expect(annotationKeys(owner(shared, 'kubectl-client-side-apply'))).toEqual([TOPOLOGY]);
    const forced = apply(live, svc({ [TOPOLOGY]: 'Disabled' }), 'argocd', true);
    expect(forced.metadata.annotations?.[TOPOLOGY]).toBe('Disabled');
    expect(annotationKeys(owner(forced, 'kubectl-client-side-apply'))).toEqual([]);
    expect(annotationKeys(owner(forced, 'argocd'))).toEqual([TOPOLOGY]);
  });

  it('lists several conflicts per manager', () => {
    const live = created(svc({ [TOPOLOGY]: 'Auto', team: 'a' }), 'helm');
    const error = conflictOf(() => apply(live, svc({ [TOPOLOGY]: 'Disabled', team: 'b' }), 'flux'));
    expect(error.message).toBe(`Apply failed with 2 conflicts: conflicts with "helm" using v1:\n- .metadata.annotations.${TOPOLOGY}\n- .metadata.annotations.team`);
  });

  it('removes annotation keys it applied before and applies no more, but not those others own', () => {
    const first = apply(undefined, svc({ [TOPOLOGY]: 'Auto', team: 'a' }), 'argocd');
    const annotated = updated(first, svc({ [TOPOLOGY]: 'Auto', team: 'a', note: 'x' }), 'kubectl-annotate');
    const second = apply(annotated, svc({ team: 'a' }), 'argocd');
    expect(second.metadata.annotations).toEqual({ team: 'a', note: 'x' });
    expect(annotationKeys(owner(second, 'argocd'))).toEqual(['team']);
    const otherApplier = apply(second, svc({ team: 'a' }), 'flux');
    const third = apply(otherApplier, svc({}), 'argocd');
    expect(third.metadata.annotations).toEqual({ team: 'a', note: 'x' });
  });

  it('lets kubectl take over what a still-accurate client-side apply declared, keeping its annotation current', () => {
    const manifest = svc({ [TOPOLOGY]: 'Auto' });
    const lastApplied = `${JSON.stringify(manifest)}\n`;
    const live = created(svc({ [TOPOLOGY]: 'Auto', [LAST_APPLIED_ANNOTATION]: lastApplied }), 'kubectl-client-side-apply');
    const object = apply(live, svc({ [TOPOLOGY]: 'Disabled' }), 'kubectl');
    expect(object.metadata.annotations?.[TOPOLOGY]).toBe('Disabled');
    expect(JSON.parse(object.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '{}')).toMatchObject({ metadata: { annotations: { [TOPOLOGY]: 'Disabled' } } });
    // Another manager gets the conflict; so does kubectl once the object drifted from the annotation.
    expect(conflictOf(() => apply(live, svc({ [TOPOLOGY]: 'Disabled' }), 'flux')).code).toBe(409);
    const drifted = updated(live, svc({ [TOPOLOGY]: 'Disabled', [LAST_APPLIED_ANNOTATION]: lastApplied }), 'kubectl-edit');
    expect(conflictOf(() => apply(drifted, svc({ [TOPOLOGY]: 'Auto' }), 'kubectl')).message).toContain('conflict with "kubectl-edit" using v1');
  });

  it('keeps the entry time when an apply changes nothing', () => {
    const first = apply(undefined, svc({ [TOPOLOGY]: 'Auto' }), 'argocd', false, '2025-06-01T10:00:00Z');
    const again = apply(first, svc({ [TOPOLOGY]: 'Auto' }), 'argocd', false, '2025-06-01T11:00:00Z');
    expect(owner(again, 'argocd')?.time).toBe('2025-06-01T10:00:00Z');
  });

  it('answers a configuration with an undeclared field as the API server does (500, typed patch object)', () => {
    const error = conflictOf(() => apply(undefined, svc(undefined, { spec: { topologyKeys: ['*'] } }), 'argocd'));
    expect(error.code).toBe(500);
    expect(error.message).toBe('failed to create typed patch object (default/web; /v1, Kind=Service): .spec.topologyKeys: field not declared in schema');
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unknownFields } from '../managed-fields/typed';
import { API_RESOURCES, apiVersionOf } from '../resources';
import { generatedScenario, listScenarios, loadScenario } from '../scenario';
import type { KubeObject } from '../types';
import { isRecord } from '../types';
import { DEFINITIONS, kindType } from './definitions';
import { groupVersionPath, openApiDocuments } from './documents';
import { answerOpenApiV3 } from './serve';

type Json = Record<string, unknown>;

function parsed(key: string): Json {
  const doc = openApiDocuments().groupVersions.get(key);
  if (doc === undefined) throw new Error(`no document for ${key}`);
  return JSON.parse(doc.body) as Json;
}

function schemasOf(doc: Json): Json {
  return (doc.components as { schemas: Json }).schemas;
}

/** Every `$ref` in a document. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('the OpenAPI v3 documents', () => {
  const served = [...new Set(API_RESOURCES.map((r) => groupVersionPath(r.group, r.version)))];

  it('lists every served group/version in discovery with the hash of its document', () => {
    const { discovery, groupVersions } = openApiDocuments();
    const paths = (JSON.parse(discovery.body) as { paths: Record<string, { serverRelativeURL: string }> }).paths;
    expect(Object.keys(paths).sort()).toEqual([...served].sort());
    for (const key of served) {
      const doc = groupVersions.get(key);
      const hash = createHash('sha512').update(doc?.body ?? '').digest('hex').toUpperCase();
      expect(paths[key]?.serverRelativeURL).toBe(`/openapi/v3/${key}?hash=${hash}`);
    }
  });

  it('gives every served resource paths whose operations name its kind, and PATCH the fieldValidation parameter', () => {
    for (const r of API_RESOURCES) {
      const doc = parsed(groupVersionPath(r.group, r.version));
      const prefix = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
      const collection = `${prefix}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}`;
      const paths = doc.paths as Record<string, Record<string, Json>>;
      const gvk = { group: r.group, version: r.version, kind: r.kind };
      if (r.storage === undefined) {
        expect(paths[collection]?.post?.['x-kubernetes-group-version-kind']).toEqual(gvk);
        continue;
      }
      const item = paths[`${collection}/{name}`];
      expect(item?.get?.['x-kubernetes-group-version-kind'], collection).toEqual(gvk);
      const patchParams = (item?.patch?.parameters as { name: string; in: string }[]).map((p) => `${p.in}:${p.name}`);
      expect(patchParams).toEqual(expect.arrayContaining(['query:fieldManager', 'query:fieldValidation', 'query:force']));
      for (const sub of r.subresources) expect(paths[`${collection}/{name}/${sub}`]?.patch, `${collection}/${sub}`).toBeDefined();
    }
  });

  it('resolves every $ref and describes every kind served with its group/version/kind', () => {
    for (const key of served) {
      const doc = parsed(key);
      const schemas = schemasOf(doc);
      for (const ref of refs(doc)) expect(schemas[ref.replace('#/components/schemas/', '')], `${key}: ${ref}`).toBeDefined();
      for (const r of API_RESOURCES.filter((x) => groupVersionPath(x.group, x.version) === key)) {
        const withKind = Object.values(schemas).filter((s) =>
          (isRecord(s) && Array.isArray(s['x-kubernetes-group-version-kind']) ? (s['x-kubernetes-group-version-kind'] as Json[]) : []).some((g) => g.kind === r.kind && g.version === r.version && g.group === r.group),
        );
        expect(withKind, `${key} ${r.kind}`).toHaveLength(1);
      }
    }
  });

  it('describes list-map keys and required fields that exist on the items', () => {
    for (const def of DEFINITIONS) {
      for (const [name, field] of Object.entries(def.properties ?? {})) {
        if (field.type.kind !== 'list' || field.type.listType !== 'map') continue;
        const items = field.type.items;
        expect(items.kind, `${def.name}.${name}`).toBe('ref');
        if (items.kind !== 'ref') continue;
        const itemDef = DEFINITIONS.find((d) => d.name === items.name);
        for (const key of field.type.keys ?? []) expect(itemDef?.properties?.[key], `${def.name}.${name} key ${key}`).toBeDefined();
      }
    }
  });

  it('answers 301 to a stale hash, 404 to an unknown group/version and 406 to protobuf only', () => {
    const current = openApiDocuments().groupVersions.get('api/v1')?.hash;
    const stale = answerOpenApiV3(['api', 'v1'], new URLSearchParams('hash=0000'), 'application/json');
    expect(stale).toMatchObject({ code: 301, headers: { Location: `/openapi/v3/api/v1?hash=${current}` } });
    const fresh = answerOpenApiV3(['api', 'v1'], new URLSearchParams(`hash=${current}`), undefined);
    expect(fresh.headers['Cache-Control']).toBe('public, immutable');
    expect(() => answerOpenApiV3(['apis', 'batch', 'v1'], new URLSearchParams(), undefined)).toThrow(/could not find/);
    expect(() => answerOpenApiV3([], new URLSearchParams(), 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf')).toThrow(/accepted/);
  });
});

describe('the schema table against what the simulator stores', () => {
  it('declares every field of the bundled scenarios and the realistic generator', async () => {
    const objects: KubeObject[] = [];
    for (const name of await listScenarios()) objects.push(...(await loadScenario(name)).objects);
    const realistic = generatedScenario('generated:realistic-S');
    if (typeof realistic === 'string') throw new Error(realistic);
    objects.push(...realistic.objects);
    const unknown = new Set<string>();
    for (const object of objects) {
      const type = kindType(object.apiVersion, object.kind);
      if (type === undefined) {
        unknown.add(`${object.apiVersion} ${object.kind}: no schema`);
        continue;
      }
      for (const field of unknownFields(object, type)) unknown.add(`${object.kind} ${field.replace(/\[\d+\]/g, '[]')}`);
    }
    expect([...unknown]).toEqual([]);
  });

  it('has a definition for the kind of every endpoint', () => {
    for (const r of API_RESOURCES) expect(kindType(apiVersionOf(r.group, r.version), r.kind), `${r.group}/${r.version} ${r.kind}`).toBeDefined();
  });
});

/**
 * The OpenAPI v3 documents, generated from the schema table and the served resources
 * (sim/resources.ts): one document per group/version with the paths the simulator serves (their
 * operations carry `x-kubernetes-group-version-kind`, which kubectl explain and kubectl's
 * `fieldValidation` check look for) and `components.schemas` with every definition they reach,
 * plus the `/openapi/v3` discovery document naming each one with the hash of its content, as
 * kube-openapi's handler3 serves them.
 */
import { createHash } from 'node:crypto';
import type { ApiResource } from '../resources';
import { API_RESOURCES, apiVersionOf } from '../resources';
import { definition, definitionForKind } from './definitions';
import type { Definition, FieldDef, FieldType } from './schema';
import { NAMES } from './schema';

type Json = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';

function isStruct(def: Definition): boolean {
  return def.properties !== undefined;
}

/** The schema of a field type (refs as upstream writes them: an `allOf` of one `$ref`). */
function typeSchema(type: FieldType, refs: Set<string>): Json {
  switch (type.kind) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: type.kind, ...(type.format ? { format: type.format } : {}), ...(type.enum ? { enum: [...type.enum] } : {}) };
    case 'ref': {
      refs.add(type.name);
      const def = definition(type.name);
      return { allOf: [{ $ref: `${REF_PREFIX}${type.name}` }], ...(isStruct(def) ? { default: {} } : {}) };
    }
    case 'map':
      return {
        type: 'object',
        additionalProperties: { ...typeSchema(type.values, refs), ...(type.values.kind === 'string' ? { default: '' } : {}) },
        ...(type.atomic ? { 'x-kubernetes-map-type': 'atomic' } : {}),
      };
    case 'list':
      return {
        type: 'array',
        items: typeSchema(type.items, refs),
        'x-kubernetes-list-type': type.listType,
        ...(type.keys ? { 'x-kubernetes-list-map-keys': [...type.keys] } : {}),
        ...(type.patchMergeKey ? { 'x-kubernetes-patch-merge-key': type.patchMergeKey } : {}),
        ...(type.patchStrategy ? { 'x-kubernetes-patch-strategy': type.patchStrategy } : {}),
      };
    case 'object':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  }
}

function fieldSchema(field: FieldDef, refs: Set<string>): Json {
  const schema = typeSchema(field.type, refs);
  if (field.type.kind === 'ref' && !field.zero) delete schema.default;
  return { ...schema, description: field.description, ...(field.default !== undefined ? { default: field.default } : {}) };
}

function definitionSchema(def: Definition, refs: Set<string>): Json {
  if (def.scalar !== undefined) return { type: def.scalar.type, ...(def.scalar.format ? { format: def.scalar.format } : {}), description: def.description };
  if (def.properties === undefined) return { type: 'object', description: def.description, 'x-kubernetes-preserve-unknown-fields': true };
  const properties: Json = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(def.properties)) {
    properties[name] = fieldSchema(field, refs);
    if (field.required) required.push(name);
  }
  return {
    type: 'object',
    description: def.description,
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(def.atomic ? { 'x-kubernetes-map-type': 'atomic' } : {}),
    ...(def.gvk ? { 'x-kubernetes-group-version-kind': def.gvk.map((g) => ({ ...g })) } : {}),
  };
}

/** The list kind of a resource (`ServiceList`), generated from the item's definition. */
function listSchema(resource: ApiResource, item: Definition, refs: Set<string>): Json {
  refs.add(NAMES.listMeta);
  return {
    type: 'object',
    description: `A list of ${resource.kind} objects.`,
    properties: {
      apiVersion: { type: 'string', description: 'The versioned schema of this representation of the object (group/version).' },
      items: { type: 'array', items: { allOf: [{ $ref: `${REF_PREFIX}${item.name}` }], default: {} }, description: `The ${resource.plural}.` },
      kind: { type: 'string', description: 'The type of the object, in CamelCase.' },
      metadata: { allOf: [{ $ref: `${REF_PREFIX}${NAMES.listMeta}` }], default: {}, description: 'Standard list metadata: resourceVersion and continue.' },
    },
    required: ['items'],
    'x-kubernetes-group-version-kind': [{ group: resource.group, kind: resource.listKind, version: resource.version }],
  };
}

function queryParam(name: string, description: string, type: 'string' | 'boolean' = 'string'): Json {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

const PARAM = {
  dryRun: queryParam('dryRun', '`All`: check the request without persisting anything.'),
  fieldManager: queryParam('fieldManager', 'The name of the writer, recorded in managedFields (required for apply patches).'),
  fieldValidation: queryParam('fieldValidation', 'What to do with unknown fields in the body: Ignore, Warn (the default) or Strict.'),
  force: queryParam('force', 'Apply patches only: take over fields other managers own.', 'boolean'),
  labelSelector: queryParam('labelSelector', 'Only objects whose labels match.'),
  fieldSelector: queryParam('fieldSelector', 'Only objects whose fields match.'),
  limit: { name: 'limit', in: 'query', description: 'At most this many items per page.', schema: { type: 'integer', uniqueItems: true } },
  continue: queryParam('continue', 'The token of the next page.'),
  resourceVersion: queryParam('resourceVersion', 'Which state to read, or where a watch starts.'),
  watch: queryParam('watch', 'Stream changes instead of answering once.', 'boolean'),
};

function pathParam(name: string, description: string): Json {
  return { name, in: 'path', required: true, description, schema: { type: 'string', uniqueItems: true } };
}

function jsonContent(schemaName: string): Json {
  return { 'application/json': { schema: { $ref: `${REF_PREFIX}${schemaName}` } } };
}

const PATCH_TYPES = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

interface OperationSpec {
  readonly action: string;
  readonly summary: string;
  readonly gvk: { group: string; version: string; kind: string };
  readonly parameters: readonly Json[];
  readonly request?: Json;
  readonly responses: Record<string, string>;
}

function operation(id: string, spec: OperationSpec): Json {
  const responses: Json = {};
  for (const [code, schemaName] of Object.entries(spec.responses)) {
    responses[code] = { description: code === '201' ? 'Created' : code === '202' ? 'Accepted' : 'OK', content: jsonContent(schemaName) };
  }
  responses['401'] = { description: 'Unauthorized' };
  return {
    description: spec.summary,
    operationId: id,
    ...(spec.parameters.length > 0 ? { parameters: [...spec.parameters] } : {}),
    ...(spec.request ? { requestBody: spec.request } : {}),
    responses,
    'x-kubernetes-action': spec.action,
    'x-kubernetes-group-version-kind': { ...spec.gvk },
  };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The paths of one served resource (with its status and scale subresources). */
function resourcePaths(resource: ApiResource, kindName: string, paths: Json, refs: Set<string>): void {
  const prefix = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const ns = resource.namespaced ? '/namespaces/{namespace}' : '';
  const collection = `${prefix}${ns}/${resource.plural}`;
  const item = `${collection}/{name}`;
  const gvk = { group: resource.group, version: resource.version, kind: resource.kind };
  const listName = `${kindName}List`;
  const Kind = resource.kind;
  const opId = (verb: string, suffix = '') => `${verb}${resource.namespaced ? 'Namespaced' : ''}${Kind}${suffix}`;
  const pathParams = resource.namespaced ? [pathParam('namespace', 'The namespace.')] : [];
  const body = (name: string): Json => ({ content: jsonContent(name), required: true });
  const patchBody = (): Json => {
    refs.add(NAMES.patch);
    return { content: Object.fromEntries(PATCH_TYPES.map((t) => [t, { schema: { $ref: `${REF_PREFIX}${NAMES.patch}` } }])), required: true };
  };
  const writes = [PARAM.dryRun, PARAM.fieldManager, PARAM.fieldValidation];
  const reads = [PARAM.labelSelector, PARAM.fieldSelector, PARAM.limit, PARAM.continue, PARAM.resourceVersion, PARAM.watch];
  const verbs = new Set(resource.verbs);

  if (resource.storage === undefined) {
    // The review kinds: create only.
    paths[collection] = { post: operation(`create${Kind}`, { action: 'post', summary: `create a ${Kind}`, gvk, parameters: writes, request: body(kindName), responses: { '200': kindName, '201': kindName } }) };
    return;
  }
  refs.add(NAMES.status);
  const collectionOps: Json = { parameters: pathParams };
  if (verbs.has('list')) collectionOps.get = operation(opId('list'), { action: 'list', summary: `list or watch ${resource.plural}`, gvk, parameters: reads, responses: { '200': listName } });
  if (verbs.has('create')) collectionOps.post = operation(opId('create'), { action: 'post', summary: `create a ${Kind}`, gvk, parameters: writes, request: body(kindName), responses: { '200': kindName, '201': kindName } });
  if (verbs.has('deletecollection')) {
    refs.add(NAMES.deleteOptions);
    collectionOps.delete = operation(opId('deleteCollection'), { action: 'deletecollection', summary: `delete a collection of ${resource.plural}`, gvk, parameters: [PARAM.dryRun, PARAM.labelSelector, PARAM.fieldSelector], responses: { '200': NAMES.status } });
  }
  paths[collection] = collectionOps;
  if (resource.namespaced && verbs.has('list')) {
    paths[`${prefix}/${resource.plural}`] = { get: operation(`list${Kind}ForAllNamespaces`, { action: 'list', summary: `list or watch ${resource.plural} of all namespaces`, gvk, parameters: reads, responses: { '200': listName } }) };
  }
  const itemParams = [pathParam('name', `The name of the ${Kind}.`), ...pathParams];
  paths[item] = {
    parameters: itemParams,
    get: operation(opId('read'), { action: 'get', summary: `read the specified ${Kind}`, gvk, parameters: [], responses: { '200': kindName } }),
    put: operation(opId('replace'), { action: 'put', summary: `replace the specified ${Kind}`, gvk, parameters: writes, request: body(kindName), responses: { '200': kindName, '201': kindName } }),
    patch: operation(opId('patch'), { action: 'patch', summary: `partially update the specified ${Kind}`, gvk, parameters: [...writes, PARAM.force], request: patchBody(), responses: { '200': kindName, '201': kindName } }),
    delete: operation(opId('delete'), { action: 'delete', summary: `delete a ${Kind}`, gvk, parameters: [PARAM.dryRun], responses: { '200': kindName, '202': kindName } }),
  };
  for (const sub of resource.subresources) {
    const schemaName = sub === 'scale' ? 'io.k8s.api.autoscaling.v1.Scale' : kindName;
    refs.add(schemaName);
    const subGvk = sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : gvk;
    const Sub = capitalized(sub);
    paths[`${item}/${sub}`] = {
      parameters: itemParams,
      get: operation(opId('read', Sub), { action: 'get', summary: `read the ${sub} of the specified ${Kind}`, gvk: subGvk, parameters: [], responses: { '200': schemaName } }),
      put: operation(opId('replace', Sub), { action: 'put', summary: `replace the ${sub} of the specified ${Kind}`, gvk: subGvk, parameters: writes, request: body(schemaName), responses: { '200': schemaName, '201': schemaName } }),
      patch: operation(opId('patch', Sub), { action: 'patch', summary: `partially update the ${sub} of the specified ${Kind}`, gvk: subGvk, parameters: [...writes, PARAM.force], request: patchBody(), responses: { '200': schemaName, '201': schemaName } }),
    };
  }
}

/** The `api/v1` / `apis/<group>/<version>` key of a group/version. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** The OpenAPI v3 document of one served group/version (`undefined` when it is not served). */
export function groupVersionDocument(group: string, version: string): Json | undefined {
  const resources = API_RESOURCES.filter((r) => r.group === group && r.version === version);
  if (resources.length === 0) return undefined;
  const refs = new Set<string>();
  const paths: Json = {};
  const schemas: Json = {};
  for (const resource of resources) {
    const def = definitionForKind(apiVersionOf(group, version), resource.kind);
    if (def === undefined) throw new Error(`sim/openapi: no definition for ${apiVersionOf(group, version)} ${resource.kind}`);
    refs.add(def.name);
    if (resource.storage !== undefined) schemas[`${def.name}List`] = listSchema(resource, def, refs);
    resourcePaths(resource, def.name, paths, refs);
  }
  // Every definition reached from the kinds, transitively.
  const done = new Set<string>();
  let pending = [...refs];
  while (pending.length > 0) {
    const next = new Set<string>();
    for (const name of pending) {
      if (done.has(name)) continue;
      done.add(name);
      schemas[name] = definitionSchema(definition(name), next);
    }
    pending = [...next].filter((name) => !done.has(name));
  }
  const sorted: Json = {};
  for (const name of Object.keys(schemas).sort()) sorted[name] = schemas[name];
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes (zonescope simulator)', version: 'unversioned' },
    paths,
    components: { schemas: sorted },
  };
}

/** A document served with its hash (the ETag and the `hash` of its URL). */
export interface ServedDocument {
  readonly body: string;
  readonly hash: string;
}

function served(document: Json): ServedDocument {
  const body = JSON.stringify(document);
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

let cache: { discovery: ServedDocument; groupVersions: Map<string, ServedDocument> } | undefined;

function build(): { discovery: ServedDocument; groupVersions: Map<string, ServedDocument> } {
  const groupVersions = new Map<string, ServedDocument>();
  for (const r of API_RESOURCES) {
    const key = groupVersionPath(r.group, r.version);
    if (groupVersions.has(key)) continue;
    const document = groupVersionDocument(r.group, r.version);
    if (document !== undefined) groupVersions.set(key, served(document));
  }
  const paths: Json = {};
  for (const [key, doc] of [...groupVersions].sort(([a], [b]) => a.localeCompare(b))) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
  }
  return { discovery: served({ paths }), groupVersions };
}

/** The documents (built once: they depend only on the code). */
export function openApiDocuments(): { discovery: ServedDocument; groupVersions: ReadonlyMap<string, ServedDocument> } {
  cache ??= build();
  return cache;
}

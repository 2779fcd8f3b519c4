/**
 * Offline snapshots: a file or folder of YAML/JSON dumps loaded into a {@link ClusterSnapshot}.
 *
 * Accepted input (any mix, in `.yaml`, `.yml` or `.json` files; folders are read recursively in
 * name order, hidden entries skipped):
 * - `kubectl get nodes,services,endpointslices,pods,deployments,replicasets,hpa,events -A -o yaml`
 *   (a `v1 List`), the same with `-o json`, typed lists as the API serves them (`PodList`, whose
 *   items carry no `kind`), single objects, multi-document YAML;
 * - kube-system ConfigMaps (`kubectl get cm -n kube-system -o yaml`: kube-proxy, cilium-config,
 *   calico-config) and DaemonSets (`kubectl get ds -A -o yaml`: aws-node, calico-node), and Calico's
 *   `FelixConfiguration` / `Installation` resources.
 *
 * **Server version.** Given by, in any file (for example `version.json`):
 * - a document without `kind` holding the output of `kubectl get --raw /version`
 *   (`{"major", "minor", "gitVersion", …}`) or of `kubectl version -o json|yaml`
 *   (`{"serverVersion": {…}}`);
 * - or the simulator's scenario document `{apiVersion: zonescope.dev/v1, kind: ServerVersion,
 *   gitVersion: v1.31.4}`.
 * Without one the version is unknown (`null`); two different versions are an error.
 *
 * Unknown kinds are ignored (counted in the summary); Events not about a Service and ConfigMaps
 * or DaemonSets that carry no dataplane facts are dropped (counted). Malformed input — a YAML or
 * JSON syntax error, a document that is not a mapping, an object without `kind` or
 * `metadata.name`, a field of the wrong type where zonescope reads it — is an error naming the
 * file, the document (1-based), the item (`items[i]`, 0-based) and what is wrong. On any error
 * nothing is returned but the errors.
 *
 * The dump format (documents, Lists, version documents) is `./kubectl-dump`, shared with the
 * simulator's scenario loader. Pure except {@link loadSnapshot} (file system). No client-node.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ClusterSnapshot, ServerVersionRecord } from '../topology/model/cluster-model';
import type { DumpLocation } from './kubectl-dump';
import { isJsonFileName, isJsonText, isServerVersionDocument, kubectlVersionOf, listDocument, readYamlDocuments } from './kubectl-dump';
import type { DataplaneFactRecord, Json } from './wire-to-record';
import { isJsonObject, obj, projectCalicoObject, projectServerVersion, str } from './wire-to-record';
import type { RecordById, ResourceId } from './resources';
import { assembleSnapshot, cacheKey, RESOURCE_IDS, RESOURCES, resourceIdForKind } from './resources';

/** Where an object or problem was found. */
export type SnapshotLocation = DumpLocation;

/** One problem with the input. */
export interface SnapshotProblem extends Partial<SnapshotLocation> {
  readonly file: string;
  /** Position of a syntax error (1-based). */
  readonly line?: number;
  readonly column?: number;
  /** `Kind namespace/name` of the object, when known. */
  readonly object?: string;
  /** What is wrong. */
  readonly message: string;
}

/** An object read from a snapshot, with where it came from. */
export interface SnapshotObject {
  readonly kind: string;
  readonly apiVersion: string;
  /** The object as parsed (for a typed List item without `kind`, the kind is filled in). */
  readonly object: Json;
  readonly location: SnapshotLocation;
}

/** A server version document. */
export interface SnapshotVersion {
  /** `/version` content (`major`, `minor`, `gitVersion`, …). */
  readonly version: Json;
  readonly location: SnapshotLocation;
}

/** Result of {@link parseSnapshotDocuments}. */
export type ParseDocumentsResult =
  | { readonly ok: true; readonly objects: readonly SnapshotObject[]; readonly versions: readonly SnapshotVersion[]; readonly documents: number }
  | { readonly ok: false; readonly errors: readonly SnapshotProblem[] };

/** What a load read and skipped. */
export interface SnapshotSummary {
  readonly files: readonly string[];
  readonly documents: number;
  /** Records kept per resource type. */
  readonly records: Readonly<Record<ResourceId, number>>;
  /** Objects of kinds zonescope does not read, per kind. */
  readonly ignoredKinds: Readonly<Record<string, number>>;
  /** Objects of read kinds dropped as irrelevant (Events not about Services, other ConfigMaps…). */
  readonly dropped: Readonly<Record<string, number>>;
  /** Objects given more than once (same kind, namespace and name); the last one wins. */
  readonly duplicates: number;
  /** Where the server version came from, `null` when unknown. */
  readonly versionSource: string | null;
}

/** Result of {@link buildSnapshot} and {@link loadSnapshot}. */
export type SnapshotResult =
  | { readonly ok: true; readonly snapshot: ClusterSnapshot; readonly summary: SnapshotSummary }
  | { readonly ok: false; readonly errors: readonly SnapshotProblem[] };

/** One line per problem: `file, document 2, items[3] (Kind ns/name): message`. */
export function formatProblem(problem: SnapshotProblem): string {
  let where = problem.file;
  if (problem.document !== undefined) where += `, document ${problem.document}`;
  if (problem.item !== undefined) where += `, items[${problem.item}]`;
  if (problem.line !== undefined) where += ` (line ${problem.line}${problem.column !== undefined ? `, column ${problem.column}` : ''})`;
  if (problem.object !== undefined) where += ` (${problem.object})`;
  return `${where}: ${problem.message}`;
}

// ---------------------------------------------------------------------------------------------
// Shape checks: the fields zonescope reads must have the type Kubernetes gives them.

type FieldType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'stringMap';

/** `[path, type]`; a path segment `[]` applies the rest to every element of an array. */
type FieldRule = readonly [string, FieldType];

const COMMON_RULES: readonly FieldRule[] = [
  ['metadata.namespace', 'string'],
  ['metadata.labels', 'stringMap'],
  ['metadata.annotations', 'stringMap'],
  ['metadata.resourceVersion', 'string'],
  ['metadata.ownerReferences', 'array'],
  ['metadata.ownerReferences.[]', 'object'],
];

const POD_TEMPLATE_RULES: readonly FieldRule[] = [
  ['spec.template', 'object'],
  ['spec.template.metadata.labels', 'stringMap'],
  ['spec.template.spec', 'object'],
  ['spec.template.spec.containers', 'array'],
  ['spec.template.spec.topologySpreadConstraints', 'array'],
  ['spec.template.spec.topologySpreadConstraints.[]', 'object'],
  ['spec.template.spec.topologySpreadConstraints.[].maxSkew', 'number'],
  ['spec.template.spec.affinity', 'object'],
];

const RULES: Readonly<Record<string, readonly FieldRule[]>> = {
  Node: [
    ['spec', 'object'],
    ['status', 'object'],
    ['status.conditions', 'array'],
    ['status.conditions.[]', 'object'],
    ['status.allocatable', 'object'],
  ],
  Service: [
    ['spec', 'object'],
    ['spec.selector', 'stringMap'],
    ['spec.ports', 'array'],
    ['spec.ports.[]', 'object'],
    ['spec.ports.[].port', 'number'],
    ['spec.type', 'string'],
    ['status.loadBalancer.ingress', 'array'],
  ],
  EndpointSlice: [
    ['addressType', 'string'],
    ['endpoints', 'array'],
    ['endpoints.[]', 'object'],
    ['endpoints.[].addresses', 'array'],
    ['endpoints.[].addresses.[]', 'string'],
    ['endpoints.[].conditions', 'object'],
    ['endpoints.[].conditions.ready', 'boolean'],
    ['endpoints.[].conditions.serving', 'boolean'],
    ['endpoints.[].conditions.terminating', 'boolean'],
    ['endpoints.[].zone', 'string'],
    ['endpoints.[].nodeName', 'string'],
    ['endpoints.[].hints', 'object'],
    ['endpoints.[].hints.forZones', 'array'],
    ['endpoints.[].hints.forZones.[]', 'object'],
    ['endpoints.[].hints.forZones.[].name', 'string'],
    ['endpoints.[].hints.forNodes', 'array'],
    ['ports', 'array'],
    ['ports.[]', 'object'],
  ],
  Pod: [
    ['spec', 'object'],
    ['spec.nodeName', 'string'],
    ['status', 'object'],
    ['status.conditions', 'array'],
    ['status.conditions.[]', 'object'],
    ['status.podIP', 'string'],
  ],
  Deployment: [['spec', 'object'], ['spec.replicas', 'number'], ['spec.selector', 'object'], ['spec.selector.matchLabels', 'stringMap'], ['spec.selector.matchExpressions', 'array'], ...POD_TEMPLATE_RULES, ['status.readyReplicas', 'number']],
  ReplicaSet: [['spec', 'object'], ['spec.replicas', 'number'], ['spec.selector', 'object']],
  HorizontalPodAutoscaler: [
    ['spec', 'object'],
    ['spec.scaleTargetRef', 'object'],
    ['spec.scaleTargetRef.kind', 'string'],
    ['spec.scaleTargetRef.name', 'string'],
    ['spec.minReplicas', 'number'],
    ['spec.maxReplicas', 'number'],
    ['status.currentReplicas', 'number'],
    ['status.desiredReplicas', 'number'],
  ],
  Event: [
    ['involvedObject', 'object'],
    ['regarding', 'object'],
    ['reason', 'string'],
    ['message', 'string'],
    ['note', 'string'],
    ['count', 'number'],
    ['deprecatedCount', 'number'],
  ],
  ConfigMap: [['data', 'stringMap']],
  DaemonSet: [['spec', 'object'], ...POD_TEMPLATE_RULES],
  FelixConfiguration: [['spec', 'object'], ['spec.bpfEnabled', 'boolean']],
  Installation: [['spec', 'object'], ['spec.calicoNetwork', 'object']],
};

/** Kinds read besides the resource types (Calico configuration). */
const EXTRA_KINDS = ['FelixConfiguration', 'Installation'];

function typeOk(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'object':
      return isJsonObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'stringMap':
      return isJsonObject(value) && Object.values(value).every((v) => typeof v === 'string');
  }
}

const TYPE_NAMES: Readonly<Record<FieldType, string>> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  stringMap: 'a mapping of strings to strings',
};

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40) ?? ''}`.trim();
}

/** Checks one rule; absent and `null` values are fine (optional fields). Returns the first problem. */
function checkRule(value: unknown, segments: readonly string[], type: FieldType, at: string): string | null {
  if (value === undefined || value === null) return null;
  if (segments.length === 0) {
    return typeOk(value, type) ? null : `${at} must be ${TYPE_NAMES[type]}, not ${describe(value)}`;
  }
  const [head, ...rest] = segments;
  if (head === '[]') {
    if (!Array.isArray(value)) return null; // the array rule itself reports it
    for (let i = 0; i < value.length; i++) {
      const problem = checkRule(value[i], rest, type, `${at}[${i}]`);
      if (problem !== null) return problem;
    }
    return null;
  }
  if (!isJsonObject(value)) return null; // reported by the parent's own rule
  return checkRule(value[head ?? ''], rest, type, at === '' ? (head ?? '') : `${at}.${head ?? ''}`);
}

/** The first shape problem of an object of a read kind, `null` when it is fine. */
export function objectProblem(object: Json, kind: string): string | null {
  if (!isJsonObject(object.metadata)) return object.metadata === undefined ? 'metadata is missing' : `metadata must be a mapping, not ${describe(object.metadata)}`;
  const name = object.metadata.name;
  if (typeof name !== 'string' || name === '') return 'metadata.name is missing or not a string';
  for (const [fieldPath, type] of [...COMMON_RULES, ...(RULES[kind] ?? [])]) {
    const problem = checkRule(object, fieldPath.split('.'), type, '');
    if (problem !== null) return problem;
  }
  return null;
}

function objectLabel(kind: string, object: Json): string {
  const metadata = obj(object.metadata);
  const name = str(metadata.name) ?? '?';
  const namespace = str(metadata.namespace);
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

function isReadKind(kind: string): boolean {
  return resourceIdForKind(kind) !== undefined || EXTRA_KINDS.includes(kind);
}

// ---------------------------------------------------------------------------------------------
// Parsing

/** Parses the text into documents (`null` and `undefined` entries are empty documents). */
function parseDocuments(text: string, file: string): { ok: true; documents: unknown[] } | { ok: false; errors: SnapshotProblem[] } {
  if (isJsonText(text, file)) {
    try {
      return { ok: true, documents: [JSON.parse(text) as unknown] };
    } catch {
      // Not strict JSON: the YAML parser (a JSON superset) accepts it or locates the error.
    }
  }
  const syntax = isJsonFileName(file) ? 'JSON syntax error' : 'YAML syntax error';
  const documents: unknown[] = [];
  const errors: SnapshotProblem[] = [];
  let parsed;
  try {
    parsed = readYamlDocuments(text, 100);
  } catch (error) {
    return { ok: false, errors: [{ file, message: `YAML could not be parsed: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  for (const doc of parsed) {
    if (doc.ok) {
      documents.push(doc.value);
      continue;
    }
    const [first] = doc.errors;
    if (first === undefined) continue;
    if (first.type === 'conversion') {
      errors.push({ file, document: doc.document, message: `YAML could not be converted: ${first.message}` });
    } else {
      errors.push({
        file,
        document: doc.document,
        ...(first.line !== undefined && first.column !== undefined ? { line: first.line, column: first.column } : {}),
        message: `${syntax}: ${first.message.replace(/ at line \d+, column \d+:?$/, '')}`,
      });
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, documents };
}

/**
 * Parses one file's text (YAML, multi-document YAML or JSON) into Kubernetes objects and version
 * documents, flattening Lists. Objects of every kind are returned (the simulator serves them);
 * objects of the kinds zonescope reads are shape-checked. Any problem fails the whole file.
 *
 * @param fileName used in problems only.
 */
export function parseSnapshotDocuments(text: string, fileName: string): ParseDocumentsResult {
  const parsed = parseDocuments(text, fileName);
  if (!parsed.ok) return parsed;
  const objects: SnapshotObject[] = [];
  const versions: SnapshotVersion[] = [];
  const errors: SnapshotProblem[] = [];

  const addObject = (value: unknown, location: SnapshotLocation, kindHint: string | undefined, apiVersionHint: string | undefined): void => {
    if (!isJsonObject(value)) {
      errors.push({ ...location, message: `expected a Kubernetes object (a mapping), found ${describe(value)}` });
      return;
    }
    const kind = str(value.kind) ?? kindHint;
    if (kind === undefined || kind === '') {
      errors.push({ ...location, message: 'the object has no kind' });
      return;
    }
    const object = value.kind === undefined ? { ...value, kind, ...(value.apiVersion === undefined && apiVersionHint !== undefined ? { apiVersion: apiVersionHint } : {}) } : value;
    if (isReadKind(kind)) {
      const problem = objectProblem(object, kind);
      if (problem !== null) {
        errors.push({ ...location, object: objectLabel(kind, object), message: problem });
        return;
      }
    }
    objects.push({ kind, apiVersion: str(object.apiVersion) ?? '', object, location });
  };

  parsed.documents.forEach((document, index) => {
    const location: SnapshotLocation = { file: fileName, document: index + 1 };
    if (document === null || document === undefined) return; // empty document (`---` at the end)
    if (!isJsonObject(document)) {
      errors.push({ ...location, message: `expected a Kubernetes object or List (a mapping), found ${describe(document)}` });
      return;
    }
    if (isServerVersionDocument(document)) {
      if (typeof document.gitVersion !== 'string' || document.gitVersion === '') {
        errors.push({ ...location, message: 'ServerVersion.gitVersion must be a version string such as v1.31.4' });
      } else {
        versions.push({ version: { gitVersion: document.gitVersion }, location });
      }
      return;
    }
    if (str(document.kind) === null) {
      const version = kubectlVersionOf(document);
      if (version !== null) versions.push({ version, location });
      else errors.push({ ...location, message: 'the document has no kind (and is not a /version document)' });
      return;
    }
    const list = listDocument(document);
    if (list !== null) {
      const { items } = list;
      if (items !== null && items !== undefined && !Array.isArray(items)) {
        errors.push({ ...location, message: `items of a ${list.kind} must be a list, not ${describe(items)}` });
        return;
      }
      (items ?? []).forEach((item: unknown, i: number) => addObject(item, { ...location, item: i }, list.itemKind, list.itemApiVersion));
      return;
    }
    addObject(document, location, undefined, undefined);
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, objects, versions, documents: parsed.documents.length };
}

// ---------------------------------------------------------------------------------------------
// Building

type MutableRecordLists = { [Id in ResourceId]: Map<string, RecordById[Id]> };

/**
 * Projects parsed objects onto a {@link ClusterSnapshot}. Later objects win over earlier ones
 * with the same kind, namespace and name.
 */
export function buildSnapshot(
  objects: readonly SnapshotObject[],
  versions: readonly SnapshotVersion[] = [],
  meta: { readonly files?: readonly string[]; readonly documents?: number } = {},
): SnapshotResult {
  const maps = Object.fromEntries(RESOURCE_IDS.map((id) => [id, new Map()])) as MutableRecordLists;
  const ignoredKinds: Record<string, number> = {};
  const dropped: Record<string, number> = {};
  const extraFacts = new Map<string, DataplaneFactRecord>();
  let duplicates = 0;
  const providerIDs: (string | null)[] = [];

  const put = <Id extends ResourceId>(id: Id, key: string, record: RecordById[Id]): void => {
    const map = maps[id] as Map<string, RecordById[Id]>;
    if (map.has(key)) duplicates++;
    map.set(key, record);
  };

  for (const { kind, object } of objects) {
    const id = resourceIdForKind(kind);
    if (id === undefined) {
      if (EXTRA_KINDS.includes(kind)) {
        const calico = projectCalicoObject(object);
        const key = objectLabel(kind, object);
        if (calico !== null) {
          if (extraFacts.has(key)) duplicates++;
          extraFacts.set(key, { key, proxy: null, cilium: null, calico, awsVpcCni: false });
        } else dropped[kind] = (dropped[kind] ?? 0) + 1;
      } else {
        ignoredKinds[kind] = (ignoredKinds[kind] ?? 0) + 1;
      }
      continue;
    }
    const record = RESOURCES[id].project(object);
    if (record === null) {
      dropped[kind] = (dropped[kind] ?? 0) + 1;
      continue;
    }
    put(id, cacheKey(object), record as RecordById[typeof id]);
  }
  for (const node of maps.nodes.values()) providerIDs.push(node.providerID);

  // Server version: all version documents must agree.
  let version: ServerVersionRecord | null = null;
  let versionSource: string | null = null;
  for (const candidate of versions) {
    const record = projectServerVersion(candidate.version, providerIDs);
    if (record === null) {
      return { ok: false, errors: [{ ...candidate.location, message: 'the version document has neither gitVersion nor major/minor' }] };
    }
    if (version !== null && version.gitVersion !== record.gitVersion) {
      return {
        ok: false,
        errors: [{ ...candidate.location, message: `server version ${record.gitVersion} contradicts ${version.gitVersion} given in ${versionSource ?? 'another document'}` }],
      };
    }
    version = record;
    versionSource = `${candidate.location.file}, document ${candidate.location.document}`;
  }

  const snapshot = assembleSnapshot(
    {
      nodes: [...maps.nodes.values()],
      services: [...maps.services.values()],
      endpointslices: [...maps.endpointslices.values()],
      pods: [...maps.pods.values()],
      deployments: [...maps.deployments.values()],
      replicasets: [...maps.replicasets.values()],
      hpas: [...maps.hpas.values()],
      events: [...maps.events.values()],
      configmaps: [...maps.configmaps.values()],
      daemonsets: [...maps.daemonsets.values()],
    },
    version,
    [...extraFacts.values()],
  );
  const records = Object.fromEntries(RESOURCE_IDS.map((id) => [id, maps[id].size])) as Record<ResourceId, number>;
  return {
    ok: true,
    snapshot,
    summary: {
      files: meta.files ?? [...new Set(objects.map((o) => o.location.file))],
      documents: meta.documents ?? 0,
      records,
      ignoredKinds,
      dropped,
      duplicates,
      versionSource,
    },
  };
}

const SNAPSHOT_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** The `code` of a file-system error (`ENOENT`, …), `error` when it has none. */
function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : 'error';
}

async function collectFiles(target: string, errors: SnapshotProblem[]): Promise<string[]> {
  let info;
  try {
    info = await stat(target);
  } catch (error) {
    const code = errorCode(error);
    errors.push({ file: target, message: code === 'ENOENT' ? 'no such file or folder' : `cannot be read (${code})` });
    return [];
  }
  if (info.isFile()) return [target];
  if (!info.isDirectory()) {
    errors.push({ file: target, message: 'is neither a file nor a folder' });
    return [];
  }
  const entries = (await readdir(target, { withFileTypes: true })).filter((e) => !e.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) files.push(...(await collectFiles(full, errors)));
    else if (entry.isFile() && SNAPSHOT_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) files.push(full);
  }
  return files;
}

/**
 * Loads a snapshot from a file, a folder (recursively: `.yaml`, `.yml`, `.json`) or several of
 * them. All-or-nothing: any problem in any file yields `{ok: false, errors}` listing every
 * problem found, and no snapshot.
 */
export async function loadSnapshot(pathOrPaths: string | readonly string[]): Promise<SnapshotResult> {
  const targets = typeof pathOrPaths === 'string' ? [pathOrPaths] : pathOrPaths;
  const errors: SnapshotProblem[] = [];
  const files: string[] = [];
  for (const target of targets) files.push(...(await collectFiles(target, errors)));
  if (errors.length === 0 && files.length === 0) errors.push({ file: targets.join(', ') || '(none)', message: 'no .yaml, .yml or .json files found' });
  const objects: SnapshotObject[] = [];
  const versions: SnapshotVersion[] = [];
  let documents = 0;
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      errors.push({ file, message: `cannot be read (${errorCode(error)})` });
      continue;
    }
    const parsed = parseSnapshotDocuments(text, file);
    if (!parsed.ok) {
      errors.push(...parsed.errors);
      continue;
    }
    objects.push(...parsed.objects);
    versions.push(...parsed.versions);
    documents += parsed.documents;
  }
  if (errors.length > 0) return { ok: false, errors };
  return buildSnapshot(objects, versions, { files, documents });
}

/** {@link parseSnapshotDocuments} then {@link buildSnapshot} for one text (tests, uploads). */
export function snapshotFromText(text: string, fileName: string): SnapshotResult {
  const parsed = parseSnapshotDocuments(text, fileName);
  if (!parsed.ok) return parsed;
  return buildSnapshot(parsed.objects, parsed.versions, { files: [fileName], documents: parsed.documents });
}

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
 * `metadata.name`, a field of the wrong type where zonescope reads it, a key given twice in a JSON
 * object, a Node CPU the API server would refuse (`allocatableCpuProblem`), an object given twice
 * (same kind, namespace and name, in one file or two: both places are named) — is an error naming
 * the file, the document (1-based), the item (`items[i]`, 0-based) and what is wrong. On any error
 * nothing is returned but the errors (the first 50, then a count).
 *
 * Files are streamed (`./dump-stream`): a List is read item by item and each object is projected
 * onto its slim record at once, so a dump larger than a string (~512 MB) or than memory as parsed
 * objects loads. The dump format (documents, Lists, version documents) is `./kubectl-dump`, shared
 * with the simulator's scenario loader. Pure except {@link loadSnapshot} (file system). No
 * client-node.
 */
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ClusterSnapshot, ServerVersionRecord } from '../topology/model/cluster-model';
import type { DumpLocation } from './kubectl-dump';
import type { DumpEvent, DumpSplitter } from './dump-stream';
import { JsonDumpSplitter, splitText, YamlDumpSplitter } from './dump-stream';
import { isJsonFileName, isJsonText, isServerVersionDocument, kubectlVersionOf, listDocument } from './kubectl-dump';
import type { DataplaneFactRecord, Json } from './wire-to-record';
import { allocatableCpuProblem, isJsonObject, obj, projectCalicoObject, projectServerVersion, str } from './wire-to-record';
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
    ['spec.hostNetwork', 'boolean'],
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
  if (kind === 'Node') return allocatableCpuProblem(object);
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
// Reading: dump events → objects → records

/** At most this many problems are listed; the rest are counted. */
const MAX_PROBLEMS = 50;

type MutableRecordLists = { [Id in ResourceId]: Map<string, RecordById[Id]> };

/** One object read, projected, waiting for its document to say it was a List item. */
interface PendingObject {
  readonly kind: string;
  readonly object: Json;
  readonly location: SnapshotLocation;
}

/**
 * Collects objects into records: shape checks, projection, duplicate detection (an object given
 * twice, same kind, namespace and name, is an error naming both places), version documents.
 * Objects are projected as they come and dropped unless `keepObjects`, so memory holds records.
 */
class SnapshotCollector {
  readonly maps = Object.fromEntries(RESOURCE_IDS.map((id) => [id, new Map()])) as MutableRecordLists;
  private readonly seen = new Map<string, SnapshotLocation>();
  readonly ignoredKinds: Record<string, number> = {};
  readonly dropped: Record<string, number> = {};
  readonly extraFacts = new Map<string, DataplaneFactRecord>();
  readonly objects: SnapshotObject[] = [];
  readonly versions: SnapshotVersion[] = [];
  readonly errors: SnapshotProblem[] = [];
  private moreErrors = 0;
  documents = 0;

  constructor(private readonly keepObjects: boolean) {}

  problem(problem: SnapshotProblem): void {
    if (this.errors.length < MAX_PROBLEMS) this.errors.push(problem);
    else this.moreErrors++;
  }

  /** The problems, with a last line counting those not listed. */
  allErrors(): SnapshotProblem[] {
    if (this.moreErrors === 0) return this.errors;
    const last = this.errors[this.errors.length - 1];
    return [...this.errors, { file: last?.file ?? '', message: `… and ${this.moreErrors} more problem(s)` }];
  }

  /** Shape-checks a value as an object; `null` (with the problem recorded) when it is not one. */
  check(value: unknown, location: SnapshotLocation, kindHint: string | undefined, apiVersionHint: string | undefined, report: (p: SnapshotProblem) => void): PendingObject | null {
    if (!isJsonObject(value)) {
      report({ ...location, message: `expected a Kubernetes object (a mapping), found ${describe(value)}` });
      return null;
    }
    const kind = str(value.kind) ?? kindHint;
    if (kind === undefined || kind === '') {
      report({ ...location, message: 'the object has no kind' });
      return null;
    }
    const object = value.kind === undefined ? { ...value, kind, ...(value.apiVersion === undefined && apiVersionHint !== undefined ? { apiVersion: apiVersionHint } : {}) } : value;
    if (isReadKind(kind)) {
      const problem = objectProblem(object, kind);
      if (problem !== null) {
        report({ ...location, object: objectLabel(kind, object), message: problem });
        return null;
      }
    }
    return { kind, object, location };
  }

  /** Adds a checked object: projects it (read kinds) or counts it (other kinds). */
  add({ kind, object, location }: PendingObject): void {
    if (this.errors.length > 0 && !this.keepObjects) return; // failing anyway: only look for more problems
    const identity = `${kind} ${cacheKey(object)}`;
    const earlier = this.seen.get(identity);
    if (earlier !== undefined) {
      this.problem({ ...location, object: objectLabel(kind, object), message: `given twice: also in ${formatProblem({ ...earlier, message: '' }).slice(0, -2)}; keep one of them` });
      return;
    }
    this.seen.set(identity, location);
    if (this.keepObjects) this.objects.push({ kind, apiVersion: str(object.apiVersion) ?? '', object, location });
    const id = resourceIdForKind(kind);
    if (id === undefined) {
      if (EXTRA_KINDS.includes(kind)) {
        const calico = projectCalicoObject(object);
        const key = objectLabel(kind, object);
        if (calico !== null) this.extraFacts.set(key, { key, proxy: null, cilium: null, calico, awsVpcCni: false });
        else this.dropped[kind] = (this.dropped[kind] ?? 0) + 1;
      } else {
        this.ignoredKinds[kind] = (this.ignoredKinds[kind] ?? 0) + 1;
      }
      return;
    }
    const record = RESOURCES[id].project(object);
    if (record === null) {
      this.dropped[kind] = (this.dropped[kind] ?? 0) + 1;
      return;
    }
    (this.maps[id] as Map<string, unknown>).set(cacheKey(object), record);
  }

  /** A whole document (not a List item). */
  document(document: unknown, location: SnapshotLocation): void {
    if (document === null || document === undefined) return; // empty document (`---` at the end)
    if (!isJsonObject(document)) {
      this.problem({ ...location, message: `expected a Kubernetes object or List (a mapping), found ${describe(document)}` });
      return;
    }
    if (isServerVersionDocument(document)) {
      if (typeof document.gitVersion !== 'string' || document.gitVersion === '') {
        this.problem({ ...location, message: 'ServerVersion.gitVersion must be a version string such as v1.31.4' });
      } else {
        this.versions.push({ version: { gitVersion: document.gitVersion }, location });
      }
      return;
    }
    if (str(document.kind) === null) {
      const version = kubectlVersionOf(document);
      if (version !== null) this.versions.push({ version, location });
      else this.problem({ ...location, message: 'the document has no kind (and is not a /version document)' });
      return;
    }
    const list = listDocument(document);
    if (list !== null) {
      const { items } = list;
      if (items !== null && items !== undefined && !Array.isArray(items)) {
        this.problem({ ...location, message: `items of a ${list.kind} must be a list, not ${describe(items)}` });
        return;
      }
      (items ?? []).forEach((item: unknown, i: number) => {
        const checked = this.check(item, { ...location, item: i }, list.itemKind, list.itemApiVersion, (p) => this.problem(p));
        if (checked) this.add(checked);
      });
      return;
    }
    const checked = this.check(document, location, undefined, undefined, (p) => this.problem(p));
    if (checked) this.add(checked);
  }

  /** The records as a snapshot, or the problems. */
  result(files: readonly string[]): SnapshotResult {
    if (this.errors.length > 0) return { ok: false, errors: this.allErrors() };
    const providerIDs: (string | null)[] = [];
    for (const node of this.maps.nodes.values()) providerIDs.push(node.providerID);
    // Server version: all version documents must agree.
    let version: ServerVersionRecord | null = null;
    let versionSource: string | null = null;
    for (const candidate of this.versions) {
      const record = projectServerVersion(candidate.version, providerIDs);
      if (record === null) return { ok: false, errors: [{ ...candidate.location, message: 'the version document has neither gitVersion nor major/minor' }] };
      if (version !== null && version.gitVersion !== record.gitVersion) {
        return { ok: false, errors: [{ ...candidate.location, message: `server version ${record.gitVersion} contradicts ${version.gitVersion} given in ${versionSource ?? 'another document'}` }] };
      }
      version = record;
      versionSource = `${candidate.location.file}, document ${candidate.location.document}`;
    }
    const { maps } = this;
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
      [...this.extraFacts.values()],
    );
    const records = Object.fromEntries(RESOURCE_IDS.map((id) => [id, maps[id].size])) as Record<ResourceId, number>;
    return {
      ok: true,
      snapshot,
      summary: { files, documents: this.documents, records, ignoredKinds: this.ignoredKinds, dropped: this.dropped, versionSource },
    };
  }
}

/**
 * Turns one file's {@link DumpEvent}s into collector calls. Items of a document are checked as
 * they come; they are added once the document's `kind` (printed after `items` by kubectl) shows
 * it is a List, and dropped otherwise. Items without `kind` (typed lists as the API serves them)
 * wait for the list's kind.
 */
class FileReader {
  private pending: PendingObject[] = [];
  private pendingProblems: SnapshotProblem[] = [];
  private kindless: { item: number; value: unknown }[] = [];

  constructor(
    private readonly collector: SnapshotCollector,
    private readonly file: string,
  ) {}

  readonly onEvent = (event: DumpEvent): void => {
    const collector = this.collector;
    switch (event.type) {
      case 'error': {
        const { type: _type, ...where } = event;
        collector.problem({ file: this.file, ...where });
        return;
      }
      case 'item': {
        const location: SnapshotLocation = { file: this.file, document: event.document, item: event.item };
        if (isJsonObject(event.value) && event.value.kind === undefined) {
          this.kindless.push({ item: event.item, value: event.value });
          return;
        }
        const checked = collector.check(event.value, location, undefined, undefined, (p) => this.pendingProblems.push(p));
        if (checked) this.pending.push(checked);
        return;
      }
      case 'document': {
        const location: SnapshotLocation = { file: this.file, document: event.document };
        const list = event.splitItems !== null && isJsonObject(event.value) ? listDocument(event.value) : null;
        if (list !== null) {
          for (const p of this.pendingProblems) collector.problem(p);
          for (const o of this.pending) collector.add(o);
          for (const { item, value } of this.kindless) {
            const checked = collector.check(value, { ...location, item }, list.itemKind, list.itemApiVersion, (p) => collector.problem(p));
            if (checked) collector.add(checked);
          }
        } else {
          collector.document(event.value, location);
        }
        this.pending = [];
        this.pendingProblems = [];
        this.kindless = [];
        return;
      }
    }
  };
}

function splitterFor(json: boolean, onEvent: (event: DumpEvent) => void): DumpSplitter {
  return json ? new JsonDumpSplitter(onEvent) : new YamlDumpSplitter(onEvent, 100);
}

/**
 * Parses one file's text (YAML, multi-document YAML or JSON) into Kubernetes objects and version
 * documents, flattening Lists. Objects of every kind are returned (the simulator serves them);
 * objects of the kinds zonescope reads are shape-checked. Any problem fails the whole file.
 *
 * @param fileName used in problems only.
 */
export function parseSnapshotDocuments(text: string, fileName: string): ParseDocumentsResult {
  const collector = new SnapshotCollector(true);
  readText(collector, text, fileName);
  if (collector.errors.length > 0) return { ok: false, errors: collector.allErrors() };
  return { ok: true, objects: collector.objects, versions: collector.versions, documents: collector.documents };
}

function readText(collector: SnapshotCollector, text: string, file: string): void {
  let json = isJsonText(text, file);
  if (json && !isJsonFileName(file)) {
    // YAML text that merely starts with `{` or `[`: read as YAML (a JSON superset) unless it is JSON.
    try {
      JSON.parse(text);
    } catch {
      json = false;
    }
  }
  const splitter = splitterFor(json, new FileReader(collector, file).onEvent);
  splitText(splitter, text);
  collector.documents += splitter.documents;
}

/**
 * Projects parsed objects onto a {@link ClusterSnapshot}. An object given twice (same kind,
 * namespace and name) is an error naming both places.
 */
export function buildSnapshot(
  objects: readonly SnapshotObject[],
  versions: readonly SnapshotVersion[] = [],
  meta: { readonly files?: readonly string[]; readonly documents?: number } = {},
): SnapshotResult {
  const collector = new SnapshotCollector(false);
  for (const { kind, object, location } of objects) collector.add({ kind, object, location });
  for (const version of versions) collector.versions.push(version);
  collector.documents = meta.documents ?? 0;
  return collector.result(meta.files ?? [...new Set(objects.map((o) => o.location.file))]);
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
    if (entry.isDirectory()) {
      for (const file of await collectFiles(full, errors)) files.push(file);
    } else if (entry.isFile() && SNAPSHOT_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) files.push(full);
  }
  return files;
}

/**
 * The dump files of a path: the file itself, or a folder's `.yaml`, `.yml` and `.json` files,
 * recursively, in name order (hidden entries skipped). Problems (missing path, empty folder) are
 * returned instead; shared with the simulator's `--snapshot FOLDER`.
 */
export async function listSnapshotFiles(target: string): Promise<{ readonly files: readonly string[]; readonly errors: readonly SnapshotProblem[] }> {
  const errors: SnapshotProblem[] = [];
  let files: string[] = [];
  try {
    files = await collectFiles(target, errors);
  } catch (error) {
    errors.push({ file: target, message: `cannot be listed (${errorCode(error)})` });
  }
  if (errors.length === 0 && files.length === 0) errors.push({ file: target, message: 'no .yaml, .yml or .json files found' });
  return { files, errors };
}

/** How {@link loadSnapshot} reads files (tests make both small to exercise streaming). */
export interface LoadOptions {
  /** Files up to this size are read whole (default 8 MiB); larger ones are streamed. */
  readonly wholeFileBytes?: number;
  /** Bytes read at a time when streaming (default 1 MiB). */
  readonly chunkBytes?: number;
}

/** Reads one file into the collector, streaming it in chunks when large. */
async function readFileInto(collector: SnapshotCollector, file: string, options: LoadOptions): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    if (size <= (options.wholeFileBytes ?? 8 * 1024 * 1024)) {
      readText(collector, (await handle.readFile()).toString('utf8').replace(/^\uFEFF/, ''), file);
      return;
    }
    // Large: decide by the name and the first byte that is not blank, then stream.
    const probe = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
    const head = probe.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
    const splitter = splitterFor(isJsonText(head, file), new FileReader(collector, file).onEvent);
    const chunk = Buffer.alloc(Math.max(1, options.chunkBytes ?? 1024 * 1024));
    let position = 0;
    for (;;) {
      const { bytesRead: n } = await handle.read(chunk, 0, chunk.length, position);
      if (n === 0) break;
      position += n;
      splitter.push(chunk.subarray(0, n));
    }
    splitter.end();
    collector.documents += splitter.documents;
  } finally {
    await handle.close();
  }
}

/**
 * Loads a snapshot from a file, a folder (recursively, in name order: `.yaml`, `.yml`, `.json`)
 * or several of them, streaming each file (a dump may be larger than memory would hold as text).
 * All-or-nothing: any problem in any file yields `{ok: false, errors}` listing the problems
 * found, and no snapshot. Never rejects: an unexpected failure is a problem too.
 */
export async function loadSnapshot(pathOrPaths: string | readonly string[], options: LoadOptions = {}): Promise<SnapshotResult> {
  const targets = typeof pathOrPaths === 'string' ? [pathOrPaths] : pathOrPaths;
  const errors: SnapshotProblem[] = [];
  const files: string[] = [];
  try {
    for (const target of targets) for (const file of await collectFiles(target, errors)) files.push(file);
  } catch (error) {
    return { ok: false, errors: [{ file: targets.join(', '), message: `cannot be listed (${errorCode(error)})` }] };
  }
  if (errors.length === 0 && files.length === 0) errors.push({ file: targets.join(', ') || '(none)', message: 'no .yaml, .yml or .json files found' });
  if (errors.length > 0) return { ok: false, errors };
  const collector = new SnapshotCollector(false);
  for (const file of files) {
    try {
      await readFileInto(collector, file, options);
    } catch (error) {
      const code = errorCode(error);
      collector.problem({ file, message: code !== 'error' ? `cannot be read (${code})` : `cannot be read: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  try {
    return collector.result(files);
  } catch (error) {
    return { ok: false, errors: [{ file: files.join(', '), message: `cannot be loaded: ${error instanceof Error ? error.message : String(error)}` }] };
  }
}

/** {@link parseSnapshotDocuments} then {@link buildSnapshot} for one text (tests, uploads). */
export function snapshotFromText(text: string, fileName: string): SnapshotResult {
  const collector = new SnapshotCollector(false);
  readText(collector, text, fileName);
  return collector.result([fileName]);
}

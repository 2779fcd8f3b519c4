/**
 * Scenario (snapshot) loading: YAML (multi-document) or JSON files whose documents are single
 * objects or `List` / `*List` documents with `items` — e.g. the output of
 * `kubectl get nodes,services,endpointslices,pods,deployments,replicasets,hpa,events -A -o yaml`.
 *
 * A `zonescope.dev/v1 ServerVersion` document, or the output of `kubectl get --raw /version`, may
 * name the Kubernetes version to serve; so may the `serverVersion` of `kubectl version -o
 * json|yaml` output (a support bundle's), when nothing else names one — without `serverVersion`
 * (the server was out of reach) such output is skipped with a warning. The dump format itself
 * (documents, Lists, the version documents) is `lib/k8s/kubectl-dump.ts`, shared with the
 * dashboard's offline snapshots.
 *
 * Objects keep their own fields; server-assigned ones (resourceVersion, uid) are reassigned when
 * the simulator loads them, with uid references (ownerReferences, event involvedObject,
 * EndpointSlice targetRef) rewritten to match. Malformed input fails as a whole with a
 * {@link ScenarioError} naming the file, the document and what is wrong; kinds the simulator does
 * not serve are reported as warnings (or errors with `unknownKinds: 'error'`).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonDumpSplitter } from '../lib/k8s/dump-stream/json-splitter';
import { isJsonText, isServerVersionDocument, listDocument, readYamlDocuments, versionDocumentOf } from '../lib/k8s/kubectl-dump';
import type { ResourceKey } from './resources';
import { API_RESOURCES, apiResourceForKind, apiVersionOf, STORAGE } from './resources';
import { generateCluster, parseGeneratorSpec } from './scenarios/generator';
import { generateRealisticCluster, parseRealisticSpec, REALISTIC_SERVER_VERSION } from './scenarios/realistic';
import { storeKey } from './store';
import type { KubeObject } from './types';
import { arrayField, asKubeObject, cloneJson, isRecord, kubeObjectProblem } from './types';

/** Where a problem was found. */
export interface ScenarioLocation {
  file: string;
  /** 1-based document number in the file (0: the file as a whole). */
  document: number;
  /** 1-based item number inside a List document. */
  item?: number;
}

/** One problem (or warning) with its location. */
export interface ScenarioProblem extends ScenarioLocation {
  message: string;
}

/** Formats a location as `file, document 2, item 5` (just the file for whole-file problems, document 0). */
export function formatLocation(location: ScenarioLocation): string {
  if (location.document === 0) return location.file;
  return `${location.file}, document ${location.document}${location.item !== undefined ? `, item ${location.item}` : ''}`;
}

/** Malformed scenario input; nothing of it was loaded. */
export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly ScenarioProblem[],
  ) {
    const shown = problems.slice(0, 20).map((p) => `  ${formatLocation(p)}: ${p.message}`);
    const more = problems.length > 20 ? [`  ... and ${problems.length - 20} more`] : [];
    super([`invalid scenario ${file}:`, ...shown, ...more].join('\n'));
    this.name = 'ScenarioError';
  }
}

/**
 * What named a scenario's server version: a `ServerVersion` or raw `/version` document
 * (`document`), or `kubectl version` output (`kubectl-version`), which counts only when no
 * document names one.
 */
export type ServerVersionSource = 'document' | 'kubectl-version';

/** A parsed scenario. */
export interface Scenario {
  /** The objects, in file order, as written (wire form). */
  objects: KubeObject[];
  /**
   * The version to serve: what a `zonescope.dev/v1 ServerVersion` document or `kubectl get --raw
   * /version` output names, else the `serverVersion` of `kubectl version` output.
   */
  serverVersion?: string;
  /** Where {@link serverVersion} came from: `kubectl-version` output counts only when nothing else names one. */
  serverVersionSource?: ServerVersionSource;
  /** Skipped documents (unknown kinds). */
  warnings: ScenarioProblem[];
  /** Where it came from. */
  source: string;
}

/** Options of the scenario parsers. */
export interface ScenarioOptions {
  /** What to do with kinds the simulator does not serve (default: `warn`, skipping them). */
  unknownKinds?: 'warn' | 'error';
  /** JSON files larger than this many bytes are streamed item by item (default {@link STREAM_JSON_BYTES}; tests lower it). */
  streamJsonAboveBytes?: number;
}

function servedKindsText(kind: string): string {
  const versions = API_RESOURCES.filter((r) => r.kind === kind && r.storage !== undefined).map((r) => apiVersionOf(r.group, r.version));
  return versions.join(', ');
}

/**
 * Parses scenario text. `file` only names the source in messages (its extension `.json` selects
 * JSON; otherwise text starting with `{` or `[` is JSON and anything else YAML).
 * @throws ScenarioError listing every problem.
 */
export function parseScenario(text: string, file: string, options: ScenarioOptions = {}): Scenario {
  const problems: ScenarioProblem[] = [];
  const warnings: ScenarioProblem[] = [];
  const documents: { index: number; value: unknown }[] = [];

  // 1. Documents.
  if (isJsonText(text, file)) {
    try {
      const value: unknown = JSON.parse(text);
      if (Array.isArray(value)) documents.push({ index: 1, value: { apiVersion: 'v1', kind: 'List', items: value } });
      else documents.push({ index: 1, value });
    } catch (error) {
      throw new ScenarioError(file, [{ file, document: 1, message: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` }]);
    }
  } else {
    for (const doc of readYamlDocuments(text, 1000)) {
      if (!doc.ok) {
        for (const error of doc.errors) {
          if (error.type === 'conversion') {
            problems.push({ file, document: doc.document, message: `YAML could not be converted: ${error.message}` });
            continue;
          }
          const where = error.line !== undefined && error.column !== undefined ? ` (line ${error.line}, column ${error.column})` : '';
          problems.push({ file, document: doc.document, message: `YAML syntax error${where}: ${error.message}` });
        }
        continue;
      }
      if (doc.value === null || doc.value === undefined) continue; // empty document (e.g. a trailing ---)
      documents.push({ index: doc.document, value: doc.value });
    }
  }

  return scenarioFromDocuments(documents, problems, warnings, file, options);
}

/** Step 2 of {@link parseScenario}: objects from parsed documents, with List documents expanded. */
function scenarioFromDocuments(
  documents: readonly { readonly index: number; readonly value: unknown }[],
  problems: ScenarioProblem[],
  warnings: ScenarioProblem[],
  file: string,
  options: ScenarioOptions,
): Scenario {
  const objects: KubeObject[] = [];
  const seen = new Map<string, ScenarioLocation>();
  let serverVersion: string | undefined;
  let serverVersionSource: ServerVersionSource | undefined;
  const check = (value: unknown, location: ScenarioLocation): void => {
    const versionDocument = isRecord(value) && value.kind === undefined ? versionDocumentOf(value) : null;
    if (isServerVersionDocument(value) || versionDocument?.source === 'raw') {
      const version = isRecord(value) ? value.gitVersion : undefined;
      const what = isServerVersionDocument(value) ? 'ServerVersion.gitVersion' : 'the /version document\'s gitVersion';
      if (typeof version !== 'string' || !/^v\d+\.\d+\.\d+/.test(version)) {
        problems.push({ ...location, message: `${what} must look like v1.31.4, got ${JSON.stringify(version ?? null)}` });
      } else if (serverVersionSource === 'document') {
        problems.push({ ...location, message: 'a second ServerVersion document' });
      } else {
        // Over a `kubectl version` output's: what the dump names itself wins.
        serverVersion = version;
        serverVersionSource = 'document';
      }
      return;
    }
    if (versionDocument?.source === 'kubectl-version') {
      const version = versionDocument.version?.gitVersion;
      if (typeof version !== 'string' || !/^v\d+\.\d+\.\d+/.test(version)) {
        warnings.push({ ...location, message: versionDocument.version === null ? 'skipped kubectl version output without serverVersion (the server was not reached)' : 'skipped kubectl version output whose serverVersion.gitVersion is not a version such as v1.31.4' });
      } else if (serverVersionSource === 'kubectl-version' && version !== serverVersion) {
        problems.push({ ...location, message: `kubectl version output names server version ${version}, another names ${serverVersion ?? ''}` });
      } else if (serverVersionSource === undefined) {
        serverVersion = version;
        serverVersionSource = 'kubectl-version';
      }
      return;
    }
    const problem = kubeObjectProblem(value);
    if (problem !== undefined) {
      problems.push({ ...location, message: problem });
      return;
    }
    const object = asKubeObject(cloneJson(value));
    if (object === undefined) return;
    const resource = apiResourceForKind(object.apiVersion, object.kind);
    if (resource?.storage === undefined) {
      const served = servedKindsText(object.kind);
      if (served !== '') {
        problems.push({ ...location, message: `${object.kind} is served as ${served}, not ${object.apiVersion}` });
      } else if (options.unknownKinds === 'error') {
        problems.push({ ...location, message: `unknown kind ${object.apiVersion} ${object.kind}` });
      } else {
        warnings.push({ ...location, message: `skipped unknown kind ${object.apiVersion} ${object.kind} "${object.metadata.name}"` });
      }
      return;
    }
    if (object.metadata.name === '') {
      problems.push({ ...location, message: `${object.kind} has no metadata.name` });
      return;
    }
    if (resource.namespaced && !object.metadata.namespace) object.metadata.namespace = 'default';
    if (!resource.namespaced) delete object.metadata.namespace;
    const key = `${resource.storage}:${storeKey(resource.namespaced, object.metadata.namespace, object.metadata.name)}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push({ ...location, message: `duplicate ${object.kind} "${object.metadata.name}" (first at ${formatLocation(first)})` });
      return;
    }
    seen.set(key, location);
    objects.push(object);
  };
  for (const { index, value } of documents) {
    const location: ScenarioLocation = { file, document: index };
    const list = isRecord(value) ? listDocument(value) : null;
    if (list === null) {
      check(value, location);
    } else if (!Array.isArray(list.items)) {
      problems.push({ ...location, message: `${list.kind}.items is not a list` });
    } else {
      list.items.forEach((item: unknown, i: number) => check(item, { ...location, item: i + 1 }));
    }
  }
  if (problems.length > 0) throw new ScenarioError(file, problems);
  return { objects, warnings, source: file, ...(serverVersion !== undefined && serverVersionSource !== undefined ? { serverVersion, serverVersionSource } : {}) };
}

/**
 * Reads and parses a scenario file.
 * @throws ScenarioError when the file cannot be read or is malformed.
 */
export async function loadScenarioFile(file: string, options: ScenarioOptions = {}): Promise<Scenario> {
  if (/\.json$/i.test(file)) {
    const size = await stat(file).then((s) => s.size, () => -1);
    if (size > (options.streamJsonAboveBytes ?? STREAM_JSON_BYTES)) return loadJsonScenarioStream(file, options);
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ScenarioError(file, [{ file, document: 0, message: `cannot read the file: ${reason}` }]);
  }
  return parseScenario(text, file, options);
}

/**
 * JSON files larger than this are read as a stream, item by item (`kubectl get pods -A -o json` at
 * 150,000 pods is several hundred MB, more than one JavaScript string can hold).
 */
export const STREAM_JSON_BYTES = 64 * 1024 * 1024;

/** Reads a JSON dump in 1 MiB chunks with the dashboard's splitter; each List's items are parsed one by one. */
async function loadJsonScenarioStream(file: string, options: ScenarioOptions): Promise<Scenario> {
  const problems: ScenarioProblem[] = [];
  const items = new Map<number, unknown[]>();
  const documents: { index: number; value: unknown }[] = [];
  const splitter = new JsonDumpSplitter((event) => {
    if (event.type === 'item') {
      let list = items.get(event.document);
      if (!list) items.set(event.document, (list = []));
      list.push(event.value);
    } else if (event.type === 'document') {
      const value = event.splitItems !== null && isRecord(event.value) ? { ...event.value, items: items.get(event.document) ?? [] } : event.value;
      items.delete(event.document);
      documents.push({ index: event.document, value: Array.isArray(value) ? { apiVersion: 'v1', kind: 'List', items: value } : value });
    } else {
      const where = event.line !== undefined ? ` (line ${event.line}${event.column !== undefined ? `, column ${event.column}` : ''})` : '';
      problems.push({ file, document: event.document ?? 0, ...(event.item !== undefined ? { item: event.item + 1 } : {}), message: `invalid JSON${where}: ${event.message}` });
    }
  });
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) splitter.push(chunk as Buffer);
    splitter.end();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ScenarioError(file, [{ file, document: 0, message: `cannot read the file: ${reason}` }]);
  }
  if (problems.length > 0) throw new ScenarioError(file, problems);
  return scenarioFromDocuments(documents, problems, [], file, options);
}

/** The project's `fixtures/` folder. */
export const FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** Names of the bundled scenarios (`fixtures/*.yaml`). */
export async function listScenarios(fixturesDir = FIXTURES_DIR): Promise<string[]> {
  try {
    const files = await readdir(fixturesDir);
    return files.filter((f) => /\.(ya?ml|json)$/.test(f)).map((f) => f.replace(/\.(ya?ml|json)$/, '')).sort();
  } catch {
    return [];
  }
}

/**
 * Loads the bundled scenario `fixtures/<name>.yaml` (or `.yml` / `.json`).
 * @throws ScenarioError for unknown names and malformed files.
 */
export async function loadScenario(name: string, options: ScenarioOptions & { fixturesDir?: string } = {}): Promise<Scenario> {
  const dir = options.fixturesDir ?? FIXTURES_DIR;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    throw new ScenarioError(name, [{ file: name, document: 0, message: 'a scenario name may contain only letters, digits, ".", "_" and "-"' }]);
  }
  const available = await listScenarios(dir);
  for (const ext of ['yaml', 'yml', 'json']) {
    const file = path.join(dir, `${name}.${ext}`);
    const isFile = await stat(file).then((s) => s.isFile(), () => false);
    if (isFile) return loadScenarioFile(file, options);
  }
  throw new ScenarioError(path.join(dir, `${name}.yaml`), [
    {
      file: path.join(dir, `${name}.yaml`),
      document: 0,
      message: `unknown scenario "${name}"; available: ${available.length > 0 ? available.join(', ') : '(none)'}`,
    },
  ]);
}

/** Namespaces every cluster has. */
export const DEFAULT_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** An object ready for the store. */
export interface StoreEntry {
  resource: ResourceKey;
  object: KubeObject;
}

function remapUid(value: unknown, uids: ReadonlyMap<string, string>): void {
  if (isRecord(value) && typeof value.uid === 'string') {
    const mapped = uids.get(value.uid);
    if (mapped !== undefined) value.uid = mapped;
  }
}

/**
 * Turns scenario objects into store entries: converts to the stored form (events.k8s.io Events
 * become core Events), drops resourceVersions, assigns fresh uids and rewrites references to the
 * old ones, and adds the default namespaces plus every namespace an object lives in.
 * The input is not modified.
 * @throws Error for kinds the simulator does not serve.
 */
export function scenarioEntries(objects: readonly KubeObject[], newUid: () => string = randomUUID): StoreEntry[] {
  const entries: StoreEntry[] = [];
  const uids = new Map<string, string>();
  for (const original of objects) {
    const resource = apiResourceForKind(original.apiVersion, original.kind);
    if (resource?.storage === undefined) throw new Error(`the simulator does not serve ${original.apiVersion} ${original.kind}`);
    const copy = cloneJson(original);
    const object = resource.fromWire ? resource.fromWire(copy) : copy;
    delete object.metadata.resourceVersion;
    delete object.metadata.selfLink;
    const fresh = newUid();
    if (object.metadata.uid) uids.set(object.metadata.uid, fresh);
    object.metadata.uid = fresh;
    if (resource.namespaced && !object.metadata.namespace) object.metadata.namespace = 'default';
    entries.push({ resource: resource.storage, object });
  }
  for (const { object } of entries) {
    for (const ref of object.metadata.ownerReferences ?? []) remapUid(ref, uids);
    remapUid(object.involvedObject, uids);
    remapUid(object.related, uids);
    for (const endpoint of arrayField(object, 'endpoints')) remapUid(isRecord(endpoint) ? endpoint.targetRef : undefined, uids);
  }
  const namespaces = new Set(entries.filter((e) => e.resource === 'namespaces').map((e) => e.object.metadata.name));
  const wanted = new Set<string>(DEFAULT_NAMESPACES);
  for (const { resource, object } of entries) if (STORAGE[resource].namespaced && object.metadata.namespace) wanted.add(object.metadata.namespace);
  for (const name of wanted) {
    if (namespaces.has(name)) continue;
    entries.unshift({
      resource: 'namespaces',
      object: {
        apiVersion: 'v1', kind: 'Namespace',
        metadata: { name, uid: newUid(), labels: { 'kubernetes.io/metadata.name': name } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      },
    });
  }
  return entries;
}

/** Prefix of generated scenario names (`generated:S`, `generated:realistic-M`, `generated:nodes=…`). */
export const GENERATED_PREFIX = 'generated:';

const REALISTIC_PREFIX = 'realistic-';

/**
 * A generated scenario by name: `generated:S|M|L` or `generated:nodes=N,services=N,pods=N[,…]`
 * (sim/scenarios/generator.ts: equal Services for benchmarks), or `generated:realistic-S|M|L`
 * (sim/scenarios/realistic.ts: an untidy, consistent EKS dump). Returns an error message for a
 * name that is not one of these.
 */
export function generatedScenario(name: string): Scenario | string {
  if (!name.startsWith(GENERATED_PREFIX)) return `not a generated scenario name: "${name}" (expected ${GENERATED_PREFIX}…)`;
  const spec = name.slice(GENERATED_PREFIX.length);
  if (spec.startsWith(REALISTIC_PREFIX)) {
    const params = parseRealisticSpec(spec.slice(REALISTIC_PREFIX.length));
    if (typeof params === 'string') return params;
    return { objects: generateRealisticCluster(params), warnings: [], source: name, serverVersion: REALISTIC_SERVER_VERSION };
  }
  const params = parseGeneratorSpec(spec);
  if (typeof params === 'string') return params;
  return { objects: generateCluster(params), warnings: [], source: name, serverVersion: 'v1.31.4-eks-2d98532' };
}

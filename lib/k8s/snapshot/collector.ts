/**
 * Offline snapshots: the objects of YAML/JSON dumps collected into the records of a `ClusterSnapshot`.
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
 *   (`{"major", "minor", "gitVersion", …}`);
 * - the simulator's scenario document `{apiVersion: zonescope.dev/v1, kind: ServerVersion,
 *   gitVersion: v1.31.4}`;
 * - or, when neither is there, the `serverVersion` of `kubectl version -o json|yaml` output
 *   (`{clientVersion, kustomizeVersion, serverVersion}`, as support bundles hold it). Such output
 *   without `serverVersion` (the server was out of reach) gives nothing and is skipped.
 * Without one the version is unknown (`null`); two different versions of the same kind of
 * document are an error. The engine reads the minor version for release-dependent behaviour.
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
 * The collector checks each object's shape (./shape-checks), projects it onto its slim record at
 * once (objects are dropped, so memory holds records) and finds duplicates; reading files is
 * ./load, dump text and events ./file-reader.
 */
import type { ServerVersionRecord } from '../../topology/model/cluster-model';
import { isServerVersionDocument, listDocument, versionDocumentOf } from '../kubectl-dump';
import type { RecordById, ResourceId } from '../resources';
import { assembleSnapshot, cacheKey, RESOURCE_IDS, RESOURCES, resourceIdForKind } from '../resources';
import type { DataplaneFactRecord } from '../wire-to-record/dataplane';
import { projectCalicoObject } from '../wire-to-record/dataplane';
import type { Json } from '../wire-to-record/json';
import { isJsonObject, str } from '../wire-to-record/json';
import { projectServerVersion } from '../wire-to-record/server-version';
import type { SnapshotLocation, SnapshotObject, SnapshotProblem, SnapshotResult, SnapshotVersion } from './results';
import { formatProblem } from './results';
import { describeValue, EXTRA_KINDS, isReadKind, objectLabel, objectProblem } from './shape-checks';

/** At most this many problems are listed; the rest are counted. */
const MAX_PROBLEMS = 50;

type MutableRecordLists = { [Id in ResourceId]: Map<string, RecordById[Id]> };

/** One object read and shape-checked. */
export interface PendingObject {
  readonly kind: string;
  readonly object: Json;
  readonly location: SnapshotLocation;
}

/**
 * A checked object, projected: what adding it will do. A List item waits as this for its
 * document's `kind` (printed after `items`), so a dump's items wait as slim records, never as the
 * objects (the object itself is kept only when the collector keeps objects).
 */
export interface PreparedObject {
  readonly kind: string;
  readonly location: SnapshotLocation;
  /** `Kind namespace/name`: finds an object given twice. */
  readonly identity: string;
  /** How a problem names the object. */
  readonly label: string;
  readonly kept: SnapshotObject | null;
  readonly outcome:
    | { readonly type: 'record'; readonly id: ResourceId; readonly key: string; readonly record: unknown }
    | { readonly type: 'fact'; readonly fact: DataplaneFactRecord }
    | { readonly type: 'dropped' }
    | { readonly type: 'ignored' };
}

/**
 * Collects objects into records: shape checks, projection, duplicate detection (an object given
 * twice, same kind, namespace and name, is an error naming both places), version documents.
 * Objects are projected as they come and dropped unless `keepObjects`, so memory holds records.
 */
export class SnapshotCollector {
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
      report({ ...location, message: `expected a Kubernetes object (a mapping), found ${describeValue(value)}` });
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

  /** Projects a checked object (read kinds) without adding it: see {@link PreparedObject}. */
  prepare({ kind, object, location }: PendingObject): PreparedObject {
    const key = cacheKey(object);
    const label = objectLabel(kind, object);
    const kept = this.keepObjects ? { kind, apiVersion: str(object.apiVersion) ?? '', object, location } : null;
    const prepared = (outcome: PreparedObject['outcome']): PreparedObject => ({ kind, location, identity: `${kind} ${key}`, label, kept, outcome });
    const id = resourceIdForKind(kind);
    if (id === undefined) {
      if (!EXTRA_KINDS.includes(kind)) return prepared({ type: 'ignored' });
      const calico = projectCalicoObject(object);
      return prepared(calico !== null ? { type: 'fact', fact: { key: label, proxy: null, cilium: null, calico, awsVpcCni: false } } : { type: 'dropped' });
    }
    const record = RESOURCES[id].project(object);
    return prepared(record === null ? { type: 'dropped' } : { type: 'record', id, key, record });
  }

  /** Adds a prepared object: its record (read kinds) or a count (other kinds); an object given twice is a problem. */
  commit({ kind, location, identity, label, kept, outcome }: PreparedObject): void {
    if (this.errors.length > 0 && !this.keepObjects) return; // failing anyway: only look for more problems
    const earlier = this.seen.get(identity);
    if (earlier !== undefined) {
      this.problem({ ...location, object: label, message: `given twice: also in ${formatProblem({ ...earlier, message: '' }).slice(0, -2)}; keep one of them` });
      return;
    }
    this.seen.set(identity, location);
    if (kept !== null) this.objects.push(kept);
    switch (outcome.type) {
      case 'ignored':
        this.ignoredKinds[kind] = (this.ignoredKinds[kind] ?? 0) + 1;
        return;
      case 'dropped':
        this.dropped[kind] = (this.dropped[kind] ?? 0) + 1;
        return;
      case 'fact':
        this.extraFacts.set(outcome.fact.key, outcome.fact);
        return;
      case 'record':
        (this.maps[outcome.id] as Map<string, unknown>).set(outcome.key, outcome.record);
        return;
    }
  }

  /** Adds a checked object: projects it (read kinds) or counts it (other kinds). */
  add(object: PendingObject): void {
    this.commit(this.prepare(object));
  }

  /** A whole document (not a List item). */
  document(document: unknown, location: SnapshotLocation): void {
    if (document === null || document === undefined) return; // empty document (`---` at the end)
    if (!isJsonObject(document)) {
      this.problem({ ...location, message: `expected a Kubernetes object or List (a mapping), found ${describeValue(document)}` });
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
      const found = versionDocumentOf(document);
      if (found === null) this.problem({ ...location, message: 'the document has no kind (and is not a /version document)' });
      else if (found.version !== null) this.versions.push({ version: found.version, location, ...(found.source === 'kubectl-version' ? { fallback: true } : {}) });
      return;
    }
    const list = listDocument(document);
    if (list !== null) {
      const { items } = list;
      if (items !== null && items !== undefined && !Array.isArray(items)) {
        this.problem({ ...location, message: `items of a ${list.kind} must be a list, not ${describeValue(items)}` });
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
    // Server version: all version documents of the kind that counts must agree (`kubectl version`
    // output counts only when no other document names one).
    let version: ServerVersionRecord | null = null;
    let versionSource: string | null = null;
    const explicit = this.versions.filter((v) => v.fallback !== true);
    for (const candidate of explicit.length > 0 ? explicit : this.versions) {
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

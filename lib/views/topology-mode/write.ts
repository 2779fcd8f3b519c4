/**
 * The toggle's guarded write: one JSON merge patch of the version-aware annotation (plus removal
 * of a leftover legacy key) for Enable, or removing every topology annotation for Disable, carrying the resourceVersion the user saw, so a concurrent edit is a
 * 409 and never a lost update. Identical writes in flight (a double-clicked submit) share one
 * PATCH. An answer that leaves the outcome unknown is resolved by a re-read (./outcome.ts). Every
 * PATCH sent is audited (./audit.ts).
 *
 * Results are values (`{ ok: true, value }` / `{ ok: false, error }`); nothing throws.
 */
import 'server-only';

import type { ClusterSource } from '../../k8s/cluster-source';
import type { KubeError } from '../../k8s/errors';
import { patchServiceAnnotations } from '../../k8s/mutations';
import { topologyAnnotationChange } from '../../topology/analyses/service-mechanism';
import { objectKey } from '../../topology/model/cluster-model';
import { effectiveTopologyAnnotation } from '../../topology/upstream/annotations';
import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from '../../topology/upstream/constants';
import { prepared, source } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import type { AuditUser } from '../../server/origin';
import { getSourceProblem } from '../header';
import { topologyAnnotationsOnly, topologyModeNotApplicable } from './annotations';
import type { AuditEntry } from './audit';
import { audit } from './audit';
import { reRead, unknownOutcomeMessage, writeOutcome } from './outcome';
import { rememberPermission } from './permission';
import { readOnlyReason, writeTimeoutMs } from './settings';
import type { SetTopologyModeInput, TopologyModeApplied, TopologyModeErrorKind, TopologyModeResult } from './types';

const IN_FLIGHT_KEY = Symbol.for('zonescope.topologyModeWrites');
/** One write in flight: its result, and the audit line of every requester it serves. */
interface PendingWrite {
  readonly promise: Promise<TopologyModeResult<TopologyModeApplied>>;
  readonly requesters: Requesters;
}
type InFlight = Map<string, PendingWrite>;

/**
 * Who asked for one shared PATCH. The first requester's audit line is the write's; every
 * identical request that joined it while in flight gets a line of its own, with its own user, the
 * same outcome and `"deduplicated": true` — so a write is attributed to everyone who asked for it,
 * whenever they joined (before the answer: with it; after: at once).
 */
class Requesters {
  private readonly joined: AuditUser[] = [];
  private written: AuditEntry | null = null;

  join(user: AuditUser): void {
    if (this.written !== null) audit({ ...this.written, user, deduplicated: true });
    else this.joined.push(user);
  }

  /** Writes the audit line of the write and of everyone who joined it so far. */
  audit(entry: AuditEntry): void {
    this.written = entry;
    audit(entry);
    for (const user of this.joined.splice(0)) audit({ ...entry, user, deduplicated: true });
  }
}
type InFlightHolder = { [IN_FLIGHT_KEY]?: WeakMap<ClusterSource, InFlight> };

/** The writes in flight to one cluster source, by Service, If-Match and mode (on `globalThis`: one per process whatever the bundling). */
function inFlightOf(state: ClusterSource): InFlight {
  const holder = globalThis as unknown as InFlightHolder;
  const all = (holder[IN_FLIGHT_KEY] ??= new WeakMap());
  let inFlight = all.get(state);
  if (inFlight === undefined) {
    inFlight = new Map();
    all.set(state, inFlight);
  }
  return inFlight;
}

function errorKind(error: KubeError): TopologyModeErrorKind {
  switch (error.kind) {
    case 'forbidden':
      return 'forbidden';
    case 'not-found':
      return 'not-found';
    case 'conflict':
      return 'conflict';
    case 'invalid':
      return 'invalid';
    case 'too-many-requests':
      return 'too-many-requests';
    case 'timeout':
      return 'timeout';
    case 'unavailable':
      return 'unavailable';
    case 'unauthorized':
      return 'unauthorized';
    default:
      return 'upstream';
  }
}

async function write(scope: ClusterScope, input: SetTopologyModeInput, requesters: Requesters): Promise<TopologyModeResult<TopologyModeApplied>> {
  const state = scope.source;
  const { namespace, name, mode, ifMatch } = input;
  const connection = state.connection;
  if (connection === null) return { ok: false, error: { kind: 'unavailable', message: `No cluster is connected for ${scope.entry.displayName}.` } };
  const kubernetes = prepared(state).kubernetes;
  if (kubernetes.source === 'assumed') {
    return { ok: false, error: { kind: 'syncing', message: 'The cluster version is not known yet, so the annotation key cannot be chosen; try again in a moment.' } };
  }
  const minor = kubernetes.minor;
  const cached = state.index().servicesByKey.get(objectKey(namespace, name)) ?? null;

  // 1. The version-aware edit, computed on the cached annotations. When the cache is not at the
  //    user's resourceVersion, also remove the legacy key on 1.27+ (a no-op when it is absent).
  const change = topologyAnnotationChange(cached?.annotations ?? {}, minor, mode === 'Auto');
  const remove = new Set(change.remove);
  if (minor >= 27 && (cached === null || cached.resourceVersion !== ifMatch)) remove.add(DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS);
  // Disable removes every topology key whatever the cache holds: a merge patch's null for an
  // absent key is a no-op, and the resourceVersion precondition still guards the write.
  if (mode === 'Disabled') for (const key of [ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS]) remove.add(key);
  const patch: Record<string, string | null> = { ...change.set };
  for (const key of remove) patch[key] = null;
  // What the Service carries after the write: the key set (Enable), or no topology annotation (Disable removes them).
  const [toKey, toValue] = Object.entries(change.set)[0] ?? [null, null];
  const to = toKey !== null && toValue !== null ? { key: toKey, value: toValue } : null;
  const wanted = to !== null ? `${to.key}: ${to.value}` : 'no topology annotation';
  // The previous value is known exactly when the cache is at the user's resourceVersion.
  const fromKnown = cached !== null && cached.resourceVersion === ifMatch;
  const from = fromKnown ? effectiveTopologyAnnotation(cached.annotations, minor) : null;
  const auditBase = {
    cluster: scope.entry.displayName,
    context: scope.entry.context,
    user: input.user,
    service: objectKey(namespace, name),
    from: fromKnown ? { key: from?.key ?? null, value: from?.value ?? null } : 'unknown' as const,
    to,
    ifMatch,
  };

  // 2. One merge patch with the resourceVersion precondition.
  const result = await patchServiceAnnotations(connection, namespace, name, patch, ifMatch, { timeoutMs: writeTimeoutMs() });
  const auditId = result.auditId !== undefined ? { auditId: result.auditId } : {};
  if (result.ok) {
    requesters.audit({ ...auditBase, outcome: 'applied', resourceVersion: result.resourceVersion, ...auditId });
    rememberPermission(state, namespace, name, { allowed: true, reason: null });
    return {
      ok: true,
      value: {
        status: 'applied',
        resourceVersion: result.resourceVersion,
        annotations: topologyAnnotationsOnly(result.annotations),
        mode,
        change: { set: change.set, remove: [...remove].sort() },
      },
    };
  }

  // 3. Unknown outcomes (a timeout, a connection lost after sending, an ambiguous 5xx): resolved
  //    by re-reading the Service, reported as 504 `timeout` with what the re-read shows.
  if (result.unknownOutcome !== undefined) {
    const cause = result.unknownOutcome;
    const current = await reRead(state, namespace, name, minor);
    const outcome = writeOutcome(current, ifMatch, change.set, [...remove]);
    requesters.audit({ ...auditBase, outcome, cause, ...(current !== null ? { resourceVersion: current.resourceVersion } : {}), ...auditId });
    if (outcome === 'applied') rememberPermission(state, namespace, name, { allowed: true, reason: null });
    return { ok: false, error: { kind: 'timeout', message: unknownOutcomeMessage(cause, result.error, outcome, current, ifMatch, wanted), current, outcome, cause } };
  }

  // 4. Refusals: a 409 comes with the re-read Service.
  const kind = errorKind(result.error);
  requesters.audit({ ...auditBase, outcome: kind, ...auditId });
  if (kind === 'forbidden') {
    const reason = `Not permitted: ${result.error.message}`;
    rememberPermission(state, namespace, name, { allowed: false, reason });
    return { ok: false, error: { kind, message: result.error.message } };
  }
  if (kind === 'conflict') {
    const current = await reRead(state, namespace, name, minor);
    return {
      ok: false,
      error: {
        kind,
        message: 'The Service changed since you loaded it (409 Conflict); nothing was written. Check its current value and try again.',
        current,
      },
    };
  }
  if (kind === 'too-many-requests') {
    // No re-read: the API server asked us to back off.
    return { ok: false, error: { kind, message: result.error.message, ...(result.error.retryAfterSeconds !== undefined ? { retryAfterSeconds: result.error.retryAfterSeconds } : {}) } };
  }
  if (kind === 'not-found' || kind === 'unauthorized') return { ok: false, error: { kind, message: result.error.message } };
  // Other 5xx, unreachable, invalid: show the server's value so the form can keep the user's choice beside it.
  return { ok: false, error: { kind, message: result.error.message, current: await reRead(state, namespace, name, minor) } };
}

/**
 * Sets topology mode `Auto` or `Disabled` on a Service (`topology-aware-hints: auto` before
 * 1.27), guarded by the `If-Match` resourceVersion. Refused as `read-only` when
 * `ZONESCOPE_READ_ONLY=1`, the cluster's context is in `ZONESCOPE_READ_ONLY_CONTEXTS` or the source is a snapshot, `unavailable`/`syncing` before the cluster
 * is known, `invalid` (422) for ExternalName and selector-less Services ({@link topologyModeNotApplicable}).
 * Identical requests (same Service, `If-Match` and mode) in flight share one PATCH and one result,
 * and each is audited under its own user.
 */
export async function setTopologyMode(scope: ClusterScope, input: SetTopologyModeInput): Promise<TopologyModeResult<TopologyModeApplied>> {
  const state = source(scope.source);
  const readOnly = readOnlyReason(scope);
  if (readOnly !== null) return { ok: false, error: { kind: 'read-only', message: readOnly } };
  const problem = getSourceProblem(scope);
  if (problem) return { ok: false, error: problem };
  const notApplicable = topologyModeNotApplicable(state.index().servicesByKey.get(objectKey(input.namespace, input.name)) ?? null);
  if (notApplicable !== null) return { ok: false, error: { kind: 'invalid', message: notApplicable } };
  const inFlight = inFlightOf(state);
  const key = `${objectKey(input.namespace, input.name)}\u0000${input.ifMatch}\u0000${input.mode}`;
  const pending = inFlight.get(key);
  if (pending !== undefined) {
    pending.requesters.join(input.user);
    return pending.promise;
  }
  const requesters = new Requesters();
  const promise = write(scope, input, requesters).finally(() => inFlight.delete(key));
  inFlight.set(key, { promise, requesters });
  return promise;
}

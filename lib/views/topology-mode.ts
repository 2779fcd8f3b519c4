/**
 * The topology-mode toggle's backend, shared by the route handlers and (if they want) pages:
 * what the toggle shows ({@link getTopologyModeState}) and the guarded write
 * ({@link setTopologyMode}).
 *
 * The write is one JSON merge patch of the version-aware annotation (plus removal of a leftover
 * legacy key) carrying the resourceVersion the user saw, so a concurrent edit is a 409 and never a
 * lost update. Identical writes in flight (a double-clicked submit) share one PATCH. An answer
 * that leaves the outcome unknown (a timeout, a connection lost after sending, an ambiguous 5xx)
 * is never a success: the Service is re-read and the error says what that shows (applied, not
 * applied, still unknown). The prediction runs the same analysis on the annotations each edit
 * leaves. Every PATCH sent is audited as one JSON line on stdout.
 *
 * Results are values (`{ ok: true, value }` / `{ ok: false, error }`); nothing throws.
 */
import 'server-only';

import type { ClusterSource } from '../k8s/cluster-source';
import type { KubeError } from '../k8s/errors';
import type { UnknownOutcomeCause } from '../k8s/mutations';
import { canPatchService, patchServiceAnnotations, readServiceAnnotations } from '../k8s/mutations';
import { identityLabel, whoAmI } from '../k8s/self-subject-review';
import type { CrossZoneCost } from '../topology/analyses/traffic';
import { effectiveTopologyAnnotation, hintsEnabled } from '../topology/upstream/annotations';
import { objectKey } from '../topology/model/cluster-model';
import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from '../topology/upstream/constants';
import type { MechanismAnalysis, ServiceMechanism, TopologyAnnotationChange } from '../topology/analyses/service-mechanism';
import { topologyAnnotationChange } from '../topology/analyses/service-mechanism';
import { sharedCrossZoneCost } from '../topology/analyses/shared-values';
import { applyModelChange, measuredCrossZoneFraction } from '../topology/analyses/cluster-traffic';
import type { ServiceRecord } from '../topology/model/cluster-model';
import type { ServiceDetail } from '../topology/report/analysis-schema';
import type { AnnotationPrediction } from '../topology/report/service-computation';
import { predictWithAnnotations } from '../topology/report/service-computation';
import type { TopologyEvent, ValueByZone } from '../topology/upstream/types';
import { prepared, source } from '../server/analysis';
import type { TopologyModeValue } from '../server/requests';
import type { AuditUser } from '../server/origin';
import { unauthenticatedWritesReason } from '../server/exposure';
import type { ClusterScope } from '../server/clusters';
import { clusterLabel, configuredReadOnlyReason } from '../server/clusters';
import { getSourceProblem } from './header';
import type { ServiceView } from './service';
import { getServiceView } from './service';

export type { UnknownOutcomeCause } from '../k8s/mutations';

// ---------------------------------------------------------------------------------------------
// Shapes

/** Why a toggle request failed; the route maps `kind` to the HTTP status (see `docs/api.md`). */
export type TopologyModeErrorKind =
  | 'syncing'
  | 'unavailable'
  | 'not-found'
  | 'read-only'
  | 'forbidden'
  | 'conflict'
  | 'timeout'
  | 'too-many-requests'
  | 'invalid'
  | 'unauthorized'
  | 'upstream';

/** A failed toggle request (every field is safe to show). */
export interface TopologyModeError {
  readonly kind: TopologyModeErrorKind;
  readonly message: string;
  /** Seconds to wait before retrying (429). */
  readonly retryAfterSeconds?: number;
  /** The Service as re-read after a 409, a timeout, a 5xx or a 422 (`null` when the re-read failed too). */
  readonly current?: TopologyModeCurrent | null;
  /** `timeout` errors (the outcome was unknown): what the re-read shows of the write. */
  readonly outcome?: TopologyModeWriteOutcome;
  /** `timeout` errors: why the outcome was unknown. */
  readonly cause?: UnknownOutcomeCause;
}

/**
 * What the re-read after an unknown outcome shows: `applied` (the Service carries the requested
 * annotations), `not-applied` (it does not: unchanged, or changed by someone else since), or
 * `unknown` (the re-read failed too).
 */
export type TopologyModeWriteOutcome = 'applied' | 'not-applied' | 'unknown';

/** A result of this module. */
export type TopologyModeResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: TopologyModeError };

/** The Service's topology annotations as they are. */
export interface TopologyModeCurrent {
  readonly resourceVersion: string;
  /** The key whose value counts on this release (the legacy key wins when present), `null` when none is set. */
  readonly effectiveKey: string | null;
  /** Its value, `null` when none is set. */
  readonly value: string | null;
  /** `service.kubernetes.io/topology-aware-hints` is present (on 1.27+ it shadows topology-mode). */
  readonly legacyKeyPresent: boolean;
  /** The controller runs the Auto heuristic for these annotations (value `Auto`/`auto`). */
  readonly enabled: boolean;
  /** `service.kubernetes.io/topology-mode`, `null` when absent. */
  readonly topologyMode: string | null;
  /** `service.kubernetes.io/topology-aware-hints`, `null` when absent. */
  readonly topologyAwareHints: string | null;
}

/** A Service's hints and traffic in one state: now, or after one of the toggle's edits. */
export interface TopologyModeOutcome {
  /** The mechanism that sets hints (the annotation, the legacy key, trafficDistribution, none). */
  readonly mechanism: ServiceMechanism;
  /** Hints on the slices (now: observed; after an edit: what the controller then writes). */
  readonly hintsEnabled: boolean;
  /** kube-proxy routes by them: hints on, the dataplane honours hints and internalTrafficPolicy is not Local. */
  readonly hintsUsed: boolean;
  /** `hints on via trafficDistribution`, `hints on via topology-mode Auto`, `hints off`. */
  readonly summary: string;
  /** Why, in the precedence upstream applies (annotation over trafficDistribution, traffic policies). */
  readonly why: string;
  /** The controller's event for the Auto heuristic's decision (`null` when none). */
  readonly event: TopologyEvent | null;
  readonly reason: TopologyEvent | null;
  readonly hintCountsByZone: Readonly<ValueByZone<number>>;
  readonly donatedEndpoints: number;
  /** Cross-zone and dropped shares of the Service's traffic (0–1). */
  readonly crossZoneFraction: number;
  readonly droppedFraction: number;
  readonly monthlyCost: CrossZoneCost;
}

/** The outcome of one of the toggle's edits, worded before → after. */
export interface TopologyModeChangeOutcome extends TopologyModeOutcome {
  /** `hints on via trafficDistribution, cross-zone 0.0 % → hints on via trafficDistribution, 0.0 % (…why…)`. */
  readonly text: string;
}

/** What enabling and disabling would do, from the analysis. */
export interface TopologyModePrediction {
  /**
   * Why the outcomes cannot be predicted (a type they depend on, such as Nodes, could not be read),
   * `null` when they can. The outcome fields then hold what an empty list of that type gives.
   */
  readonly unknown: string | null;
  /** The Service as it is. */
  readonly now: TopologyModeOutcome;
  /** After Enable: the same analysis on `change.enable.annotations`. */
  readonly enable: TopologyModeChangeOutcome;
  /** After Disable: the same analysis on `change.disable.annotations` (trafficDistribution may keep hints on). */
  readonly disable: TopologyModeChangeOutcome;
  /** Hints the controller would write with topology mode Auto (`enable.hintsEnabled`). */
  readonly hintsEnabled: boolean;
  /** The event the controller would record (`null` when none). */
  readonly event: TopologyEvent | null;
  /** Upstream's decision in its words (why hints would stay off, or that they are on). */
  readonly reason: TopologyEvent | null;
  readonly hintCountsByZone: Readonly<ValueByZone<number>>;
  readonly donatedEndpoints: number;
  /**
   * Cross-zone share of the Service's traffic now, with Auto, and with no hints at all (0–1).
   * `crossZoneFractionIfNone` ignores trafficDistribution: after Disable see `disable`.
   */
  readonly crossZoneFractionNow: number;
  readonly crossZoneFractionIfAuto: number;
  readonly crossZoneFractionIfNone: number;
  readonly monthlyCost: { readonly now: CrossZoneCost; readonly ifAuto: CrossZoneCost; readonly ifNone: CrossZoneCost };
}

/** Everything the toggle shows. */
export interface TopologyModeState {
  readonly namespace: string;
  readonly name: string;
  /** The cluster the Service is in (the toggle names it): its URL id, display name and kubeconfig context (`null` in-cluster or for a snapshot). */
  readonly cluster: { readonly id: string; readonly name: string; readonly context: string | null };
  /** `ZONESCOPE_READ_ONLY=1` or a snapshot source: the control is hidden and writes are refused. */
  readonly readOnly: boolean;
  readonly readOnlyReason: string | null;
  /** SelfSubjectAccessReview `patch services` for this Service (cached ~30 s). */
  readonly canPatch: boolean;
  /** Why the control is disabled (read-only, RBAC, review failed), `null` when allowed. */
  readonly notAllowedReason: string | null;
  /**
   * The permission check could not run (API server unreachable, review failed): the control is
   * disabled because the answer is unknown, not because RBAC said no.
   */
  readonly permissionCheckFailed: boolean;
  readonly current: TopologyModeCurrent;
  /** Modelled release (`"1.31"`) and minor, which decide the key written. */
  readonly release: string;
  readonly minor: number;
  /** The annotation key the toggle writes on this release. */
  readonly key: string;
  /** The resourceVersion to send back as `If-Match: "<resourceVersion>"`. */
  readonly resourceVersion: string;
  readonly change: { readonly enable: TopologyAnnotationChange; readonly disable: TopologyAnnotationChange };
  readonly prediction: TopologyModePrediction;
}

/** A write request. */
export interface SetTopologyModeInput {
  readonly namespace: string;
  readonly name: string;
  readonly mode: TopologyModeValue;
  /** The resourceVersion the user saw (`If-Match`). */
  readonly ifMatch: string;
  readonly user: AuditUser;
}

/** A successful write. */
export interface TopologyModeApplied {
  readonly status: 'applied';
  /** The Service's resourceVersion after the write. */
  readonly resourceVersion: string;
  /** The Service's topology annotations after the write (`topology-mode`, `topology-aware-hints`; absent keys omitted). */
  readonly annotations: Readonly<Record<string, string>>;
  readonly mode: TopologyModeValue;
  /** The key and value written and the keys removed. */
  readonly change: { readonly set: Readonly<Record<string, string>>; readonly remove: readonly string[] };
}

// ---------------------------------------------------------------------------------------------
// Configuration

/** How long a permission answer is reused (page views must not storm the API server). */
export const CAN_PATCH_TTL_MS = 30_000;
const CAN_PATCH_ERROR_TTL_MS = 5_000;
/** Default timeout of the PATCH and of the re-read (`ZONESCOPE_WRITE_TIMEOUT_MS`). */
export const DEFAULT_WRITE_TIMEOUT_MS = 10_000;

function writeTimeoutMs(): number {
  const value = Number(process.env.ZONESCOPE_WRITE_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? Math.min(value, 120_000) : DEFAULT_WRITE_TIMEOUT_MS;
}

const TOPOLOGY_KEYS = [ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] as const;

// ---------------------------------------------------------------------------------------------
// Per-source memory (permission cache, writes in flight), dropped with the source

interface PermissionEntry {
  readonly expires: number;
  readonly answer: Promise<PermissionAnswer>;
}

interface SourceMemory {
  readonly permissions: Map<string, PermissionEntry>;
  readonly inFlight: Map<string, Promise<TopologyModeResult<TopologyModeApplied>>>;
}

const MEMORY_KEY = Symbol.for('zonescope.topologyModeMemory');
type MemoryHolder = { [MEMORY_KEY]?: WeakMap<ClusterSource, SourceMemory> };

function memoryOf(state: ClusterSource): SourceMemory {
  const holder = globalThis as unknown as MemoryHolder;
  const all = (holder[MEMORY_KEY] ??= new WeakMap());
  let memory = all.get(state);
  if (memory === undefined) {
    memory = { permissions: new Map(), inFlight: new Map() };
    all.set(state, memory);
  }
  return memory;
}

// ---------------------------------------------------------------------------------------------
// Helpers

function readOnlyReason(scope: ClusterScope): string | null {
  const state = scope.source;
  const configured = configuredReadOnlyReason(scope);
  if (configured !== null) return configured;
  if (state.mode === 'snapshot') return 'The data comes from a snapshot file; there is no cluster to write to.';
  // Bound beyond loopback without the auth proxy or the explicit opt-in (see exposure.ts).
  return unauthenticatedWritesReason();
}

/** The current topology annotations of a Service at release `minor`. */
export function describeTopologyAnnotations(annotations: Readonly<Record<string, string>>, resourceVersion: string, minor: number): TopologyModeCurrent {
  const effective = effectiveTopologyAnnotation(annotations, minor);
  const has = (key: string) => Object.prototype.hasOwnProperty.call(annotations, key);
  return {
    resourceVersion,
    effectiveKey: effective?.key ?? null,
    value: effective?.value ?? null,
    legacyKeyPresent: has(DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS),
    enabled: hintsEnabled(annotations, minor),
    topologyMode: has(ANNOTATION_TOPOLOGY_MODE) ? (annotations[ANNOTATION_TOPOLOGY_MODE] ?? '') : null,
    topologyAwareHints: has(DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS) ? (annotations[DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] ?? '') : null,
  };
}

function topologyAnnotationsOnly(annotations: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of TOPOLOGY_KEYS) {
    const value = annotations[key];
    if (Object.prototype.hasOwnProperty.call(annotations, key) && value !== undefined) out[key] = value;
  }
  return out;
}

/** Whether the identity may patch the Service (SelfSubjectAccessReview, cached per Service). */
/** A permission answer; `checkFailed` when the review could not run (not a denial). */
interface PermissionAnswer {
  readonly allowed: boolean;
  readonly reason: string | null;
  readonly checkFailed?: boolean;
}

async function permission(state: ClusterSource, cluster: string, namespace: string, name: string): Promise<PermissionAnswer> {
  const connection = state.connection;
  if (connection === null) return { allowed: false, reason: 'No cluster is connected.' };
  const memory = memoryOf(state);
  const key = objectKey(namespace, name);
  const now = Date.now();
  const cached = memory.permissions.get(key);
  if (cached !== undefined && cached.expires > now) return cached.answer;
  const answer = canPatchService(connection, namespace, name, { timeoutMs: writeTimeoutMs() }).then(async (review) => {
    if (!review.ok) {
      // The check did not run: say so, distinct from an RBAC "no" (issue 12).
      const failed: PermissionAnswer = { allowed: false, reason: permissionCheckFailed(review.error), checkFailed: true };
      memory.permissions.set(key, { expires: Date.now() + CAN_PATCH_ERROR_TTL_MS, answer: Promise.resolve(failed) });
      return failed;
    }
    if (review.allowed) return { allowed: true, reason: null };
    const identity = identityLabel(await whoAmI(connection, { timeoutMs: writeTimeoutMs() }));
    return {
      allowed: false,
      reason: `Not permitted: ${identity} may not patch Services in "${namespace}" in cluster ${cluster}${review.reason ? ` (${review.reason})` : ''}. The RBAC rule that grants it: apiGroups: [""], resources: ["services"], verbs: ["patch"].`,
    };
  });
  memory.permissions.set(key, { expires: now + CAN_PATCH_TTL_MS, answer });
  return answer;
}

/** Why the toggle is disabled when the permission check itself failed (not a denial). */
export function permissionCheckFailed(error: KubeError): string {
  if (error.kind === 'unavailable' || error.kind === 'timeout') {
    return `Could not check permissions: the API server is unreachable (${error.message}). This is not an RBAC denial; the toggle is enabled once the check succeeds.`;
  }
  return `Could not check permissions: the SelfSubjectAccessReview failed (${error.message}). This is not an RBAC denial; the check is retried in a few seconds.`;
}

function rememberPermission(state: ClusterSource, namespace: string, name: string, answer: { allowed: boolean; reason: string | null }): void {
  memoryOf(state).permissions.set(objectKey(namespace, name), { expires: Date.now() + CAN_PATCH_TTL_MS, answer: Promise.resolve(answer) });
}

// ---------------------------------------------------------------------------------------------
// Prediction

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}

function shortKey(key: string | null): string {
  return (key ?? '').replace(/^service\.kubernetes\.io\//, '');
}

function summaryOf(mechanism: MechanismAnalysis, hintsEnabled: boolean): string {
  if (!hintsEnabled) return 'hints off';
  switch (mechanism.mechanism) {
    case 'topology-mode':
    case 'legacy-annotation':
      return `hints on via ${shortKey(mechanism.annotationKey)} ${mechanism.annotationValue ?? ''}`;
    case 'trafficDistribution':
      return 'hints on via trafficDistribution';
    default:
      return 'hints on';
  }
}

/**
 * Why a state has hints on or off, in upstream's precedence: an active topology annotation (the
 * legacy key when present) decides with the Auto heuristic and overrides trafficDistribution;
 * otherwise trafficDistribution; then what kube-proxy does with them (internalTrafficPolicy
 * Local, a dataplane that ignores hints).
 */
function whyOf(mechanism: MechanismAnalysis, hintsEnabled: boolean, reason: TopologyEvent | null, service: ServiceRecord, edit: 'now' | 'enable' | 'disable', honoursHints: string | null): string {
  const parts: string[] = [];
  const td = service.trafficDistribution;
  const annotation = `${shortKey(mechanism.annotationKey)} ${mechanism.annotationValue ?? ''}`;
  if (mechanism.annotationActive) {
    const decision = hintsEnabled ? 'the Auto heuristic hints endpoints in proportion to zone CPU' : (reason?.message ?? 'the Auto heuristic cannot allocate the endpoints');
    parts.push(td !== null ? `${annotation} overrides trafficDistribution ${td}: ${decision}` : `${annotation}: ${decision}`);
  } else if (mechanism.mechanism === 'trafficDistribution') {
    parts.push(
      !hintsEnabled
        ? `trafficDistribution ${td ?? ''} sets no hints (no ready endpoint with a zone)`
        : edit === 'disable'
          ? `trafficDistribution ${td ?? ''} keeps hints when topology mode is disabled`
          : `trafficDistribution ${td ?? ''} hints every ready endpoint for its own ${mechanism.trafficDistributionHeuristic === 'preferSameNode' ? 'node and zone' : 'zone'}`,
    );
  } else if (mechanism.annotationValue !== null && /^auto$/i.test(mechanism.annotationValue) && !mechanism.annotationActive) {
    parts.push(`${annotation} does nothing: the TopologyAwareHints feature gate is off`);
  } else if (td !== null) {
    parts.push(`trafficDistribution ${td} is not used on this release${edit === 'disable' ? ', so nothing sets hints' : ''}`);
  } else {
    const nothing = edit === 'disable' ? 'nothing else asks for hints' : 'nothing asks for hints';
    parts.push(service.internalTrafficPolicy === 'Local' ? nothing : `${nothing}: kube-proxy spreads traffic over every ready endpoint`);
  }
  if (service.internalTrafficPolicy === 'Local') {
    parts.push(hintsEnabled ? "internalTrafficPolicy Local overrides hints: in-cluster traffic stays on the client's node" : "internalTrafficPolicy Local: in-cluster traffic stays on the client's node");
  }
  if (hintsEnabled && honoursHints !== null) parts.push(`the dataplane ignores hints (${honoursHints.replace(/\.$/, '')})`);
  return parts.join('; ');
}

function outcomeOf(
  state: { mechanism: MechanismAnalysis; hintsEnabled: boolean; event: TopologyEvent | null; reason: TopologyEvent | null; hintCountsByZone: Readonly<ValueByZone<number>>; donatedEndpoints: number },
  traffic: { crossZoneFraction: number; droppedFraction: number; monthlyCost: CrossZoneCost },
  service: ServiceRecord,
  edit: 'now' | 'enable' | 'disable',
  dataplane: { honoursHints: boolean; honoursHintsReason: string },
): TopologyModeOutcome {
  return {
    mechanism: state.mechanism.mechanism,
    hintsEnabled: state.hintsEnabled,
    hintsUsed: state.hintsEnabled && dataplane.honoursHints && service.internalTrafficPolicy !== 'Local',
    summary: summaryOf(state.mechanism, state.hintsEnabled),
    why: whyOf(state.mechanism, state.hintsEnabled, state.reason, service, edit, dataplane.honoursHints ? null : dataplane.honoursHintsReason),
    event: state.event,
    reason: state.reason,
    hintCountsByZone: state.hintCountsByZone,
    donatedEndpoints: state.donatedEndpoints,
    crossZoneFraction: traffic.crossZoneFraction,
    droppedFraction: traffic.droppedFraction,
    monthlyCost: traffic.monthlyCost,
  };
}

function changeOutcome(state: ClusterSource, detail: ServiceDetail, now: TopologyModeOutcome, predicted: AnnotationPrediction, service: ServiceRecord, edit: 'enable' | 'disable'): TopologyModeChangeOutcome {
  const p = prepared(state);
  const { expected, traffic } = predicted;
  // The same volume as now (the Service's own: measured, set or assumed). Measured flows: the
  // model's change applied to the measurement, so the before and after are both measured-based.
  const measured = detail.traffic.volume.measuredMatrix;
  const crossZoneFraction = measured === null ? traffic.crossZoneFraction : measuredCrossZoneFraction(applyModelChange(measured, detail.trafficMatrix.now.matrix, traffic.matrix));
  const after = outcomeOf(
    { ...expected, mechanism: predicted.mechanism },
    { crossZoneFraction, droppedFraction: traffic.droppedFraction, monthlyCost: sharedCrossZoneCost(p.context, p.pricing, crossZoneFraction, now.monthlyCost.gbPerMonth) },
    service,
    edit,
    p.dataplane,
  );
  const dropped = (o: TopologyModeOutcome) => (o.droppedFraction > 0 ? `, ${percent(o.droppedFraction)} dropped` : '');
  return { ...after, text: `${now.summary}, cross-zone ${percent(now.crossZoneFraction)}${dropped(now)} → ${after.summary}, ${percent(after.crossZoneFraction)}${dropped(after)} (${after.why})` };
}

/**
 * The toggle's prediction: the Service now, and after each edit the same analysis (mechanism
 * precedence, the controller's next sync, kube-proxy's routing) on the annotations the patch would
 * leave, worded before → after.
 */
function predictTopologyMode(state: ClusterSource, detail: ServiceDetail, service: ServiceRecord, change: { enable: TopologyAnnotationChange; disable: TopologyAnnotationChange }): TopologyModePrediction {
  const p = prepared(state);
  const now = outcomeOf(
    { mechanism: detail.mechanismDetail, hintsEnabled: detail.observed.hintsPresent, event: detail.expected.event, reason: detail.expected.reason, hintCountsByZone: detail.observed.hintCountsByZone, donatedEndpoints: detail.observed.donatedEndpoints },
    // The share now as priced: measured when the volume is measured with flows, else the model's.
    { crossZoneFraction: detail.traffic.monthlyCost.now.crossZoneFraction, droppedFraction: detail.traffic.droppedFraction, monthlyCost: detail.traffic.monthlyCost.now },
    service,
    'now',
    p.dataplane,
  );
  const enable = changeOutcome(state, detail, now, predictWithAnnotations(p, service, change.enable.annotations), service, 'enable');
  const disable = changeOutcome(state, detail, now, predictWithAnnotations(p, service, change.disable.annotations), service, 'disable');
  return {
    unknown: detail.unknown.expectedHints ?? detail.unknown.crossZone ?? null,
    now,
    enable,
    disable,
    hintsEnabled: enable.hintsEnabled,
    event: enable.event,
    reason: enable.reason,
    hintCountsByZone: enable.hintCountsByZone,
    donatedEndpoints: enable.donatedEndpoints,
    crossZoneFractionNow: now.crossZoneFraction,
    crossZoneFractionIfAuto: enable.crossZoneFraction,
    crossZoneFractionIfNone: detail.traffic.monthlyCost.ifNone.crossZoneFraction,
    monthlyCost: { now: now.monthlyCost, ifAuto: enable.monthlyCost, ifNone: detail.traffic.monthlyCost.ifNone },
  };
}

// ---------------------------------------------------------------------------------------------
// State

/**
 * What the toggle shows before its permission check answers: everything of
 * {@link TopologyModeState} but the permission. It makes no API request, so the Service page renders
 * it with the page (the current annotations and the predicted outcome are on screen at first paint)
 * and the toggle only waits for `canPatch`.
 */
export type TopologyModePreview = Omit<TopologyModeState, 'canPatch' | 'notAllowedReason' | 'permissionCheckFailed'>;

/** Predictions per analysed Service, resourceVersion and prepared analysis: the analysis hands out the same detail until the Service's inputs change. */
const PREDICTIONS = new WeakMap<ServiceDetail, { readonly resourceVersion: string; readonly prepared: object; readonly prediction: TopologyModePrediction }>();

/** The toggle's state without the permission, from a Service's view ({@link getServiceView}). */
export function topologyModePreview(scope: ClusterScope, view: ServiceView): TopologyModePreview {
  const state = source(scope.source);
  const readOnly = readOnlyReason(scope);
  const { detail, service, minor, release } = view;
  const enable = topologyAnnotationChange(service.annotations, minor, true);
  const change = { enable, disable: topologyAnnotationChange(service.annotations, minor, false) };
  const analysis = prepared(state);
  let memo = PREDICTIONS.get(detail);
  if (memo?.resourceVersion !== service.resourceVersion || memo.prepared !== analysis) {
    memo = { resourceVersion: service.resourceVersion, prepared: analysis, prediction: predictTopologyMode(state, detail, service, change) };
    PREDICTIONS.set(detail, memo);
  }
  return {
    namespace: service.namespace,
    name: service.name,
    cluster: { id: scope.entry.id, name: scope.entry.displayName, context: scope.entry.context },
    readOnly: readOnly !== null,
    readOnlyReason: readOnly,
    current: describeTopologyAnnotations(service.annotations, service.resourceVersion, minor),
    release,
    minor,
    key: Object.keys(enable.set)[0] ?? ANNOTATION_TOPOLOGY_MODE,
    resourceVersion: service.resourceVersion,
    change,
    prediction: memo.prediction,
  };
}

/**
 * What the toggle of one Service shows: read-only state, permission (SelfSubjectAccessReview,
 * skipped when read-only, cached ~30 s per Service), the current annotations and resourceVersion
 * from the cache, the version-aware edits for Enable and Disable, and the predicted outcome.
 * Errors: `unavailable`, `syncing`, `not-found`.
 */
export async function getTopologyModeState(scope: ClusterScope, namespace: string, name: string): Promise<TopologyModeResult<TopologyModeState>> {
  const state = source(scope.source);
  const problem = getSourceProblem(scope);
  if (problem) return { ok: false, error: problem };
  const view = getServiceView(scope, namespace, name);
  if (!view.ok) return view;
  const preview = topologyModePreview(scope, view.value);
  const notApplicable = topologyModeNotApplicable(view.value.service);
  const allowed =
    preview.readOnlyReason !== null
      ? { allowed: false, reason: preview.readOnlyReason }
      : notApplicable !== null
        ? { allowed: false, reason: notApplicable }
        : await permission(state, preview.cluster.name, namespace, name);
  return {
    ok: true,
    value: {
      ...preview,
      canPatch: allowed.allowed,
      notAllowedReason: allowed.allowed ? null : allowed.reason,
      permissionCheckFailed: 'checkFailed' in allowed && allowed.checkFailed === true,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Write

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

/**
 * One audit line per PATCH sent, on stdout: `from` is `key=value`, `null` (no topology
 * annotation) or `"unknown"` (the cache was not at the `If-Match` resourceVersion); `outcome` is
 * `applied`, the refusal kind, or — when the answer left it unknown (`cause`) — what the re-read
 * shows: `applied`, `not-applied` or `unknown`.
 */
function audit(entry: {
  cluster: string;
  user: AuditUser;
  service: string;
  from: { key: string | null; value: string | null } | 'unknown';
  to: { key: string; value: string };
  ifMatch: string;
  outcome: string;
  cause?: UnknownOutcomeCause;
  resourceVersion?: string;
  auditId?: string;
}): void {
  const line = {
    ts: new Date().toISOString(),
    type: 'zonescope.audit',
    action: 'set-topology-mode',
    cluster: entry.cluster,
    user: entry.user.user,
    ...(entry.user.unverifiedUser !== null ? { unverifiedUser: entry.user.unverifiedUser } : {}),
    service: entry.service,
    from: entry.from === 'unknown' ? 'unknown' : entry.from.value === null ? null : `${entry.from.key}=${entry.from.value}`,
    to: `${entry.to.key}=${entry.to.value}`,
    ifMatch: entry.ifMatch,
    outcome: entry.outcome,
    ...(entry.cause !== undefined ? { cause: entry.cause } : {}),
    resourceVersion: entry.resourceVersion ?? null,
    auditId: entry.auditId ?? null,
  };
  console.log(JSON.stringify(line));
}

async function reRead(state: ClusterSource, namespace: string, name: string, minor: number): Promise<TopologyModeCurrent | null> {
  if (state.connection === null) return null;
  const read = await readServiceAnnotations(state.connection, namespace, name, { timeoutMs: writeTimeoutMs() });
  return read.ok ? describeTopologyAnnotations(read.annotations, read.resourceVersion, minor) : null;
}

/** The raw topology annotations of a re-read (absent keys omitted). */
function annotationsOfCurrent(current: TopologyModeCurrent): Record<string, string> {
  const out: Record<string, string> = {};
  if (current.topologyMode !== null) out[ANNOTATION_TOPOLOGY_MODE] = current.topologyMode;
  if (current.topologyAwareHints !== null) out[DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] = current.topologyAwareHints;
  return out;
}

/** What a re-read shows of a write whose answer was lost: the Service carries what it set and lacks what it removed. */
function writeOutcome(current: TopologyModeCurrent | null, ifMatch: string, set: Readonly<Record<string, string>>, remove: readonly string[]): TopologyModeWriteOutcome {
  if (current === null) return 'unknown';
  const annotations = annotationsOfCurrent(current);
  const carries = Object.entries(set).every(([key, value]) => annotations[key] === value) && remove.every((key) => !Object.prototype.hasOwnProperty.call(annotations, key));
  // Unchanged at If-Match and not already as requested: the write did not land (it would have bumped the resourceVersion).
  return carries ? 'applied' : 'not-applied';
}

const CAUSE_TEXT: Readonly<Record<UnknownOutcomeCause, string>> = {
  timeout: 'The write timed out',
  'connection-lost': 'The connection to the API server was lost after the write was sent',
  'server-error': 'The API server answered with an error that does not say whether the write was stored',
};

function unknownOutcomeMessage(cause: UnknownOutcomeCause, error: KubeError, outcome: TopologyModeWriteOutcome, current: TopologyModeCurrent | null, ifMatch: string, key: string, value: string): string {
  const status = error.status !== undefined ? ` (HTTP ${error.status}: ${error.message})` : '';
  const head = `${CAUSE_TEXT[cause]}${status}, so its outcome is unknown from the answer alone.`;
  if (outcome === 'unknown' || current === null) return `${head} The Service could not be re-read either: the outcome is unknown. Re-read before trying again.`;
  if (outcome === 'applied') return `${head} A re-read shows the write was applied: ${key}: ${value} (resourceVersion ${current.resourceVersion}).`;
  if (current.resourceVersion === ifMatch) return `${head} A re-read shows the write was not applied: the Service is unchanged (resourceVersion ${ifMatch}); the same write can be retried.`;
  return `${head} A re-read shows the write was not applied: the Service has changed since (resourceVersion ${current.resourceVersion}) and does not carry ${key}: ${value}. Check its current value before trying again.`;
}

async function write(scope: ClusterScope, input: SetTopologyModeInput): Promise<TopologyModeResult<TopologyModeApplied>> {
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
  const patch: Record<string, string | null> = { ...change.set };
  for (const key of remove) patch[key] = null;
  const [toKey = ANNOTATION_TOPOLOGY_MODE, toValue = mode] = Object.entries(change.set)[0] ?? [];
  // The previous value is known exactly when the cache is at the user's resourceVersion.
  const fromKnown = cached !== null && cached.resourceVersion === ifMatch;
  const from = fromKnown ? effectiveTopologyAnnotation(cached.annotations, minor) : null;
  const auditBase = {
    cluster: clusterLabel(scope),
    user: input.user,
    service: objectKey(namespace, name),
    from: fromKnown ? { key: from?.key ?? null, value: from?.value ?? null } : 'unknown' as const,
    to: { key: toKey, value: toValue },
    ifMatch,
  };

  // 2. One merge patch with the resourceVersion precondition.
  const result = await patchServiceAnnotations(connection, namespace, name, patch, ifMatch, { timeoutMs: writeTimeoutMs() });
  const auditId = result.auditId !== undefined ? { auditId: result.auditId } : {};
  if (result.ok) {
    audit({ ...auditBase, outcome: 'applied', resourceVersion: result.resourceVersion, ...auditId });
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
    audit({ ...auditBase, outcome, cause, ...(current !== null ? { resourceVersion: current.resourceVersion } : {}), ...auditId });
    if (outcome === 'applied') rememberPermission(state, namespace, name, { allowed: true, reason: null });
    return { ok: false, error: { kind: 'timeout', message: unknownOutcomeMessage(cause, result.error, outcome, current, ifMatch, toKey, toValue), current, outcome, cause } };
  }

  // 4. Refusals: a 409 comes with the re-read Service.
  const kind = errorKind(result.error);
  audit({ ...auditBase, outcome: kind, ...auditId });
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
 * Why topology mode cannot apply to a Service (answered as 422 `invalid`), `null` when it can:
 * an ExternalName Service has no EndpointSlices and kube-proxy does not route it; a Service
 * without a selector gets its slices from someone else and the EndpointSlice controller writes no
 * hints for it. Nothing is written for either.
 */
export function topologyModeNotApplicable(service: Pick<ServiceRecord, 'type' | 'selector'> | null): string | null {
  if (service === null) return null;
  if (service.type === 'ExternalName') {
    return 'Topology mode does not apply to an ExternalName Service: it is a DNS CNAME with no EndpointSlices, and kube-proxy does not route it. Nothing was written.';
  }
  if (service.selector === null) {
    return 'Topology mode does not apply to a Service without a selector: the EndpointSlice controller does not manage its EndpointSlices or write hints for them. Nothing was written.';
  }
  return null;
}

/**
 * Sets topology mode `Auto` or `Disabled` on a Service (`topology-aware-hints: auto` before
 * 1.27), guarded by the `If-Match` resourceVersion. Refused as `read-only` when
 * `ZONESCOPE_READ_ONLY=1`, the cluster's context is in `ZONESCOPE_READ_ONLY_CONTEXTS` or the source is a snapshot, `unavailable`/`syncing` before the cluster
 * is known, `invalid` (422) for ExternalName and selector-less Services ({@link topologyModeNotApplicable}).
 * Identical requests (same Service, `If-Match` and mode) in flight share one PATCH and one result.
 */
export async function setTopologyMode(scope: ClusterScope, input: SetTopologyModeInput): Promise<TopologyModeResult<TopologyModeApplied>> {
  const state = source(scope.source);
  const readOnly = readOnlyReason(scope);
  if (readOnly !== null) return { ok: false, error: { kind: 'read-only', message: readOnly } };
  const problem = getSourceProblem(scope);
  if (problem) return { ok: false, error: problem };
  const notApplicable = topologyModeNotApplicable(state.index().servicesByKey.get(objectKey(input.namespace, input.name)) ?? null);
  if (notApplicable !== null) return { ok: false, error: { kind: 'invalid', message: notApplicable } };
  const memory = memoryOf(state);
  const key = `${objectKey(input.namespace, input.name)}\u0000${input.ifMatch}\u0000${input.mode}`;
  const pending = memory.inFlight.get(key);
  if (pending !== undefined) return pending;
  const promise = write(scope, input).finally(() => memory.inFlight.delete(key));
  memory.inFlight.set(key, promise);
  return promise;
}

/**
 * The shapes of the topology-mode toggle's backend: what the toggle shows (its state, the preview
 * the page renders with it, the prediction), a write request and its result, and every error a
 * request can end in. Types only: client components import them with `import type`.
 */
import type { UnknownOutcomeCause } from '../../k8s/mutations';
import type { TopologyAnnotationChange, ServiceMechanism } from '../../topology/analyses/service-mechanism';
import type { CrossZoneCost } from '../../topology/analyses/cross-zone-cost';
import type { TopologyEvent, ValueByZone } from '../../topology/upstream/types';
import type { TopologyModeValue } from '../../server/requests';
import type { AuditUser } from '../../server/origin';


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
  /**
   * What the edit does to the hints, said once: `hints turn on`, `hints stay on`, `hints turn off`,
   * `hints stay off` — with `, unused` when they are on but kube-proxy does not route by them
   * (internalTrafficPolicy Local, a dataplane that ignores hints).
   */
  readonly verdict: string;
  /** The cross-zone share before → after: `cross-zone 64.2 % → 0.0 %`, or `cross-zone stays 0.0 %`. */
  readonly crossZoneChange: string;
  /** The three in one sentence: `hints turn on, cross-zone 64.2 % → 0.0 % (…why…)`. */
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

/**
 * What the toggle shows before its permission check answers: everything of
 * {@link TopologyModeState} but the permission. It makes no API request, so the Service page renders
 * it with the page (the current annotations and the predicted outcome are on screen at first paint)
 * and the toggle only waits for `canPatch`.
 */
export type TopologyModePreview = Omit<TopologyModeState, 'canPatch' | 'notAllowedReason' | 'permissionCheckFailed'>;

/**
 * The only writes zonescope makes: a JSON merge patch of Service annotations carrying
 * `metadata.resourceVersion` (so a concurrent edit yields 409 Conflict instead of a lost update),
 * the SelfSubjectAccessReview that says whether that patch is allowed, and the re-read that
 * resolves an unknown outcome.
 *
 * Every function returns a value (`{ok: true, …}` or `{ok: false, error}` with a safe
 * {@link KubeError}); nothing throws. A failed patch whose outcome is unknown (a timeout, a
 * connection lost after the request went out, an ambiguous 5xx) carries `unknownOutcome` (re-read
 * with {@link readServiceAnnotations}) and is never a success. Patch results carry the API server's `Audit-Id`
 * response header as `auditId` when it sent one (for the mutation audit log).
 *
 * Credentials: the generated clients go through `connection.kubeConfig`, whose credential plugin
 * (if any) is the connection's own, so writes share the informers' credential and cache; a 401
 * drops it and the call is made once more with a fresh one.
 */
import type { ConfigurationOptions, ObservableMiddleware, RequestContext, ResponseContext } from '@kubernetes/client-node';
import { AuthorizationV1Api, CoreV1Api, Observable, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConnection } from './connection';
import type { KubeError } from './errors';
import { errorFromException, errorFromResponse } from './errors';
import { isJsonObject, obj, str, stringMap } from './wire-to-record/json';

/**
 * Why a write's outcome is unknown: no answer in time (`timeout`: our timeout, 504, 408), the
 * connection lost after the request went out (`connection-lost`: reset, closed, aborted), or an
 * API server error that does not say whether the write was stored (`server-error`: 500 such as
 * `etcdserver: request timed out`, 502, a 503 without a Kubernetes Status, an answer without a
 * resourceVersion).
 */
export type UnknownOutcomeCause = 'timeout' | 'connection-lost' | 'server-error';

/** Result of a Service annotation patch. */
export type PatchServiceResult =
  | { readonly ok: true; readonly resourceVersion: string; readonly annotations: Readonly<Record<string, string>>; readonly auditId?: string }
  | {
      readonly ok: false;
      readonly error: KubeError;
      readonly auditId?: string;
      /**
       * Set when the patch may have been applied (re-read the Service to know); absent when it
       * certainly was not (a definite refusal, or the request never reached the API server).
       */
      readonly unknownOutcome?: UnknownOutcomeCause;
    };

/** Result of an access review. */
export type AccessReviewResult =
  | { readonly ok: true; readonly allowed: boolean; readonly reason: string | null }
  | { readonly ok: false; readonly error: KubeError };

/** Result of reading a Service's annotations. */
export type ReadServiceResult =
  | { readonly ok: true; readonly resourceVersion: string; readonly annotations: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly error: KubeError };

/** Options of the mutation calls. */
export interface MutationOptions {
  /** Timeout of the request in ms (default: the connection's request timeout). */
  readonly timeoutMs?: number;
  /** `fieldManager` recorded in managedFields (default `zonescope`). */
  readonly fieldManager?: string;
}

/** RFC 1123 label (namespaces). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** RFC 1035 label (Service names). */
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** Annotation key: optional DNS subdomain prefix, `/`, qualified name. */
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether `value` is a valid namespace name. */
export function isValidNamespace(value: string): boolean {
  return value.length <= 63 && DNS_LABEL.test(value);
}

/** Whether `value` is a valid Service name. */
export function isValidServiceName(value: string): boolean {
  return value.length <= 63 && DNS_1035_LABEL.test(value);
}

/** Whether `key` is a valid annotation key (`prefix/name` or `name`). */
export function isValidAnnotationKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) return false;
  return prefix === null || (prefix.length > 0 && prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
}

function badRequest(message: string): { ok: false; error: KubeError } {
  return { ok: false, error: { kind: 'bad-request', message } };
}

function validateTarget(namespace: string, name: string): { ok: false; error: KubeError } | null {
  if (!isValidNamespace(namespace)) return badRequest('The namespace is not a valid name.');
  if (!isValidServiceName(name)) return badRequest('The Service name is not a valid name.');
  return null;
}

/** Per-request timeout as a client-node middleware (aborts the fetch; mapped to `timeout`). */
function withTimeout(ms: number, options?: ConfigurationOptions<ObservableMiddleware>): ConfigurationOptions<ObservableMiddleware> {
  const middleware: ObservableMiddleware = {
    pre: (context: RequestContext) => {
      context.setSignal(AbortSignal.timeout(ms));
      return new Observable(Promise.resolve(context));
    },
    post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
  };
  return { ...options, middleware: [...(options?.middleware ?? []), middleware], middlewareMergeStrategy: 'append' };
}

const AUDIT_ID = /^[A-Za-z0-9-]{1,64}$/;

/** Records the API server's `Audit-Id` response header (well-formed values only) as a middleware. */
function auditIdCapture(): { middleware: ObservableMiddleware; auditId: () => string | undefined } {
  let auditId: string | undefined;
  const middleware: ObservableMiddleware = {
    pre: (context: RequestContext) => new Observable(Promise.resolve(context)),
    post: (response: ResponseContext) => {
      const value = response.headers['audit-id'];
      if (typeof value === 'string' && AUDIT_ID.test(value)) auditId = value;
      return new Observable(Promise.resolve(response));
    },
  };
  return { middleware, auditId: () => auditId };
}

/** Transport failures before the request was sent: the API server never saw it. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_INVALID_URL']);
const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH)/;

function transportCode(error: unknown): string | undefined {
  for (let value: unknown = error, depth = 0; typeof value === 'object' && value !== null && depth < 4; depth++) {
    const code = (value as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    value = (value as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether a failed write may still have been applied, and why: `null` for a definite refusal (an
 * API server answer such as 400/403/404/409/422/429, a 503 ServiceUnavailable Status) or a
 * request that never went out (connection refused, DNS, TLS); otherwise the cause.
 */
export function unknownOutcomeOf(thrown: unknown, error: KubeError): UnknownOutcomeCause | null {
  const status = error.status;
  if (status !== undefined) {
    if (status === 504 || status === 408) return 'timeout';
    if (status === 500 || status === 502) return 'server-error';
    if (status === 503) return error.reason === undefined ? 'server-error' : null;
    return null;
  }
  if (error.kind === 'timeout') return 'timeout';
  const code = transportCode(thrown);
  if (code !== undefined && (NOT_SENT_CODES.has(code) || TLS_CODES.test(code))) return null;
  return 'connection-lost';
}

/**
 * Runs a generated-client call; on a 401 with a credential plugin, drops its credential (the same
 * one the informers use) and runs the call once more with a fresh one. A 401 was not applied, so
 * the retry cannot apply a write twice.
 */
async function withCredentialRefresh<T>(connection: KubeConnection, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (thrown) {
    if (errorFromException(thrown).status !== 401 || connection.credentialsRejected?.() !== true) throw thrown;
    return call();
  }
}

function metadataOf(value: unknown): { resourceVersion: string; annotations: Record<string, string> } {
  const metadata = obj(obj(value).metadata);
  return { resourceVersion: str(metadata.resourceVersion) ?? '', annotations: stringMap(metadata.annotations) };
}

/**
 * Sets or removes Service annotations with one JSON merge patch carrying
 * `metadata.resourceVersion: expectedResourceVersion` (409 Conflict when the Service changed
 * since). A `null` value removes the key (as a legacy annotation must be removed alongside the
 * new one). Invalid names or keys are refused before any request (`bad-request`).
 */
export async function patchServiceAnnotations(
  connection: KubeConnection,
  namespace: string,
  name: string,
  annotations: Readonly<Record<string, string | null>>,
  expectedResourceVersion: string,
  options: MutationOptions = {},
): Promise<PatchServiceResult> {
  const invalid = validateTarget(namespace, name);
  if (invalid) return invalid;
  const keys = Object.keys(annotations);
  if (keys.length === 0) return badRequest('No annotation to change.');
  for (const key of keys) if (!isValidAnnotationKey(key)) return badRequest('An annotation key is not valid.');
  if (expectedResourceVersion.trim() === '') {
    return badRequest('The expected resourceVersion is missing.');
  }
  const body = { metadata: { resourceVersion: expectedResourceVersion, annotations: { ...annotations } } };
  const api = connection.kubeConfig.makeApiClient(CoreV1Api);
  const capture = auditIdCapture();
  const withAuditId = (result: PatchServiceResult): PatchServiceResult => {
    const auditId = capture.auditId();
    return auditId === undefined ? result : { ...result, auditId };
  };
  try {
    const patch = (): Promise<unknown> =>
      api.patchNamespacedService(
        { name, namespace, body, fieldManager: options.fieldManager ?? 'zonescope' },
        setHeaderOptions(
          'Content-Type',
          PatchStrategy.MergePatch,
          withTimeout(options.timeoutMs ?? connection.requestTimeoutMs, { middleware: [capture.middleware], middlewareMergeStrategy: 'append' }),
        ),
      );
    const updated: unknown = await withCredentialRefresh(connection, patch);
    const meta = metadataOf(updated);
    if (meta.resourceVersion === '') {
      return withAuditId({ ok: false, error: { kind: 'unknown', message: 'The API server answered the patch without a resourceVersion; re-read the Service.' }, unknownOutcome: 'server-error' });
    }
    return withAuditId({ ok: true, resourceVersion: meta.resourceVersion, annotations: meta.annotations });
  } catch (thrown) {
    const error = errorFromException(thrown);
    const unknownOutcome = unknownOutcomeOf(thrown, error);
    return withAuditId(unknownOutcome === null ? { ok: false, error } : { ok: false, error, unknownOutcome });
  }
}

/**
 * Sets (`value` a string) or removes (`value` null) one Service annotation, optionally removing
 * other keys in the same patch (`alsoRemove`, e.g. the legacy `topology-aware-hints` key when
 * writing `topology-mode`). See {@link patchServiceAnnotations}.
 */
export function patchServiceAnnotation(
  connection: KubeConnection,
  namespace: string,
  name: string,
  key: string,
  value: string | null,
  expectedResourceVersion: string,
  options: MutationOptions & { readonly alsoRemove?: readonly string[] } = {},
): Promise<PatchServiceResult> {
  const annotations: Record<string, string | null> = {};
  for (const other of options.alsoRemove ?? []) if (other !== key) annotations[other] = null;
  annotations[key] = value;
  return patchServiceAnnotations(connection, namespace, name, annotations, expectedResourceVersion, options);
}

/** Reads a Service's current resourceVersion and annotations (to resolve a timeout or show the value after a 409). */
export async function readServiceAnnotations(connection: KubeConnection, namespace: string, name: string, options: MutationOptions = {}): Promise<ReadServiceResult> {
  const invalid = validateTarget(namespace, name);
  if (invalid) return invalid;
  try {
    const response = await connection.request({
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(name)}`,
      timeoutMs: options.timeoutMs ?? connection.requestTimeoutMs,
    });
    if (response.status < 200 || response.status >= 300) {
      return { ok: false, error: errorFromResponse(response.status, response.body, response.headers) };
    }
    const parsed: unknown = JSON.parse(response.body);
    if (!isJsonObject(parsed)) return { ok: false, error: { kind: 'unknown', message: 'The API server sent a Service that is not JSON.' } };
    const meta = metadataOf(parsed);
    return { ok: true, resourceVersion: meta.resourceVersion, annotations: meta.annotations };
  } catch (error) {
    return { ok: false, error: errorFromException(error) };
  }
}

/**
 * Whether the current identity may patch the Service (SelfSubjectAccessReview, verb `patch`,
 * resource `services`). `{ok: true, allowed: false}` is a definite "no"; `{ok: false}` means the
 * review itself failed (treat as not allowed).
 */
export async function canPatchService(connection: KubeConnection, namespace: string, name: string, options: MutationOptions = {}): Promise<AccessReviewResult> {
  const invalid = validateTarget(namespace, name);
  if (invalid) return invalid;
  const api = connection.kubeConfig.makeApiClient(AuthorizationV1Api);
  try {
    const review: unknown = await withCredentialRefresh(connection, () =>
      api.createSelfSubjectAccessReview(
        {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { resourceAttributes: { verb: 'patch', group: '', version: 'v1', resource: 'services', namespace, name } },
          },
        },
        withTimeout(options.timeoutMs ?? connection.requestTimeoutMs),
      ),
    );
    const status = obj(obj(review).status);
    return { ok: true, allowed: status.allowed === true && status.denied !== true, reason: str(status.reason) };
  } catch (error) {
    return { ok: false, error: errorFromException(error) };
  }
}

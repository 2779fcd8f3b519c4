/**
 * `kind: Status` error bodies with the codes, reasons, messages and details a real API server
 * uses, and {@link ApiError}, the exception that carries one through the simulator.
 */
import { groupResource } from './resources';

/** The `reason` values the simulator produces. */
export const STATUS_REASONS = [
  'BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'MethodNotAllowed', 'NotAcceptable', 'AlreadyExists',
  'Conflict', 'Gone', 'Expired', 'RequestEntityTooLarge', 'UnsupportedMediaType', 'Invalid', 'TooManyRequests',
  'InternalError', 'ServiceUnavailable', 'Timeout', 'ServerTimeout',
] as const;

/** A `reason` of a Status. */
export type StatusReason = (typeof STATUS_REASONS)[number];

/** One entry of `details.causes`. */
export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

/** `details` of a Status. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A `meta/v1 Status` object. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string; resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** An error response: thrown inside the simulator, turned into a Status body by the router. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers (e.g. `Retry-After`). */
    readonly headers: Readonly<Record<string, string>> = {},
    /** `metadata.continue` of the Status (an inconsistent-continue token on 410). */
    readonly continueToken?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The Status body for this error. */
  toStatus(): Status {
    return failureStatus(this.code, this.reason, this.message, this.details, this.continueToken);
  }
}

/** Builds a failure Status. */
export function failureStatus(
  code: number,
  reason: StatusReason,
  message: string,
  details?: StatusDetails,
  continueToken?: string,
): Status {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details !== undefined) status.details = details;
  if (continueToken !== undefined) status.metadata.continue = continueToken;
  return status;
}

/** Builds the Success Status a delete returns. */
export function successStatus(details: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

/** Identifies the resource an error is about. */
export interface ErrorTarget {
  group: string;
  /** Plural resource, e.g. `services` (or `deployments/scale` style for subresources where upstream does). */
  resource: string;
  name?: string;
}

const REASON_BY_CODE: Readonly<Record<number, StatusReason>> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed',
  406: 'NotAcceptable', 409: 'Conflict', 410: 'Expired', 413: 'RequestEntityTooLarge', 415: 'UnsupportedMediaType',
  422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout',
};

/** The reason upstream uses for a bare HTTP status code. */
export function reasonForCode(code: number): StatusReason {
  return REASON_BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest');
}

function targetDetails(target: ErrorTarget): StatusDetails {
  const details: StatusDetails = { group: target.group, kind: target.resource };
  if (target.name !== undefined) details.name = target.name;
  return details;
}

/** `services "x" not found` (404 NotFound). */
export function notFound(target: ErrorTarget): ApiError {
  const name = target.name ?? '';
  return new ApiError(404, 'NotFound', `${groupResource(target.group, target.resource)} "${name}" not found`, targetDetails(target));
}

/** `services "x" already exists` (409 AlreadyExists). */
export function alreadyExists(target: ErrorTarget): ApiError {
  const name = target.name ?? '';
  return new ApiError(409, 'AlreadyExists', `${groupResource(target.group, target.resource)} "${name}" already exists`, targetDetails(target));
}

/** The optimistic-concurrency conflict (409 Conflict), worded as upstream. */
export function conflict(target: ErrorTarget, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError {
  const name = target.name ?? '';
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${groupResource(target.group, target.resource)} "${name}": ${why}`,
    targetDetails(target),
  );
}

/** 400 BadRequest with a message. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** 422 Invalid, worded as upstream: `Kind.group "name" is invalid: field: message`. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiError {
  const qualified = group === '' ? kind : `${kind}.${group}`;
  const text = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)).join(', ');
  return new ApiError(422, 'Invalid', `${qualified} "${name}" is invalid: ${text}`, {
    name, group, kind, causes: causes.map((c) => ({ reason: c.reason ?? 'FieldValueInvalid', message: c.message, ...(c.field ? { field: c.field } : {}) })),
  });
}

/** The request attributes an authorization decision is about. */
export interface AuthzAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** 403 Forbidden, worded as upstream RBAC denials. */
export function forbidden(user: string, attrs: AuthzAttributes): ApiError {
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const subject = attrs.name
    ? `${groupResource(attrs.group, attrs.resource)} "${attrs.name}"`
    : groupResource(attrs.group, attrs.resource);
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  const message = `${subject} is forbidden: User "${user}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.group}" ${scope}`;
  const details: StatusDetails = { group: attrs.group, kind: attrs.resource };
  if (attrs.name) details.name = attrs.name;
  return new ApiError(403, 'Forbidden', message, details);
}

/** `410 Expired` as a watch or list from a compacted resourceVersion gets it. */
export function expired(message: string, continueToken?: string): ApiError {
  return new ApiError(410, 'Expired', message, undefined, {}, continueToken);
}

/** An error for an arbitrary status code, with upstream's default message for it. */
export function errorForCode(code: number, message?: string, retryAfterSeconds?: number): ApiError {
  const reason = reasonForCode(code);
  const defaults: Partial<Record<StatusReason, string>> = {
    TooManyRequests: 'Too many requests, please try again later.',
    InternalError: 'Internal error occurred: injected fault',
    ServiceUnavailable: 'the server is currently unable to handle the request',
    Timeout: 'Timeout: request did not complete within the allotted timeout',
    Expired: 'The resourceVersion for the provided list is too old.',
    Conflict: 'Operation cannot be fulfilled: injected conflict',
    Forbidden: 'forbidden: injected fault',
    NotFound: 'the server could not find the requested resource',
    BadRequest: 'the server rejected our request for an unknown reason',
  };
  const details: StatusDetails | undefined = retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined;
  const headers: Record<string, string> = retryAfterSeconds !== undefined ? { 'Retry-After': String(retryAfterSeconds) } : {};
  return new ApiError(code, reason, message ?? defaults[reason] ?? `injected error ${code}`, details, headers);
}

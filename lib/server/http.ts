/**
 * HTTP plumbing shared by the `/api/v1` route handlers: the error envelope and the response of a
 * data-layer error. Request validation is in ./requests.ts, the same-origin check, the write
 * guard and the audit identity in ./origin.ts, and the 503 of a cluster still syncing (it reads
 * the header view) in lib/views/responses.ts.
 *
 * Errors are always `{ "error": { "code": "kind:surface", "message": "..." } }` (plus documented
 * extra fields such as `current` or `progress`); messages are fixed sentences or already-safe
 * {@link KubeError} messages, never raw bodies, headers or stacks.
 */
// ---------------------------------------------------------------------------------------------
// Responses

/** The API surface named after the colon of an error code (`not-found:service`). */
export type ApiSurface = 'cluster' | 'clusters' | 'services' | 'service' | 'topology-mode' | 'api';

/** The error envelope of every `/api/v1` error. */
export interface ApiErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

/** Headers on every API response: never cached (the data is live), never sniffed. */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** A JSON response with {@link API_HEADERS}. */
export function jsonResponse(body: unknown, status = 200, headers: Readonly<Record<string, string>> = {}): Response {
  return Response.json(body, { status, headers: { ...API_HEADERS, ...headers } });
}

/**
 * An error response `{ error: { code: "<kind>:<surface>", message }, ...extra }`.
 * `extra` may not replace `error`.
 */
export function errorResponse(
  status: number,
  kind: string,
  surface: ApiSurface,
  message: string,
  extra: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {},
): Response {
  const { error: _replaced, ...rest } = extra;
  return jsonResponse({ error: { code: `${kind}:${surface}`, message }, ...rest }, status, headers);
}

/** 405 with `Allow`, for every method a route does not implement. */
export function methodNotAllowed(surface: ApiSurface, allow: readonly string[]): Response {
  return errorResponse(405, 'method-not-allowed', surface, `Only ${allow.join(' and ')} ${allow.length === 1 ? 'is' : 'are'} allowed here.`, {}, { Allow: allow.join(', ') });
}

/** Handlers answering 405 for the methods a route does not implement (spread into the route module). */
export function methodNotAllowedHandlers(surface: ApiSurface, allow: readonly string[]): Record<'POST' | 'PATCH' | 'DELETE' | 'OPTIONS', () => Response> {
  const handler = () => methodNotAllowed(surface, allow);
  return { POST: handler, PATCH: handler, DELETE: handler, OPTIONS: handler };
}

/** HTTP status of each error kind the data layer returns. */
export const STATUS_BY_KIND: Readonly<Record<string, number>> = {
  'bad-request': 400,
  'read-only': 403,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  invalid: 422,
  'too-many-requests': 429,
  unauthorized: 502,
  upstream: 502,
  syncing: 503,
  unavailable: 503,
  timeout: 504,
};

/** A data-layer error as the routes map it (see {@link dataErrorResponse}). */
export interface DataError {
  readonly kind: string;
  readonly message: string;
  readonly retryAfterSeconds?: number;
  /** Re-read state after a 409 or timeout; passed through as `current`. */
  readonly current?: unknown;
  /** An unknown outcome resolved by the re-read (`applied`, `not-applied`, `unknown`); passed through as `outcome`. */
  readonly outcome?: string;
  /** Why the outcome was unknown (`timeout`, `connection-lost`, `server-error`); passed through as `cause`. */
  readonly cause?: string;
}

/**
 * The response for a data-layer error: status from {@link STATUS_BY_KIND} (502 for unknown
 * kinds), `current`, `outcome` and `cause` passed through when present, `Retry-After` on 429. A `not-found` is always
 * `not-found:service` (the Service is what is missing).
 */
export function dataErrorResponse(surface: ApiSurface, error: DataError): Response {
  const status = STATUS_BY_KIND[error.kind] ?? 502;
  const kind = STATUS_BY_KIND[error.kind] === undefined ? 'upstream' : error.kind;
  const extra = {
    ...(error.current !== undefined ? { current: error.current } : {}),
    ...(error.outcome !== undefined ? { outcome: error.outcome } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
  };
  const headers: Record<string, string> = error.retryAfterSeconds !== undefined ? { 'Retry-After': String(Math.max(0, Math.ceil(error.retryAfterSeconds))) } : {};
  return errorResponse(status, kind, kind === 'not-found' ? 'service' : surface, error.message, extra, headers);
}

/** A parse result: the value, or the finished error response. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly response: Response };

/** A refused parse: the error response of {@link errorResponse}, as a {@link Parsed}. */
export function fail(status: number, kind: string, surface: ApiSurface, message: string): { ok: false; response: Response } {
  return { ok: false, response: errorResponse(status, kind, surface, message) };
}

/** `text` safe to quote in a message: printable ASCII only, at most `max` characters. */
export function truncate(text: string, max = 64): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

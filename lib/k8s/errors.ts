/**
 * Typed, safe errors from API server responses and transport failures.
 *
 * The message shown to users comes only from the `message` of a Kubernetes `Status` (with
 * anything that looks like a credential redacted), or is a fixed sentence chosen here. Raw
 * bodies, headers, URLs with credentials and exception texts (client-node's `ApiException`
 * message embeds the response headers and body) never reach it. The redaction itself is
 * ./redact.
 */
import { redact } from './redact';

/** What went wrong, as far as a caller needs to decide what to do and what to show. */
export type KubeErrorKind =
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'unauthorized'
  | 'invalid'
  | 'too-many-requests'
  | 'timeout'
  | 'unavailable'
  | 'gone'
  | 'bad-request'
  | 'unknown';

/** A safe error: every field may be shown to a user or logged. */
export interface KubeError {
  readonly kind: KubeErrorKind;
  /** HTTP status code, when the API server answered. */
  readonly status?: number;
  /** `Status.reason` (`Forbidden`, `Conflict`, `Expired`, …), when the API server gave one. */
  readonly reason?: string;
  /** Safe message (from `Status.message`, redacted and bounded, or a fixed sentence). */
  readonly message: string;
  /** Seconds the server asked us to wait (`Retry-After` or `Status.details.retryAfterSeconds`). */
  readonly retryAfterSeconds?: number;
  /**
   * Set when the failure does not go away without the user doing something (a TLS certificate the
   * server's name or our CA does not match, a credential plugin that fails). See {@link isPermanent}.
   */
  readonly permanent?: boolean;
}

/** An `Error` carrying a {@link KubeError}; its `message` is the safe message. */
export class KubeRequestError extends Error {
  readonly error: KubeError;

  constructor(error: KubeError) {
    super(error.message);
    this.name = 'KubeRequestError';
    this.error = error;
  }
}

/** What {@link ResponseTooLargeError} cut: one watch line (event) or a buffered response body (a list page). */
export type TooLargeWhat = 'line' | 'body';

/** `bytes` in MiB for messages: `8`, `0.25`. */
export function formatMiB(bytes: number): string {
  return String(Number((bytes / (1024 * 1024)).toFixed(2)));
}

/**
 * A response was cut because it exceeded a size limit: a watch line longer than the line limit,
 * or a buffered body larger than the response limit. Its message is safe (it names the limit only).
 */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly what: TooLargeWhat,
    /** The limit that was exceeded, in bytes. */
    readonly limitBytes: number,
  ) {
    super(
      what === 'line'
        ? `A watch event exceeded ${formatMiB(limitBytes)} MiB (the limit for one event); the watch is restarted with a fresh list.`
        : `A list response exceeded ${formatMiB(limitBytes)} MiB (the limit for one response).`,
    );
    this.name = 'ResponseTooLargeError';
  }
}

/** Whether `value` is a {@link KubeError}-shaped object. */
export function isKubeError(value: unknown): value is KubeError {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.kind === 'string' && KINDS.includes(v.kind as KubeErrorKind) && typeof v.message === 'string';
}

const KINDS: readonly KubeErrorKind[] = [
  'forbidden', 'not-found', 'conflict', 'unauthorized', 'invalid', 'too-many-requests', 'timeout', 'unavailable', 'gone', 'bad-request', 'unknown',
];

/** The `code` of a Node.js system error (`ENOENT`, `ECONNRESET`, …), `undefined` when it has none. */
export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** The error of a request cut by its time limit (`errorFromException` maps it to `timeout`). */
export function timeoutError(ms: number): Error {
  const error = new Error(`request timed out after ${ms} ms`);
  error.name = 'TimeoutError';
  return error;
}

/** The error of a request or wait cut by its abort signal (`errorFromException` maps it to `timeout`). */
export function abortError(): Error {
  const error = new Error('request aborted');
  error.name = 'AbortError';
  return error;
}

const DEFAULT_MESSAGES: Readonly<Record<KubeErrorKind, string>> = {
  forbidden: 'The API server refused access (403 Forbidden).',
  'not-found': 'The object was not found (404).',
  conflict: 'The object was changed by someone else (409 Conflict).',
  unauthorized: 'The API server rejected the credentials (401 Unauthorized): check the token or client certificate of the kubeconfig user, or get new ones.',
  invalid: 'The API server rejected the request as invalid (422).',
  'too-many-requests': 'The API server is throttling requests (429 Too Many Requests).',
  timeout: 'The request timed out; its outcome is unknown.',
  unavailable: 'The API server is unavailable.',
  gone: 'The requested resource version is too old (410 Gone).',
  'bad-request': 'The API server rejected the request (400 Bad Request).',
  unknown: 'The API server request failed.',
};

/** Kind for an HTTP status code and `Status.reason`. */
export function kindFor(status: number | undefined, reason: string | undefined): KubeErrorKind {
  switch (reason) {
    case 'Forbidden':
      return 'forbidden';
    case 'Unauthorized':
      return 'unauthorized';
    case 'NotFound':
      return 'not-found';
    case 'Conflict':
    case 'AlreadyExists':
      return 'conflict';
    case 'Invalid':
      return 'invalid';
    case 'Gone':
    case 'Expired':
    case 'ResourceExpired':
      return 'gone';
    case 'TooManyRequests':
      return 'too-many-requests';
    case 'Timeout':
    case 'ServerTimeout':
      return 'timeout';
    case 'ServiceUnavailable':
      return 'unavailable';
    case 'BadRequest':
      return 'bad-request';
    default:
      break;
  }
  switch (status) {
    case 400:
      return 'bad-request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not-found';
    case 409:
      return 'conflict';
    case 410:
      return 'gone';
    case 422:
      return 'invalid';
    case 429:
      return 'too-many-requests';
    case 408:
    case 504:
      return 'timeout';
    case 502:
    case 503:
      return 'unavailable';
    default:
      return 'unknown';
  }
}

function parseRetryAfter(value: unknown): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text === 'number' && Number.isFinite(text) && text >= 0) return text;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Parses a body (raw string or object) as a Kubernetes `Status`; `null` when it is not one. */
export function parseStatus(body: unknown): { code?: number; reason?: string; message?: string; retryAfterSeconds?: number } | null {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body) as unknown;
    } catch {
      return null;
    }
  } else if (body instanceof Uint8Array) {
    return parseStatus(Buffer.from(body).toString('utf8'));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const status = value as Record<string, unknown>;
  if (status.kind !== 'Status' && status.status !== 'Failure') return null;
  const out: { code?: number; reason?: string; message?: string; retryAfterSeconds?: number } = {};
  if (typeof status.code === 'number') out.code = status.code;
  if (typeof status.reason === 'string' && status.reason !== '') out.reason = status.reason;
  if (typeof status.message === 'string' && status.message !== '') out.message = status.message;
  const details = status.details;
  if (typeof details === 'object' && details !== null) {
    const retry = (details as Record<string, unknown>).retryAfterSeconds;
    if (typeof retry === 'number' && retry >= 0) out.retryAfterSeconds = retry;
  }
  return out;
}

/** Reads a header from a plain header record, case-insensitively. */
function header(headers: unknown, name: string): unknown {
  if (typeof headers !== 'object' || headers === null) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function' && !(headers instanceof Map)) {
    try {
      return (headers as { get(n: string): unknown }).get(name) ?? undefined;
    } catch {
      return undefined;
    }
  }
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/**
 * Maps an HTTP error response (status code, raw or parsed body, headers) to a {@link KubeError}.
 * Only `Status.message` is used as message text, redacted.
 */
export function errorFromResponse(status: number, body: unknown, headers?: unknown): KubeError {
  const parsed = parseStatus(body);
  const reason = parsed?.reason;
  const kind = kindFor(status, reason);
  const retryAfter = parseRetryAfter(header(headers, 'retry-after')) ?? parsed?.retryAfterSeconds;
  // A bare "Unauthorized" (what API servers say) tells less than our sentence.
  const message = parsed?.message && !(kind === 'unauthorized' && /^unauthorized\.?$/i.test(parsed.message.trim())) ? redact(parsed.message) : DEFAULT_MESSAGES[kind];
  return {
    kind,
    status,
    ...(reason !== undefined ? { reason } : {}),
    message,
    ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
  };
}

/**
 * Maps a watch `ERROR` event's object (a `Status`) to a {@link KubeError} (`code` 410 → `gone`).
 */
export function errorFromWatchStatus(object: unknown): KubeError {
  const parsed = parseStatus(object);
  const code = parsed?.code ?? 500;
  return errorFromResponse(code, object);
}

const NETWORK_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'DNS lookup failed',
  EPIPE: 'connection closed',
  ECONNABORTED: 'connection aborted',
  UND_ERR_SOCKET: 'connection closed',
};

const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH)/;

/** TLS failures that say the configuration is wrong (they fail the same way on every attempt). */
const UNTRUSTED_CA = /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_UNTRUSTED|CERT_SIGNATURE_FAILURE|CERT_CHAIN_TOO_LONG|UNABLE_TO_DECRYPT_CERT_SIGNATURE)$/;

/** A fixed, safe sentence for a TLS failure code, and whether it is permanent. */
function tlsError(code: string, host: unknown, reason: unknown): KubeError {
  const permanent = (message: string): KubeError => ({ kind: 'unavailable', message, permanent: true });
  if (UNTRUSTED_CA.test(code)) {
    return permanent(
      `The API server's TLS certificate is not signed by a CA zonescope trusts (${code}): set certificate-authority or certificate-authority-data of the cluster in the kubeconfig to the CA that signed it.`,
    );
  }
  if (code === 'CERT_HAS_EXPIRED') return permanent(`The API server's TLS certificate has expired (${code}): renew the server certificate, or check the clock of this machine.`);
  if (code === 'CERT_NOT_YET_VALID') return permanent(`The API server's TLS certificate is not valid yet (${code}): check the clock of this machine.`);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    const name = typeof host === 'string' && /^[A-Za-z0-9.:[\]-]{1,253}$/.test(host) ? ` "${host}"` : '';
    return permanent(
      `The API server's TLS certificate is not valid for the host name${name} of the server URL (${code}): use a name the certificate lists, or set tls-server-name of the cluster in the kubeconfig.`,
    );
  }
  if (/^ERR_SSL_(WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST|UNKNOWN_PROTOCOL)$/.test(code)) {
    return permanent(`The API server did not answer with TLS (${code}): check the server URL's scheme (https:// or http://) and port in the kubeconfig.`);
  }
  if (code === 'EPROTO') {
    // Only classified by OpenSSL's fixed reason phrase in the message, which is not shown.
    const text = typeof reason === 'string' ? reason : '';
    const phrase = /wrong version number|packet length too long|http request|unknown protocol|alert [a-z ]{3,40}/i.exec(text)?.[0].toLowerCase() ?? null;
    if (phrase !== null && !phrase.startsWith('alert')) {
      return permanent(`The API server did not answer with TLS (EPROTO: ${phrase}): check the server URL's scheme (https:// or http://) and port in the kubeconfig.`);
    }
    return permanent(`The TLS handshake with the API server failed (EPROTO${phrase !== null ? `: ${phrase}` : ''}): check the cluster's CA and the client certificate of the kubeconfig user.`);
  }
  return { kind: 'unavailable', message: `TLS handshake with the API server failed (${code}).` };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * Maps anything thrown by a request to a {@link KubeError}: our {@link KubeRequestError}, a
 * client-node `ApiException` (`code`, raw string `body`, `headers`), timeouts and aborts
 * (`timeout`), network and TLS failures (`unavailable`), our {@link ResponseTooLargeError}
 * (`unknown`, its fixed message). Other exception messages are never used.
 */
export function errorFromException(error: unknown): KubeError {
  if (error instanceof KubeRequestError) return error.error;
  if (isKubeError(error)) return error;
  // Our own limit: a fixed sentence naming the limit; retryable (status unknown).
  if (error instanceof ResponseTooLargeError) return { kind: 'unknown', message: error.message };
  const code = field(error, 'code');
  // client-node ApiException: numeric code, raw body, headers.
  if (typeof code === 'number' && code >= 400 && code < 600) {
    return errorFromResponse(code, field(error, 'body'), field(error, 'headers'));
  }
  const statusCode = field(error, 'statusCode');
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 600) return errorFromResponse(statusCode, undefined);
  const name = field(error, 'name');
  const type = field(error, 'type');
  if (name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT' || type === 'request-timeout' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return { kind: 'timeout', message: DEFAULT_MESSAGES.timeout };
  }
  if (name === 'AbortError' || type === 'aborted' || code === 'ABORT_ERR') {
    return { kind: 'timeout', message: 'The request was aborted before an answer arrived; its outcome is unknown.' };
  }
  const networkCode = typeof code === 'string' ? code : typeof field(field(error, 'cause'), 'code') === 'string' ? (field(field(error, 'cause'), 'code') as string) : undefined;
  if (networkCode !== undefined) {
    const text = NETWORK_CODES[networkCode];
    if (text !== undefined) return { kind: 'unavailable', message: `Cannot reach the API server (${text}, ${networkCode}).` };
    if (TLS_CODES.test(networkCode) || networkCode === 'EPROTO') {
      const cause = field(error, 'cause');
      return tlsError(networkCode, field(error, 'host') ?? field(cause, 'host'), field(error, 'message') ?? field(cause, 'message'));
    }
    if (/^[A-Z][A-Z0-9_]{2,40}$/.test(networkCode)) return { kind: 'unavailable', message: `The API server request failed (${networkCode}).` };
  }
  return { kind: 'unknown', message: DEFAULT_MESSAGES.unknown };
}

/**
 * Whether the failure stays until the user changes something: credentials the API server refuses
 * (401, a failing credential plugin), a TLS certificate that does not match, a configuration that
 * cannot be used. zonescope still retries them in the background (slowly), but does not wait for
 * them: the first sync fails at once with the cause.
 */
export function isPermanent(error: KubeError): boolean {
  return error.permanent === true || error.kind === 'unauthorized';
}

/** Whether retrying the same request later may succeed (throttling, timeouts, 5xx, network; never a permanent failure). */
export function isRetryable(error: KubeError): boolean {
  if (error.permanent === true) return false;
  return (
    error.kind === 'too-many-requests' ||
    error.kind === 'timeout' ||
    error.kind === 'unavailable' ||
    (error.kind === 'unknown' && (error.status === undefined || error.status >= 500))
  );
}

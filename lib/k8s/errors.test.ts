import { ApiException } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { errorFromException, errorFromResponse, errorFromWatchStatus, isKubeError, isRetryable, KubeRequestError, kindFor, parseStatus, ResponseTooLargeError } from './errors';
import { forgetSecrets, rememberSecret } from './redact';

const TOKEN = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

function status(code: number, reason: string, message: string, details?: Record<string, unknown>): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message, ...(details ? { details } : {}) });
}

describe('kindFor', () => {
  it.each([
    [400, undefined, 'bad-request'],
    [401, undefined, 'unauthorized'],
    [403, undefined, 'forbidden'],
    [404, undefined, 'not-found'],
    [409, undefined, 'conflict'],
    [409, 'AlreadyExists', 'conflict'],
    [410, undefined, 'gone'],
    [410, 'Expired', 'gone'],
    [422, undefined, 'invalid'],
    [429, undefined, 'too-many-requests'],
    [500, undefined, 'unknown'],
    [500, 'InternalError', 'unknown'],
    [500, 'ServerTimeout', 'timeout'],
    [502, undefined, 'unavailable'],
    [503, undefined, 'unavailable'],
    [504, undefined, 'timeout'],
    [504, 'Timeout', 'timeout'],
  ] as const)('%i %s → %s', (code, reason, kind) => {
    expect(kindFor(code, reason)).toBe(kind);
  });
});

describe('errorFromResponse', () => {
  it('takes the message and reason from the Status body only', () => {
    const error = errorFromResponse(403, status(403, 'Forbidden', 'services "web" is forbidden: User "alice" cannot patch resource "services" in API group "" in the namespace "shop"'), {
      'content-type': 'application/json',
      'audit-id': 'abc',
    });
    expect(error).toEqual({
      kind: 'forbidden',
      status: 403,
      reason: 'Forbidden',
      message: 'services "web" is forbidden: User "alice" cannot patch resource "services" in API group "" in the namespace "shop"',
    });
  });

  it('reads Retry-After (header or Status details) on 429', () => {
    expect(errorFromResponse(429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '7' }).retryAfterSeconds).toBe(7);
    expect(errorFromResponse(429, status(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 3 }), {}).retryAfterSeconds).toBe(3);
    expect(errorFromResponse(503, 'upstream connect error', { 'retry-after': ['2'] })).toEqual({
      kind: 'unavailable',
      status: 503,
      message: 'The API server is unavailable.',
      retryAfterSeconds: 2,
    });
  });

  it('never uses a raw non-Status body as message', () => {
    const error = errorFromResponse(500, `<html>proxy error, Authorization: Bearer ${TOKEN}</html>`);
    expect(error.message).toBe('The API server request failed.');
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  it('redacts credentials that a Status message might echo', () => {
    const error = errorFromResponse(401, status(401, 'Unauthorized', `invalid bearer token ${TOKEN} (Authorization: Bearer ${TOKEN})`));
    expect(error.kind).toBe('unauthorized');
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).toContain('[redacted]');
  });
});

describe('errorFromWatchStatus', () => {
  it('maps a watch ERROR event with code 410 to gone', () => {
    const error = errorFromWatchStatus({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version: 5 (12)' });
    expect(error).toMatchObject({ kind: 'gone', status: 410, reason: 'Expired', message: 'too old resource version: 5 (12)' });
  });

  it('treats an ERROR without a code as a server error', () => {
    expect(errorFromWatchStatus({ kind: 'Status', status: 'Failure', message: 'boom' })).toMatchObject({ kind: 'unknown', status: 500, message: 'boom' });
  });
});

describe('errorFromException', () => {
  it('maps a client-node ApiException from its raw string body, ignoring its message (which embeds headers)', () => {
    const body = status(409, 'Conflict', 'Operation cannot be fulfilled on services "web": the object has been modified; please apply your changes to the latest version and try again');
    const exception = new ApiException(409, 'Conflict', body, { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' });
    expect(exception.message).toContain(TOKEN); // why its message must never be shown
    const error = errorFromException(exception);
    expect(error).toEqual({
      kind: 'conflict',
      status: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on services "web": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  it('maps an ApiException without a body (401 from the generated client)', () => {
    expect(errorFromException(new ApiException(401, 'Unauthorized', undefined, {}))).toMatchObject({ kind: 'unauthorized', status: 401 });
  });

  it('maps timeouts and aborts to timeout (outcome unknown)', () => {
    const timeout = new Error('The operation was aborted due to timeout');
    timeout.name = 'TimeoutError';
    expect(errorFromException(timeout).kind).toBe('timeout');
    const abort = Object.assign(new Error('The user aborted a request.'), { name: 'AbortError', type: 'aborted' });
    expect(errorFromException(abort).kind).toBe('timeout');
    expect(errorFromException(Object.assign(new Error('x'), { code: 'ETIMEDOUT' })).kind).toBe('timeout');
  });

  it('maps network and TLS failures to unavailable with the code only', () => {
    const refused = Object.assign(new Error('request to https://user:secret@10.0.0.1:6443/api failed, reason: connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const error = errorFromException(refused);
    expect(error).toEqual({ kind: 'unavailable', message: 'Cannot reach the API server (connection refused, ECONNREFUSED).' });
    const wrapped = Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNRESET' } });
    expect(errorFromException(wrapped).message).toContain('ECONNRESET');
    expect(errorFromException(Object.assign(new Error('x'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })).message).toContain('TLS');
  });

  it('passes KubeRequestError through and hides anything else', () => {
    const inner = { kind: 'gone', status: 410, message: 'expired' } as const;
    expect(errorFromException(new KubeRequestError(inner))).toBe(inner);
    expect(errorFromException(new Error(`secret ${TOKEN}`))).toEqual({ kind: 'unknown', message: 'The API server request failed.' });
    expect(errorFromException('a string')).toEqual({ kind: 'unknown', message: 'The API server request failed.' });
  });
});

describe('helpers', () => {
  it('parseStatus accepts strings, buffers and objects and rejects non-Status', () => {
    expect(parseStatus(status(404, 'NotFound', 'x'))).toEqual({ code: 404, reason: 'NotFound', message: 'x' });
    expect(parseStatus(Buffer.from(status(404, 'NotFound', 'x')))).toMatchObject({ code: 404 });
    expect(parseStatus('not json')).toBeNull();
    expect(parseStatus({ kind: 'Pod' })).toBeNull();
  });

  it('isRetryable covers throttling, timeouts, 5xx and network failures only', () => {
    expect(isRetryable({ kind: 'too-many-requests', message: '' })).toBe(true);
    expect(isRetryable({ kind: 'timeout', message: '' })).toBe(true);
    expect(isRetryable({ kind: 'unavailable', message: '' })).toBe(true);
    expect(isRetryable({ kind: 'unknown', status: 500, message: '' })).toBe(true);
    expect(isRetryable({ kind: 'forbidden', status: 403, message: '' })).toBe(false);
    expect(isRetryable({ kind: 'conflict', status: 409, message: '' })).toBe(false);
    expect(isKubeError({ kind: 'gone', message: 'x' })).toBe(true);
    expect(isKubeError({ kind: 'nope', message: 'x' })).toBe(false);
  });
});

describe('the connection\'s own credentials', () => {
  afterEach(() => forgetSecrets());

  const SECRET = 'Zq8-opaque_Credential/Value+42';

  it('are redacted in Status messages mapped into errors', () => {
    rememberSecret(SECRET);
    const error = errorFromResponse(401, status(401, 'Unauthorized', `credential ${SECRET} rejected`));
    expect(error.message).toBe('credential [redacted] rejected');
  });
});

describe('ResponseTooLargeError', () => {
  it('maps to a retryable, safe error naming the limit', () => {
    const line = errorFromException(new ResponseTooLargeError('line', 8 * 1024 * 1024));
    expect(line.message).toMatch(/^A watch event exceeded 8 MiB/);
    expect(isRetryable(line)).toBe(true);
    expect(errorFromException(new ResponseTooLargeError('body', 32 * 1024 * 1024)).message).toMatch(/^A list response exceeded 32 MiB/);
    expect(errorFromException(new ResponseTooLargeError('line', 256 * 1024)).message).toMatch(/^A watch event exceeded 0\.25 MiB/);
  });
});

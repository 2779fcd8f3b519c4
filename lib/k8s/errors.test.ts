import { ApiException } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  errorFromException,
  errorFromResponse,
  errorFromWatchStatus,
  forgetSecrets,
  isKubeError,
  isRetryable,
  KubeRequestError,
  kindFor,
  parseStatus,
  redact,
  rememberSecret,
  ResponseTooLargeError,
} from './errors';

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

  it('redact bounds the length and removes control characters', () => {
    expect(redact('a'.repeat(2000)).length).toBeLessThanOrEqual(500);
    expect(redact('line\u0000one\u001b[31m')).toBe('line one [31m');
    expect(redact('password=hunter2 token: abc')).toBe('password=[redacted] token: [redacted]');
    expect(redact('https://admin:pw@example.com/x')).toBe('https://[redacted]@example.com/x');
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

describe('redact: credential patterns', () => {
  it.each([
    ['token followed by its value (an authenticator echoing it)', 'Unauthorized: token abc.def123 is invalid', 'Unauthorized: token [redacted] is invalid'],
    ['token followed by a long opaque value', 'token kx7Qm2pZr9LwT4vB8nYc failed', 'token [redacted] failed'],
    ['access_token=', 'GET /x?access_token=s3cr3t-v4lue&watch=1', 'GET /x?access_token=[redacted]&watch=1'],
    ['?token= query parameter', 'https://10.0.0.1/api?token=abc123&limit=5', 'https://10.0.0.1/api?token=[redacted]&limit=5'],
    ['AWS_SECRET_ACCESS_KEY=', 'env AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY set', 'env AWS_SECRET_ACCESS_KEY=[redacted] set'],
    ['AWS access key id', 'key AKIAIOSFODNN7EXAMPLE denied', 'key [redacted] denied'],
    ['client-key-data:', 'bad kubeconfig: client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==', 'bad kubeconfig: client-key-data: [redacted]'],
    ['client-certificate-data:', 'client-certificate-data: QUJDREVGR0hJSktMTU5PUA==', 'client-certificate-data: [redacted]'],
    ['a bare base64 PEM block', 'got LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2 here', 'got [redacted] here'],
    ['api_key=', 'webhook failed: api_key=12345abcde', 'webhook failed: api_key=[redacted]'],
    ['apiKey: (JSON)', '{"apiKey": "k-123 456", "ok": true}', '{"apiKey": "[redacted]", "ok": true}'],
    ['X-Api-Key:', 'X-Api-Key: abcdef', 'X-Api-Key: [redacted]'],
    ['access-key=', 'access-key=AK123', 'access-key=[redacted]'],
    ['client_secret=', 'oidc: client_secret=shh-123 rejected', 'oidc: client_secret=[redacted] rejected'],
    ['PASSWORD (upper case)', 'DB_PASSWORD=hunter22', 'DB_PASSWORD=[redacted]'],
    ['Cookie header', 'Cookie: session=abcdef', 'Cookie: [redacted]'],
    ['presigned URL signature', 'https://s3/x?X-Amz-Signature=abc123&X-Amz-Credential=AK%2F2024', 'https://s3/x?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]'],
    ['Bearer (any case)', 'authorization: BEARER abc.def', 'authorization: BEARER [redacted]'],
  ])('%s', (_what, input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('removes private key PEM blocks, even cut off', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7v\nabcDEF==\n-----END RSA PRIVATE KEY-----';
    expect(redact(`cannot use ${pem} as key`)).toBe('cannot use [redacted private key] as key');
    expect(redact('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC')).toBe('[redacted private key]');
  });

  it('keeps ordinary API server messages as they are', () => {
    for (const message of [
      'services "web" is forbidden: User "system:serviceaccount:zonescope:zonescope" cannot list resource "services" in API group "" at the cluster scope',
      'Operation cannot be fulfilled on services "web": the object has been modified; please apply your changes to the latest version and try again',
      'too old resource version: 5 (12)',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results.',
      'the server has asked for the client to provide credentials',
      'Unauthorized',
      'secrets "db-credentials" not found',
      'selfsubjectaccessreviews.authorization.k8s.io is forbidden',
      'token has expired',
      'invalid bearer token',
      'the token is not valid',
      'Internal error occurred: resource quota evaluation timed out',
      'A watch event exceeded 8 MiB (the limit for one event); the watch is restarted with a fresh list.',
    ]) {
      expect(redact(message)).toBe(message);
    }
  });
});

describe('redact: the connection\'s own credentials', () => {
  afterEach(() => forgetSecrets());

  const SECRET = 'Zq8-opaque_Credential/Value+42';

  it('replaces a remembered credential wherever it appears, also URL-encoded and base64', () => {
    rememberSecret(SECRET);
    const message = `rejected '${SECRET}' (${encodeURIComponent(SECRET)}; ${Buffer.from(SECRET).toString('base64')}; ${Buffer.from(SECRET).toString('base64url')})`;
    const out = redact(message);
    expect(out).toBe("rejected '[redacted]' ([redacted]; [redacted]; [redacted])");
  });

  it('finds a credential beyond the shown length, before the message is cut', () => {
    rememberSecret(SECRET);
    const out = redact(`${'a'.repeat(480)} ${SECRET}`);
    expect(out).not.toContain(SECRET.slice(0, 10));
  });

  it('remembers key and certificate data in their PEM, base64 and line forms', () => {
    const body = 'MIIEowIBAAKCAQEAzFakeKeyMaterialForTestsOnly0123456789abcdefghijKLMNOP';
    const pem = `-----BEGIN EC PRIVATE KEY-----\n${body}\n-----END EC PRIVATE KEY-----\n`;
    rememberSecret(Buffer.from(pem));
    expect(redact(`key ${Buffer.from(pem).toString('base64')} is bad`)).toBe('key [redacted] is bad');
    expect(redact(`material ${body} leaked`)).toBe('material [redacted] leaked');
  });

  it('ignores values too short to be told apart from ordinary words', () => {
    rememberSecret('pw');
    rememberSecret('');
    rememberSecret(undefined);
    expect(redact('the pw is ok')).toBe('the pw is ok');
  });

  it('applies to Status messages mapped into errors', () => {
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

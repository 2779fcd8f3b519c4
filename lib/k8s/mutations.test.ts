import { describe, expect, it } from 'vitest';
import type { KubeError } from './errors';
import { unknownOutcomeOf } from './mutations';

const answered = (status: number, reason?: string): KubeError => ({ kind: 'unknown', status, message: 'x', ...(reason !== undefined ? { reason } : {}) });
const transport: KubeError = { kind: 'unavailable', message: 'x' };

describe('unknownOutcomeOf: whether a failed PATCH may still have been applied', () => {
  it.each([
    [500, 'InternalError', 'server-error'],
    [500, 'ServerTimeout', 'server-error'],
    [502, undefined, 'server-error'],
    [503, undefined, 'server-error'],
    [504, 'Timeout', 'timeout'],
    [408, undefined, 'timeout'],
  ] as const)('%i %s → %s', (status, reason, cause) => {
    expect(unknownOutcomeOf(undefined, answered(status, reason))).toBe(cause);
  });

  it.each([400, 401, 403, 404, 409, 422, 429, 501])('a definite refusal (%i) is not unknown', (status) => {
    expect(unknownOutcomeOf(undefined, answered(status))).toBeNull();
  });

  it('a 503 ServiceUnavailable Status from the API server is a refusal', () => {
    expect(unknownOutcomeOf(undefined, answered(503, 'ServiceUnavailable'))).toBeNull();
  });

  it('our own timeout or abort is unknown', () => {
    expect(unknownOutcomeOf({ name: 'TimeoutError' }, { kind: 'timeout', message: 'x' })).toBe('timeout');
  });

  it.each(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED'])('a connection lost after sending (%s) is unknown', (code) => {
    expect(unknownOutcomeOf({ code }, transport)).toBe('connection-lost');
    expect(unknownOutcomeOf({ message: 'fetch failed', cause: { code } }, transport)).toBe('connection-lost');
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID'])('a request that never went out (%s) is not unknown', (code) => {
    expect(unknownOutcomeOf({ code }, transport)).toBeNull();
  });

  it('an unrecognised failure is unknown (re-read rather than claim a refusal)', () => {
    expect(unknownOutcomeOf(new Error('boom'), { kind: 'unknown', message: 'x' })).toBe('connection-lost');
  });
});

/** A credential plugin's output read as an ExecCredential (lib/k8s/exec-credential/credential.ts). */
import { describe, expect, it } from 'vitest';
import { parseExecCredential } from './credential';

const V1 = 'client.authentication.k8s.io/v1';

describe('parseExecCredential', () => {
  const out = (status: Record<string, unknown>, apiVersion = V1) => JSON.stringify({ apiVersion, kind: 'ExecCredential', status });

  it('reads a token with or without expirationTimestamp, and client certificates', () => {
    expect(parseExecCredential(out({ token: 't', expirationTimestamp: '2030-01-01T00:00:00Z' }), V1)).toEqual({ token: 't', clientCertificateData: null, clientKeyData: null, expiresAt: Date.parse('2030-01-01T00:00:00Z') });
    expect(parseExecCredential(out({ token: 't' }), V1)).toMatchObject({ expiresAt: null });
    expect(parseExecCredential(out({ clientCertificateData: 'C', clientKeyData: 'K' }), V1)).toMatchObject({ token: null, clientCertificateData: 'C', clientKeyData: 'K' });
  });

  it('says what is wrong with output that is not a usable ExecCredential', () => {
    expect(parseExecCredential('', V1)).toBe('it printed nothing on stdout');
    expect(parseExecCredential('token', V1)).toBe('its output is not JSON');
    expect(parseExecCredential(out({ token: 't' }, 'client.authentication.k8s.io/v1beta1'), V1)).toContain('the kubeconfig asks for');
    expect(parseExecCredential(out({}), V1)).toBe('it returned neither a token nor a client certificate');
    expect(parseExecCredential(out({ clientCertificateData: 'C' }), V1)).toContain('without its key');
    expect(parseExecCredential(out({ token: 't', expirationTimestamp: 'tomorrow' }), V1)).toBe('its expirationTimestamp is not an RFC 3339 time');
  });
});

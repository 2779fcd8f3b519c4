/** Redaction of credentials in messages (lib/k8s/redact.ts): shapes of credentials, and the connection's own ones remembered. */
import { afterEach, describe, expect, it } from 'vitest';
import { forgetSecrets, redact, rememberSecret } from './redact';

describe('redact', () => {
  it('bounds the length and removes control characters', () => {
    expect(redact('a'.repeat(2000)).length).toBeLessThanOrEqual(500);
    expect(redact('line\u0000one\u001b[31m')).toBe('line one [31m');
    expect(redact('password=hunter2 token: abc')).toBe('password=[redacted] token: [redacted]');
    expect(redact('https://admin:pw@example.com/x')).toBe('https://[redacted]@example.com/x');
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

  it('redacts a whole name=value whose value has a remembered credential inside it, not leaving its end', () => {
    rememberSecret('hunter2');
    expect(redact('DB_PASSWORD=hunter22 rejected')).toBe('DB_PASSWORD=[redacted] rejected');
    expect(redact('"password": "xhunter2y"')).toBe('"password": "[redacted]"');
  });

  it('ignores values too short to be told apart from ordinary words', () => {
    rememberSecret('pw');
    rememberSecret('');
    rememberSecret(undefined);
    expect(redact('the pw is ok')).toBe('the pw is ok');
  });
});

describe('redact keeps plugin prose', () => {
  it('keeps "Token: Token for dev does not exist" but still hides name: value credentials', () => {
    expect(redact('Error loading SSO Token: Token for dev does not exist')).toBe('Error loading SSO Token: Token for dev does not exist');
    expect(redact('X-Api-Key: abcdef')).toBe('X-Api-Key: [redacted]');
    expect(redact('password: Hunter2 is wrong')).toBe('password: [redacted] is wrong');
  });
});

/**
 * The pure parts of the credential-plugin support: kubeconfig `exec` parsing, the command shown in
 * messages, the hints per plugin, login-prompt detection and ExecCredential parsing.
 */
import { describe, expect, it } from 'vitest';
import { redact } from './errors';
import type { ExecConfig } from './exec-credential';
import { describeCommand, execHint, loginPrompt, parseExecConfig, parseExecCredential } from './exec-credential';

const V1 = 'client.authentication.k8s.io/v1';

function config(exec: Record<string, unknown>): ExecConfig {
  const parsed = parseExecConfig({ apiVersion: V1, ...exec });
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('parseExecConfig', () => {
  it('reads command, args, env, installHint and interactiveMode', () => {
    expect(config({ command: 'aws', args: ['eks', 'get-token'], env: [{ name: 'AWS_PROFILE', value: 'dev' }], installHint: 'get it', interactiveMode: 'Never', provideClusterInfo: true })).toEqual({
      command: 'aws',
      args: ['eks', 'get-token'],
      env: [{ name: 'AWS_PROFILE', value: 'dev' }],
      apiVersion: V1,
      installHint: 'get it',
      interactiveMode: 'Never',
      provideClusterInfo: true,
    });
  });

  it('says what is wrong with an unusable exec section', () => {
    expect(parseExecConfig({ apiVersion: V1 })).toBe('its exec section has no command');
    expect(parseExecConfig({ command: 'x' })).toBe('its exec section has no apiVersion');
    expect(parseExecConfig({ command: 'x', apiVersion: 'client.authentication.k8s.io/v1alpha1' })).toContain('is not supported');
  });
});

describe('describeCommand', () => {
  it('shows the command line but hides the values of secret flags', () => {
    expect(describeCommand({ command: 'kubelogin', args: ['get-token', '--login', 'spn', '--client-id', 'abc', '--client-secret', 's3cr3t-value'] })).toBe(
      'kubelogin get-token --login spn --client-id abc --client-secret [redacted]',
    );
    expect(describeCommand({ command: 'plugin', args: ['--token=abc123', 'two words'] })).toBe('plugin --token=[redacted] "two words"');
  });
});

describe('execHint', () => {
  it('says which login to run, per plugin', () => {
    expect(execHint(config({ command: 'aws', args: ['eks', 'get-token', '--profile', 'dev'] }), 'failed')).toContain('`aws sso login --profile dev`');
    expect(execHint(config({ command: '/usr/local/bin/aws', args: ['eks', 'get-token'], env: [{ name: 'AWS_PROFILE', value: 'prod' }] }), 'login')).toContain('`aws sso login --profile prod`');
    expect(execHint(config({ command: 'aws', args: ['eks', 'get-token'] }), 'failed')).toContain('`aws sso login`');
    expect(execHint(config({ command: 'gke-gcloud-auth-plugin' }), 'not-found')).toContain('gcloud components install gke-gcloud-auth-plugin');
    expect(execHint(config({ command: 'kubelogin', args: ['get-token'] }), 'login')).toContain('`kubelogin convert-kubeconfig -l azurecli`');
    expect(execHint(config({ command: 'my-plugin', args: ['--x'] }), 'failed')).toBe('Run `my-plugin --x` in a terminal to see what it needs');
    expect(execHint(config({ command: 'my-plugin', installHint: 'brew install my-plugin' }), 'not-found')).toContain('The kubeconfig says: brew install my-plugin');
  });
});

describe('loginPrompt', () => {
  it('finds a login URL or device code in what a plugin printed', () => {
    expect(loginPrompt('starting\nTo sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code ABCD1234 to authenticate.\n')).toBe(
      'To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code ABCD1234 to authenticate.',
    );
    expect(loginPrompt('Enter user code: WDJB-MJHT')).toBe('Enter user code: WDJB-MJHT');
    expect(loginPrompt('error: exec plugin failed')).toBeNull();
  });
});

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

describe('redact keeps plugin prose', () => {
  it('keeps "Token: Token for dev does not exist" but still hides name: value credentials', () => {
    expect(redact('Error loading SSO Token: Token for dev does not exist')).toBe('Error loading SSO Token: Token for dev does not exist');
    expect(redact('X-Api-Key: abcdef')).toBe('X-Api-Key: [redacted]');
    expect(redact('password: Hunter2 is wrong')).toBe('password: [redacted] is wrong');
  });
});

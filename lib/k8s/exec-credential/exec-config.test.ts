/** A kubeconfig user's `exec` section as zonescope reads it, and its command line as messages show it (lib/k8s/exec-credential/exec-config.ts). */
import { describe, expect, it } from 'vitest';
import type { ExecConfig } from './exec-config';
import { describeCommand, parseExecConfig } from './exec-config';

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

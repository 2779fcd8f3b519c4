/** What a failing credential plugin's messages say (lib/k8s/exec-credential/messages.ts): what to run per plugin, and a login prompt it printed. */
import { describe, expect, it } from 'vitest';
import type { ExecConfig } from './exec-config';
import { parseExecConfig } from './exec-config';
import { execHint, loginPrompt } from './messages';

const V1 = 'client.authentication.k8s.io/v1';

function config(exec: Record<string, unknown>): ExecConfig {
  const parsed = parseExecConfig({ apiVersion: V1, ...exec });
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

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

/** Connection options from the configuration (lib/k8s/connection-options.ts): a kubeconfig, else the in-cluster service account, else nothing. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../config/config';
import { connectionOptionsFromEnv } from './connection-options';

const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-conn-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('connectionOptionsFromEnv', () => {
  it('prefers KUBECONFIG, then in-cluster, else nothing', () => {
    expect(connectionOptionsFromEnv(configFromEnv({ KUBECONFIG: '/k', ZONESCOPE_CONTEXT: 'prod', ZONESCOPE_REQUEST_TIMEOUT_MS: '5000', HOME: tmp }))).toEqual({
      kubeconfig: '/k',
      context: 'prod',
      requestTimeoutMs: 5000,
      proxyEnv: {},
    });
    expect(connectionOptionsFromEnv(configFromEnv({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', HOME: tmp }))).toEqual({
      inCluster: true,
      serviceHost: '10.96.0.1',
      servicePort: '443',
      proxyEnv: {},
    });
    expect(connectionOptionsFromEnv(configFromEnv({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', ZONESCOPE_SERVICEACCOUNT_DIR: '/sa', HOME: tmp }))).toMatchObject({
      inCluster: true,
      serviceAccountDir: '/sa',
    });
    expect(connectionOptionsFromEnv(configFromEnv({ HOME: tmp }))).toBeNull();
    // A timeout that is no number stops the start (it used to fall back to the default).
    expect(() => configFromEnv({ HOME: tmp, ZONESCOPE_REQUEST_TIMEOUT_MS: 'soon', KUBECONFIG: '/k' })).toThrow('ZONESCOPE_REQUEST_TIMEOUT_MS must be a number greater than 0, not "soon".');
    expect(connectionOptionsFromEnv(configFromEnv({ KUBECONFIG: '/k', ZONESCOPE_EXEC_TIMEOUT_MS: '5000', ZONESCOPE_KEEPALIVE: 'off' }))).toMatchObject({ exec: { timeoutMs: 5000 }, keepAlive: false });
    // Only the proxy variables are handed on.
    expect(connectionOptionsFromEnv(configFromEnv({ KUBECONFIG: '/k', HTTPS_PROXY: 'http://proxy:3128', no_proxy: '.internal', PATH: '/bin' }))?.proxyEnv).toEqual({
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: '.internal',
    });
  });
});

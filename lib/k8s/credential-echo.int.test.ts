/**
 * An API server (or an authenticating proxy) that echoes the credentials it received in a
 * `Status` message must not make the dashboard show or log them: the token never reaches the
 * statuses and problems the header shows (`lib/views/header`) nor the informer log, whatever the
 * token's source (static kubeconfig token, exec plugin) and whether the message uses a pattern
 * the redactor knows (`token <value>`) or none at all.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { service } from '../../sim/test-support';
import { LiveClusterSource } from './cluster-sources/live-source';
import { createConnection } from './connection';
import { forgetSecrets } from './redact';
import type { InformerLogEvent } from './informer/options';

const sims: Simulator[] = [];
const states: LiveClusterSource[] = [];

afterEach(async () => {
  await Promise.all(states.splice(0).map((state) => state.stop()));
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
  forgetSecrets();
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An opaque token no pattern recognises on its own (no JWT shape, no `token=` around it). */
function opaqueToken(): string {
  return `zs${randomBytes(24).toString('hex')}Q`;
}

async function startSim(token: string, options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, log: () => undefined, token, requireToken: true, objects: [service('web')], ...options });
  sims.push(sim);
  return sim;
}

function startState(kubeconfigText: string, logs: InformerLogEvent[]): LiveClusterSource {
  const connection = createConnection({ kubeconfigText, requestTimeoutMs: 2000 });
  if (!connection.ok) throw new Error(connection.message);
  const state = new LiveClusterSource(connection.connection, {
    resources: ['services', 'endpointslices', 'pods', 'nodes'],
    informer: { backoff: { initialMs: 20, maxMs: 100 }, forbiddenRetryMs: 100, listTimeoutMs: 2000 },
    log: (event) => logs.push(event),
  });
  states.push(state);
  state.start();
  return state;
}

/** Everything the header and `/api/v1/cluster` show about the source, and the log lines. */
function shown(state: LiveClusterSource, logs: readonly InformerLogEvent[]): string {
  const statuses = state.statuses();
  return JSON.stringify({
    stale: statuses.filter((s) => s.health === 'stale').map((s) => ({ title: s.title, message: s.error?.message ?? null })),
    forbidden: statuses.filter((s) => s.health === 'forbidden').map((s) => ({ title: s.title, message: s.error?.message ?? null })),
    statuses,
    problems: state.problems(),
    log: logs.map((event) => `[zonescope] ${event.resource}: ${event.message}`),
  });
}

function forms(token: string): string[] {
  return [token, encodeURIComponent(token), Buffer.from(token).toString('base64'), Buffer.from(token).toString('base64url'), token.slice(0, 16)];
}

/** Faults that echo the request's token: with a known pattern, bare, encoded, on lists and on a watch. */
function echoFaults(sim: Simulator): void {
  sim.faults.add({ type: 'error', code: 401, reason: 'Unauthorized', echoToken: true, verb: 'list', resource: 'services' });
  sim.faults.add({
    type: 'error', code: 500, echoToken: true, verb: 'list', resource: 'endpointslices',
    message: "authenticator webhook said: credential '{token}' unknown ({token:url}; {token:base64})",
  });
  sim.faults.add({ type: 'error', code: 403, reason: 'Forbidden', echoToken: true, verb: 'list', resource: 'pods', message: 'pods is forbidden for {token}: access_token={token} api_key={token}' });
}

describe('credentials echoed by the API server', () => {
  it('never shows or logs the static kubeconfig token', { timeout: 15_000 }, async () => {
    const token = opaqueToken();
    const sim = await startSim(token);
    echoFaults(sim);
    const logs: InformerLogEvent[] = [];
    const state = startState(sim.kubeconfig(), logs);
    await waitFor(() => state.status('services').health === 'stale' && state.status('endpointslices').health === 'stale' && state.status('pods').health === 'forbidden', 'the echoing errors');

    // A watch error too: nodes synced, then its watch is refused with the token in the message.
    await waitFor(() => state.status('nodes').health === 'synced', 'nodes to sync');
    sim.faults.add({ type: 'error', code: 401, reason: 'Unauthorized', echoToken: true, verb: 'watch', resource: 'nodes', message: 'Unauthorized: token {token} is invalid' });
    sim.faults.dropWatches('nodes');
    await waitFor(() => state.status('nodes').health === 'stale', 'the nodes watch to fail');
    await waitFor(() => logs.length >= 4, 'the log events');

    const text = shown(state, logs);
    for (const form of forms(token)) expect(text).not.toContain(form);
    expect(state.status('services').error?.message).toBe('Unauthorized: token [redacted] is invalid');
    expect(state.status('endpointslices').error?.message).toBe("authenticator webhook said: credential '[redacted]' unknown ([redacted]; [redacted])");
    expect(state.status('pods').error?.message).toBe('pods is forbidden for [redacted]: access_token=[redacted] api_key=[redacted]');
    expect(state.status('nodes').error?.message).toBe('Unauthorized: token [redacted] is invalid');
  });

  it('never shows or logs a token from an exec credential plugin', { timeout: 15_000 }, async () => {
    const token = opaqueToken();
    const sim = await startSim(token);
    echoFaults(sim);
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token } });
    const kubeconfigText = [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: sim, cluster: {server: "${sim.url}", insecure-skip-tls-verify: true}}]`,
      'users: [{name: plugin, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ' + JSON.stringify(process.execPath) +
        ', args: ["-e", ' + JSON.stringify(`process.stdout.write(${JSON.stringify(credential)})`) + '], interactiveMode: Never}}}]',
      'contexts: [{name: sim, context: {cluster: sim, user: plugin}}]',
      'current-context: sim',
      '',
    ].join('\n');
    const logs: InformerLogEvent[] = [];
    const state = startState(kubeconfigText, logs);
    await waitFor(() => state.status('services').health === 'stale' && state.status('endpointslices').health === 'stale' && state.status('pods').health === 'forbidden', 'the echoing errors');
    await waitFor(() => state.status('nodes').health === 'synced', 'nodes to sync with the plugin token');
    const text = shown(state, logs);
    for (const form of forms(token)) expect(text).not.toContain(form);
    expect(state.status('endpointslices').error?.message).toContain("credential '[redacted]' unknown");
  });
});

/**
 * The liveness probe with a scripted connection (the frozen server over real HTTP is
 * ./liveness.int.test.ts): what counts as an answer, two silent probes in a row, recovery.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeConnection, KubeHttpRequest, KubeHttpResponse } from '../connection';
import { KubeRequestError } from '../errors';
import type { Silence } from './liveness';
import { LivenessProbe, silenceMessage } from './liveness';

type Answer = 'ok' | 'forbidden' | 'timeout' | 'refused' | 'plugin-failed';

/** A connection whose `/readyz` answers as scripted, one answer per probe (the last one repeats). */
function scripted(answers: Answer[]): { connection: KubeConnection; requests: KubeHttpRequest[] } {
  const requests: KubeHttpRequest[] = [];
  const connection = {
    kubeConfig: undefined as never,
    contextName: 'test',
    serverUrl: 'http://test',
    source: 'kubeconfig' as const,
    requestTimeoutMs: 1000,
    request: async (request: KubeHttpRequest): Promise<KubeHttpResponse> => {
      requests.push(request);
      const answer = answers.length > 1 ? answers.shift() : answers[0];
      switch (answer) {
        case 'forbidden':
          return { status: 403, headers: {}, body: '{"kind":"Status","code":403}' };
        case 'timeout':
          throw new KubeRequestError({ kind: 'timeout', message: 'timed out' });
        case 'refused':
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        case 'plugin-failed':
          throw new KubeRequestError({ kind: 'unauthorized', message: 'the credential plugin failed', permanent: true });
        default:
          return { status: 200, headers: {}, body: 'ok' };
      }
    },
    openStream: () => Promise.reject(new Error('no streams')),
  } satisfies KubeConnection;
  return { connection, requests };
}

const probes: LivenessProbe[] = [];
afterEach(() => {
  for (const probe of probes.splice(0)) probe.stop();
});

function start(answers: Answer[], lastHeardAt: () => number | null = () => null): { probe: LivenessProbe; changes: (Silence | null)[]; requests: KubeHttpRequest[] } {
  const { connection, requests } = scripted(answers);
  const changes: (Silence | null)[] = [];
  const probe = new LivenessProbe(connection, { intervalMs: 20, timeoutMs: 5, failures: 2 }, (silence) => changes.push(silence), lastHeardAt);
  probes.push(probe);
  probe.start();
  return { probe, changes, requests };
}

describe('LivenessProbe', () => {
  it('asks GET /readyz with its time limit; any HTTP answer, a 403 too, keeps the server answering', async () => {
    const { probe, requests } = start(['ok', 'forbidden', 'forbidden', 'ok']);
    await expect.poll(() => requests.length, { timeout: 2000, interval: 5 }).toBeGreaterThanOrEqual(5);
    expect(requests[0]).toMatchObject({ path: '/readyz', timeoutMs: 5 });
    expect(probe.silence()).toBeNull();
  });

  it('calls the server silent after two probes in a row without an answer, since its last answer; answers again once one comes', async () => {
    const before = Date.now();
    const { probe, changes, requests } = start(['ok', 'timeout', 'ok', 'timeout', 'refused', 'refused', 'ok']);
    await expect.poll(() => changes.length, { timeout: 2000, interval: 5 }).toBe(2);
    // One failure alone (the second probe) said nothing; the fourth and fifth did.
    expect(requests.length).toBeGreaterThanOrEqual(7);
    const [silence, recovered] = changes;
    expect(silence?.error).toMatchObject({ kind: 'timeout' });
    expect(silence?.error.message).toMatch(/^The API server has not answered for \d+ s\.$/);
    expect(Date.parse(silence?.since ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(recovered).toBeNull();
    expect(probe.silence()).toBeNull();
  });

  it('asks nothing while the watches deliver (events or bookmarks), and probes once they stop', async () => {
    let delivering = true;
    let lastDelivery = Date.now();
    let looked = 0;
    const watches = setInterval(() => {
      if (delivering) lastDelivery = Date.now();
    }, 5);
    try {
      const { probe, requests } = start(['ok', 'ok', 'ok'], () => {
        looked++;
        return lastDelivery;
      });
      // Five probe times have come and gone while the watches delivered: no request.
      await expect.poll(() => looked, { timeout: 2000, interval: 5 }).toBeGreaterThanOrEqual(5);
      expect(requests).toHaveLength(0);
      delivering = false;
      await expect.poll(() => requests.length, { timeout: 2000, interval: 5 }).toBeGreaterThanOrEqual(1);
      expect(requests[0]).toMatchObject({ path: '/readyz' });
      expect(probe.silence()).toBeNull();
    } finally {
      clearInterval(watches);
    }
  });

  it('does not count a failure of our own (a credential plugin) as the server being silent', async () => {
    const { probe, changes, requests } = start(['plugin-failed']);
    await expect.poll(() => requests.length, { timeout: 2000, interval: 5 }).toBeGreaterThanOrEqual(4);
    expect(changes).toEqual([]);
    expect(probe.silence()).toBeNull();
  });

  it('words a silence in whole seconds', () => {
    expect(silenceMessage(25_049)).toBe('The API server has not answered for 25 s.');
    expect(silenceMessage(200)).toBe('The API server has not answered for 1 s.');
  });
});

/**
 * Informer behaviour with a scripted connection: malformed watch lines, ERROR events, bounded
 * backoff while the server is unreachable, unknown event types. (The real-HTTP cases are in
 * ../cluster-sources/live-source.int.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeConnection, KubeHttpRequest, KubeHttpResponse, OpenStreamResult } from '../connection';
import { RESOURCES } from '../resources';
import { ResourceInformer } from './informer';

interface OpenedStream {
  readonly request: KubeHttpRequest;
  push(line: string): void;
  end(): void;
  /** Whether the informer (or {@link end}) closed it. */
  closed(): boolean;
}

/** A connection whose list answers and watch streams the test drives. */
class ScriptedConnection implements KubeConnection {
  readonly kubeConfig = undefined as never;
  readonly contextName = 'test';
  readonly serverUrl = 'http://test';
  readonly source = 'kubeconfig' as const;
  readonly requestTimeoutMs = 1000;
  readonly requests: KubeHttpRequest[] = [];
  /** `performance.now()` of each request, lists and watches alike (`requestTimes[i]` is `requests[i]`'s). */
  readonly requestTimes: number[] = [];
  /** `performance.now()` of each list request. */
  readonly listTimes: number[] = [];
  /** `performance.now()` of each watch request. */
  readonly watchTimes: number[] = [];
  readonly streams: OpenedStream[] = [];
  listAnswer: (request: KubeHttpRequest) => KubeHttpResponse | Promise<KubeHttpResponse> = () => list('10', ['a', 'b']);
  streamAnswer: ((request: KubeHttpRequest) => OpenStreamResult | Error | null) | null = null;

  async request(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    this.requests.push(request);
    this.requestTimes.push(performance.now());
    this.listTimes.push(performance.now());
    return this.listAnswer(request);
  }

  async openStream(request: KubeHttpRequest, onLine: (line: string) => void): Promise<OpenStreamResult> {
    this.requests.push(request);
    this.requestTimes.push(performance.now());
    this.watchTimes.push(performance.now());
    const scripted = this.streamAnswer?.(request) ?? null;
    if (scripted instanceof Error) throw scripted;
    if (scripted !== null) return scripted;
    let resolve: (value: Error | null) => void = () => undefined;
    const done = new Promise<Error | null>((r) => {
      resolve = r;
    });
    let closed = false;
    const end = (): void => {
      if (closed) return;
      closed = true;
      resolve(null);
    };
    this.streams.push({ request, push: (line) => !closed && onLine(line), end, closed: () => closed });
    return { ok: true, stream: { done, close: end, maxPendingBytes: 0 } };
  }
}

function service(name: string, rv: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', resourceVersion: rv }, spec: { selector: { app: name } } };
}

function list(rv: string, names: readonly string[]): KubeHttpResponse {
  return {
    status: 200,
    headers: {},
    body: JSON.stringify({ kind: 'ServiceList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items: names.map((n) => service(n, rv)) }),
  };
}

function event(type: string, object: unknown): string {
  return JSON.stringify({ type, object });
}

async function until(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const informers: ResourceInformer<'services'>[] = [];
afterEach(async () => {
  await Promise.all(informers.splice(0).map((i) => i.stop()));
});

function start(connection: ScriptedConnection, options: ConstructorParameters<typeof ResourceInformer>[3] = {}): ResourceInformer<'services'> {
  const informer = new ResourceInformer(connection, RESOURCES.services, () => undefined, { backoff: { initialMs: 10, maxMs: 50 }, random: () => 0.5, ...options });
  informers.push(informer);
  informer.start();
  return informer;
}

const names = (informer: ResourceInformer<'services'>): string[] => informer.items().map((s) => s.name).sort();

/** The gaps between consecutive times. */
const gaps = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - (times[i] as number));
/** A timer may fire up to a millisecond early (its delay is rounded); gaps are compared with that slack. */
const TIMER_SLACK_MS = 2;

describe('ResourceInformer', () => {
  it('lists with limit=500 and the field selector, then watches from the list resourceVersion with bookmarks', async () => {
    const connection = new ScriptedConnection();
    const informer = start(connection);
    await until(() => connection.streams.length === 1, 'watch');
    expect(connection.requests[0]).toMatchObject({ path: '/api/v1/services', query: { limit: 500 } });
    expect(connection.streams[0]?.request.query).toMatchObject({ watch: 1, resourceVersion: '10', allowWatchBookmarks: true });
    const timeout = Number(connection.streams[0]?.request.query?.timeoutSeconds);
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThanOrEqual(600);
    expect(names(informer)).toEqual(['a', 'b']);
    expect(informer.status()).toMatchObject({ health: 'synced', resourceVersion: '10', count: 2, lists: 1, watches: 1 });
  });

  it('applies events and bookmarks, and resumes after a malformed line from the last good resourceVersion', async () => {
    const connection = new ScriptedConnection();
    const informer = start(connection);
    await until(() => connection.streams.length === 1, 'watch');
    const first = connection.streams[0];
    first?.push(event('ADDED', service('c', '11')));
    first?.push(event('BOOKMARK', { kind: 'Service', apiVersion: 'v1', metadata: { resourceVersion: '15' } }));
    first?.push('{"type": "MODIFIED", "object": {"metadata": '); // cut in the middle
    first?.push(event('DELETED', service('a', '16'))); // ignored: the stream is being restarted
    await until(() => connection.streams.length === 2, 'second watch');
    expect(connection.streams[1]?.request.query?.resourceVersion).toBe('15');
    expect(names(informer)).toEqual(['a', 'b', 'c']);
    connection.streams[1]?.push(event('DELETED', service('a', '16')));
    await until(() => names(informer).join() === 'b,c', 'delete');
    expect(informer.status().lists).toBe(1);
  });

  it('re-lists on an ERROR event with code 410 and replaces the cache', async () => {
    const connection = new ScriptedConnection();
    const informer = start(connection);
    await until(() => connection.streams.length === 1, 'watch');
    connection.listAnswer = () => list('40', ['b', 'z']);
    connection.streams[0]?.push(event('ERROR', { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version: 10 (30)' }));
    await until(() => connection.streams.length === 2, 're-watch');
    expect(names(informer)).toEqual(['b', 'z']);
    expect(informer.status()).toMatchObject({ lists: 2, resourceVersion: '40', health: 'synced' });
    expect(connection.streams[1]?.request.query?.resourceVersion).toBe('40');
  });

  it('re-lists on an HTTP 410 when opening the watch', async () => {
    const connection = new ScriptedConnection();
    let calls = 0;
    connection.streamAnswer = () =>
      ++calls === 1
        ? { ok: false, response: { status: 410, headers: {}, body: JSON.stringify({ kind: 'Status', code: 410, reason: 'Gone', message: 'gone' }) } }
        : null;
    const informer = start(connection);
    await until(() => connection.streams.length === 1, 'watch after re-list');
    expect(informer.status().lists).toBe(2);
  });

  it('does not storm when every watch expires at once (history shorter than a list)', async () => {
    const connection = new ScriptedConnection();
    connection.streamAnswer = () => ({ ok: false, response: { status: 410, headers: {}, body: '' } });
    const informer = start(connection, { backoff: { initialMs: 20, maxMs: 50 } });
    // Never a stall: it keeps re-listing (within until()'s deadline)…
    await until(() => informer.status().lists >= 6, 'six lists');
    // …and never a storm: the first expiry re-lists at once, each one after it waits its back-off
    // first (75 % of 20, 40, 50, 50 ms with random 0.5).
    const [first, ...later] = gaps(connection.listTimes.slice(0, 6));
    expect(first).toBeGreaterThanOrEqual(0);
    later.forEach((gap, i) => expect(gap, `gap before list ${i + 3}`).toBeGreaterThanOrEqual([15, 30, 37.5, 37.5][i] as number - TIMER_SLACK_MS));
  });

  it('backs off boundedly while the server is unreachable, then recovers with its cache intact', async () => {
    const connection = new ScriptedConnection();
    const informer = start(connection, { backoff: { initialMs: 20, maxMs: 80 } });
    await until(() => connection.streams.length === 1, 'watch');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    connection.streamAnswer = () => refused;
    const before = connection.watchTimes.length;
    const endedAt = performance.now();
    connection.streams[0]?.end();
    // Never a stall: it keeps trying (within until()'s deadline)…
    await until(() => connection.watchTimes.length - before >= 4, 'four attempts');
    // …and never a storm: a watch that ended at once waits 75 % of 20 ms (random 0.5), each refused
    // attempt then 75 % of 40, 80, 80 ms (each watch attempt follows its resume check at once).
    const attempts = [endedAt, ...connection.watchTimes.slice(before, before + 4)];
    gaps(attempts).forEach((gap, i) => expect(gap, `wait before attempt ${i + 1}`).toBeGreaterThanOrEqual([15, 30, 60, 60][i] as number - TIMER_SLACK_MS));
    expect(informer.status()).toMatchObject({ health: 'stale', error: { kind: 'unavailable' }, count: 2 });
    expect(informer.status().staleSince).not.toBeNull();
    connection.streamAnswer = null;
    await until(() => informer.status().health === 'synced', 'recovered');
    expect(informer.status()).toMatchObject({ staleSince: null, error: null, lists: 1 });
  });

  it('treats an unknown event type as a broken stream and resumes', async () => {
    const connection = new ScriptedConnection();
    const informer = start(connection);
    await until(() => connection.streams.length === 1, 'watch');
    connection.streams[0]?.push(event('WHATEVER', service('q', '12')));
    await until(() => connection.streams.length === 2, 're-watch');
    expect(names(informer)).toEqual(['a', 'b']);
    expect(connection.streams[1]?.request.query?.resourceVersion).toBe('10');
  });

  it('reports a list that is not a JSON list as stale and retries', async () => {
    const connection = new ScriptedConnection();
    let calls = 0;
    connection.listAnswer = () => (++calls <= 3 ? { status: 200, headers: {}, body: '<html>' } : list('5', ['a']));
    const informer = start(connection);
    await until(() => informer.status().health === 'stale', 'stale');
    expect(informer.status().error?.message).toMatch(/not a JSON list/);
    await until(() => informer.status().health === 'synced', 'synced');
    expect(names(informer)).toEqual(['a']);
  });

  it('stop() ends the watch and the loop; the cache stays readable', async () => {
    const connection = new ScriptedConnection();
    const informer = start(connection);
    await until(() => connection.streams.length === 1, 'watch');
    const requests = connection.requests.length;
    // stop() resolves once the loop has ended: the watch is closed and nothing more is requested.
    await informer.stop();
    expect(connection.streams[0]?.closed()).toBe(true);
    expect(connection.requests.length).toBe(requests);
    expect(names(informer)).toEqual(['a', 'b']);
  });
});

describe('ResourceInformer: updates that change nothing the record keeps', () => {
  it('a MODIFIED event with the same slim record changes nothing; a re-list keeps unchanged records', async () => {
    const connection = new ScriptedConnection();
    const informer = start(connection);
    await until(() => connection.streams.length === 1, 'watch');
    const before = informer.version;
    const record = informer.records.get('default/a');
    // Only fields the record does not keep differ (labels, managed fields, status).
    const touched = { ...service('a', '10'), metadata: { name: 'a', namespace: 'default', resourceVersion: '10', labels: { touched: 'yes' } } };
    connection.streams[0]?.push(event('MODIFIED', touched));
    // Events apply in order: once the bookmark after it is in, the touched event has been applied.
    connection.streams[0]?.push(event('BOOKMARK', { kind: 'Service', apiVersion: 'v1', metadata: { resourceVersion: '10a' } }));
    await until(() => informer.status().resourceVersion === '10a', 'the bookmark after the touched event');
    expect(informer.version).toBe(before);
    expect(informer.records.get('default/a')).toBe(record);
    // A real change replaces the record.
    connection.streams[0]?.push(event('MODIFIED', service('a', '11')));
    await until(() => informer.version !== before, 'change');
    expect(informer.records.get('default/a')?.resourceVersion).toBe('11');
    // After 410 the re-list keeps the record objects of unchanged objects.
    const b = informer.records.get('default/b');
    connection.listAnswer = () => list('20', ['a', 'b']);
    connection.streams[0]?.push(event('ERROR', { kind: 'Status', code: 410, reason: 'Expired' }));
    await until(() => connection.streams.length === 2, 're-watch');
    expect(informer.records.get('default/b')).not.toBe(b); // resourceVersion changed with the list
    connection.listAnswer = () => list('20', ['a', 'b']);
    const kept = informer.records.get('default/b');
    connection.streams[1]?.push(event('ERROR', { kind: 'Status', code: 410, reason: 'Expired' }));
    await until(() => connection.streams.length === 3, 're-watch again');
    expect(informer.records.get('default/b')).toBe(kept);
  });
});

describe('ResourceInformer when the API server history goes backwards', () => {
  const tooLarge = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 504, reason: 'Timeout', message: 'Timeout: Too large resource version: 10, current: 3', details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 } };

  it('re-lists (instead of retrying the watch) on an ERROR event with the 504 ResourceVersionTooLarge Status', async () => {
    const connection = new ScriptedConnection();
    const logs: string[] = [];
    const informer = start(connection, { log: (e) => logs.push(e.message) });
    await until(() => connection.streams.length === 1, 'watch');
    connection.listAnswer = () => list('3', ['x']);
    connection.streams[0]?.push(event('ERROR', tooLarge));
    await until(() => connection.streams.length === 2, 're-watch');
    expect(names(informer)).toEqual(['x']);
    expect(informer.status()).toMatchObject({ lists: 2, resourceVersion: '3', health: 'synced' });
    expect(connection.streams[1]?.request.query?.resourceVersion).toBe('3');
    expect(logs.filter((m) => m.includes("history went backwards"))).toHaveLength(1);
  });

  it('checks before resuming a watch that the server\'s history reaches its resourceVersion, and re-lists when it does not', async () => {
    // kube-apiserver accepts a watch from a resourceVersion it has not reached and sends nothing:
    // only the check (a list of one object, not older than that version) can tell.
    const connection = new ScriptedConnection();
    const logs: string[] = [];
    const informer = start(connection, { log: (e) => logs.push(e.message) });
    await until(() => connection.streams.length === 1, 'watch');
    connection.streams[0]?.push(event('BOOKMARK', { kind: 'Service', apiVersion: 'v1', metadata: { resourceVersion: '12' } }));
    await until(() => informer.status().resourceVersion === '12', 'bookmark');

    // The watch ends (a timeout, a restart of the server): the check passes, the watch resumes, no re-list.
    const before = connection.requests.length;
    connection.streams[0]?.end();
    await until(() => connection.streams.length === 2, 'resumed watch');
    expect(connection.requests.slice(before).map((r) => r.query)).toEqual([
      { limit: 1, resourceVersion: '12', resourceVersionMatch: 'NotOlderThan' },
      expect.objectContaining({ watch: 1, resourceVersion: '12' }),
    ]);
    expect(informer.status().lists).toBe(1);

    // Restarted on an older state: the check is refused with 504 ResourceVersionTooLarge → re-list.
    const refused = { status: 504, headers: {}, body: JSON.stringify({ ...tooLarge, message: 'Timeout: Too large resource version: 12, current: 3' }) };
    connection.listAnswer = (request) => (request.query?.resourceVersion === '12' ? refused : list('3', ['x']));
    connection.streams[1]?.end();
    await until(() => connection.streams.length === 3, 'watch after the re-list');
    expect(names(informer)).toEqual(['x']);
    expect(informer.status()).toMatchObject({ lists: 2, resourceVersion: '3', health: 'synced' });
    expect(connection.streams[2]?.request.query?.resourceVersion).toBe('3');
    expect(logs.filter((m) => /history went backwards \(Timeout: Too large resource version: 12, current: 3\)/.test(m))).toHaveLength(1);
  });

  it('restarts a list from its first page when a later page is at another resourceVersion', async () => {
    const connection = new ScriptedConnection();
    const pages = [
      { metadata: { resourceVersion: '20', continue: 'next' }, items: [service('old-a', '20')] },
      { metadata: { resourceVersion: '5' }, items: [service('new-b', '5')] }, // another server's page
      { metadata: { resourceVersion: '5', continue: 'next' }, items: [service('new-a', '5')] },
      { metadata: { resourceVersion: '5' }, items: [service('new-b', '5')] },
    ];
    let call = 0;
    connection.listAnswer = () => ({ status: 200, headers: {}, body: JSON.stringify({ kind: 'ServiceList', apiVersion: 'v1', ...pages[Math.min(call++, pages.length - 1)] }) });
    const logs: string[] = [];
    const informer = start(connection, { log: (e) => logs.push(e.message) });
    await until(() => connection.streams.length === 1, 'watch');
    expect(names(informer)).toEqual(['new-a', 'new-b']);
    expect(informer.status().resourceVersion).toBe('5');
    expect(connection.requests[2]?.query?.continue).toBeUndefined();
    expect(logs.some((m) => /pages disagree on the resourceVersion \(20, then 5\); restarting it from the first page/.test(m))).toBe(true);
  });
});

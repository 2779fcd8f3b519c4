import { describe, expect, it } from 'vitest';
import { ApiError } from './status';
import type { StoreEvent } from './store';
import { ObjectStore } from './store';
import { HistoryExpiredError } from './store/history';
import { deployment, node, service } from './test-support';

function names(items: { metadata: { name: string; namespace?: string } }[]): string[] {
  return items.map((i) => (i.metadata.namespace ? `${i.metadata.namespace}/${i.metadata.name}` : i.metadata.name));
}

describe('ObjectStore writes', () => {
  it('assigns uid, creationTimestamp and a global, increasing resourceVersion on every write', () => {
    const store = new ObjectStore({ now: () => new Date('2025-02-03T04:05:06.789Z') });
    const a = store.create('services', service('a'));
    const n = store.create('nodes', node('n1', 'z1'));
    expect(a.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.metadata.creationTimestamp).toBe('2025-02-03T04:05:06Z');
    expect(Number(n.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
    expect(store.resourceVersion).toBe(Number(n.metadata.resourceVersion));
    expect(n.metadata.namespace).toBeUndefined();
  });

  it('rejects duplicates with AlreadyExists', () => {
    const store = new ObjectStore();
    store.create('services', service('a'));
    const error = (() => {
      try {
        store.create('services', service('a'));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).reason).toBe('AlreadyExists');
    expect((error as ApiError).message).toBe('services "a" already exists');
  });

  it('sets generation 1 only for kinds that track it, and bumps it on spec changes only', () => {
    const store = new ObjectStore();
    const svc = store.create('services', service('a'));
    expect(svc.metadata.generation).toBeUndefined();
    const d = store.create('deployments', deployment('web'));
    expect(d.metadata.generation).toBe(1);

    const relabelled = structuredClone(d);
    relabelled.metadata.labels = { app: 'web', extra: 'yes' };
    const afterLabel = store.update('deployments', relabelled);
    expect(afterLabel.metadata.generation).toBe(1);

    const scaled = structuredClone(afterLabel);
    (scaled.spec as { replicas: number }).replicas = 7;
    const afterScale = store.update('deployments', scaled);
    expect(afterScale.metadata.generation).toBe(2);
    expect(afterScale.metadata.uid).toBe(d.metadata.uid);
  });

  it('refuses an update carrying a stale resourceVersion with 409 Conflict', () => {
    const store = new ObjectStore();
    const first = store.create('services', service('a'));
    const second = structuredClone(first);
    second.metadata.labels = { app: 'a', v: '2' };
    store.update('services', second);
    const stale = structuredClone(first);
    stale.metadata.labels = { app: 'a', v: 'stale' };
    expect(() => store.update('services', stale)).toThrowError(
      'Operation cannot be fulfilled on services "a": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('does not commit an update that changes nothing', () => {
    const store = new ObjectStore();
    const events: StoreEvent[] = [];
    store.subscribe('services', (e) => events.push(e));
    const created = store.create('services', service('a'));
    const same = store.update('services', structuredClone(created));
    expect(same).toBe(created);
    expect(store.resourceVersion).toBe(Number(created.metadata.resourceVersion));
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
  });

  it('deletes with preconditions and reports the last state at the deletion resourceVersion', () => {
    const store = new ObjectStore();
    const created = store.create('services', service('a'));
    expect(() => store.delete('services', 'default', 'a', { preconditions: { uid: 'other' } })).toThrowError(/Precondition failed: UID/);
    const deleted = store.delete('services', 'default', 'a');
    expect(deleted.metadata.uid).toBe(created.metadata.uid);
    expect(deleted.metadata.resourceVersion).toBe(String(store.resourceVersion));
    expect(store.get('services', 'default', 'a')).toBeUndefined();
    expect(() => store.delete('services', 'default', 'a')).toThrowError('services "a" not found');
  });

  it('dry runs validate without committing', () => {
    const store = new ObjectStore();
    const rv = store.resourceVersion;
    store.create('services', service('a'), { dryRun: true });
    expect(store.get('services', 'default', 'a')).toBeUndefined();
    expect(store.resourceVersion).toBe(rv);
  });
});

describe('ObjectStore lists', () => {
  it('lists in namespace/name order and keeps a namespace apart from others sharing its prefix', () => {
    const store = new ObjectStore();
    for (const [ns, name] of [['a-b', 'x'], ['a', 'z'], ['a', 'b'], ['b', 'a'], ['a', 'm']] as const) store.create('services', service(name, ns));
    expect(names(store.list('services').items)).toEqual(['a-b/x', 'a/b', 'a/m', 'a/z', 'b/a']);
    expect(names(store.list('services', { namespace: 'a' }).items)).toEqual(['a/b', 'a/m', 'a/z']);
    expect(store.count('services', 'a')).toBe(3);
  });

  it('pages with limit and startAfter, reporting remaining items', () => {
    const store = new ObjectStore();
    for (let i = 0; i < 5; i++) store.create('services', service(`s${i}`));
    const first = store.list('services', { limit: 2 });
    expect(names(first.items)).toEqual(['default/s0', 'default/s1']);
    expect(first.more).toBe(true);
    expect(first.remainingItemCount).toBe(3);
    const second = store.list('services', { limit: 2, startAfter: first.lastKey as string });
    expect(names(second.items)).toEqual(['default/s2', 'default/s3']);
    const third = store.list('services', { limit: 2, startAfter: second.lastKey as string });
    expect(names(third.items)).toEqual(['default/s4']);
    expect(third.more).toBe(false);
  });

  it('applies a predicate without counting filtered objects against the limit', () => {
    const store = new ObjectStore();
    for (let i = 0; i < 6; i++) store.create('services', service(`s${i}`, 'default', { parity: i % 2 === 0 ? 'even' : 'odd' }));
    const page = store.list('services', { limit: 2, predicate: (o) => o.metadata.labels?.parity === 'odd' });
    expect(names(page.items)).toEqual(['default/s1', 'default/s3']);
    expect(page.remainingItemCount).toBeUndefined();
  });

  it('reconstructs the state at an older resourceVersion from history (consistent paging)', () => {
    const store = new ObjectStore();
    for (const name of ['a', 'b', 'c', 'd']) store.create('services', service(name));
    const at = store.resourceVersion;
    const b = store.get('services', 'default', 'b');
    if (b === undefined) throw new Error('missing b');
    const changed = structuredClone(b);
    changed.metadata.labels = { app: 'b', changed: 'yes' };
    store.update('services', changed);
    store.delete('services', 'default', 'c');
    store.create('services', service('bb'));

    const now = store.list('services');
    expect(names(now.items)).toEqual(['default/a', 'default/b', 'default/bb', 'default/d']);
    const then = store.list('services', { atResourceVersion: at });
    expect(names(then.items)).toEqual(['default/a', 'default/b', 'default/c', 'default/d']);
    expect(then.items[1]?.metadata.labels).toEqual({ app: 'b' });
    expect(then.resourceVersion).toBe(at);
    const secondPage = store.list('services', { atResourceVersion: at, startAfter: 'default/b', limit: 1 });
    expect(names(secondPage.items)).toEqual(['default/c']);
    expect(secondPage.more).toBe(true);
  });

  it('forgets history beyond its size: older versions raise HistoryExpiredError', () => {
    const store = new ObjectStore({ historySize: 3 });
    store.create('services', service('a'));
    const early = store.resourceVersion;
    for (const name of ['b', 'c', 'd', 'e']) store.create('services', service(name));
    expect(store.compactedResourceVersion('services')).toBeGreaterThan(early);
    expect(() => store.eventsSince('services', early)).toThrowError(HistoryExpiredError);
    expect(() => store.list('services', { atResourceVersion: early })).toThrowError(/too old resource version/);
    const recent = store.eventsSince('services', store.resourceVersion - 2);
    expect(recent.map((e) => e.object.metadata.name)).toEqual(['d', 'e']);
    // other kinds keep their own history
    expect(store.eventsSince('nodes', early)).toEqual([]);
  });

  // How long 30,000 take is a benchmark: `npm run bench -- --scale-checks sim-store-30000`.
  it('lists 3,000 objects page by page after a bulk load, each once, in order', () => {
    const store = new ObjectStore({ historySize: 100 });
    for (let i = 0; i < 3_000; i++) store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: `ns${i % 30}` } });
    const seen: string[] = [];
    let pages = 0;
    let startAfter: string | undefined;
    for (;;) {
      const page = store.list('pods', { limit: 500, ...(startAfter !== undefined ? { startAfter } : {}) });
      seen.push(...names(page.items));
      pages += 1;
      if (!page.more) break;
      startAfter = page.lastKey;
    }
    expect(pages).toBe(6);
    expect(seen).toHaveLength(3_000);
    expect(new Set(seen).size).toBe(3_000);
    expect(seen).toEqual(names(store.list('pods', {}).items));
    expect(store.list('pods', { namespace: 'ns7' }).items).toHaveLength(100);
  });
});

describe('ObjectStore notifications', () => {
  it('delivers writes made by listeners after the current event reached every listener', () => {
    const store = new ObjectStore();
    const seen: string[] = [];
    store.subscribe('services', (e) => {
      seen.push(`first:${e.type}:${e.object.metadata.name}`);
      if (e.type === 'ADDED' && e.object.metadata.name === 'a') store.create('services', service('b'));
    });
    store.subscribe('*', (e) => seen.push(`all:${e.type}:${e.object.metadata.name}:${e.resourceVersion}`));
    store.create('services', service('a'));
    expect(seen).toEqual(['first:ADDED:a', 'all:ADDED:a:1', 'first:ADDED:b', 'all:ADDED:b:2']);
  });

  it('keeps notifying other listeners when one throws', () => {
    const errors: unknown[] = [];
    const store = new ObjectStore({ onListenerError: (error) => errors.push(error) });
    let delivered = 0;
    store.subscribe('services', () => {
      throw new Error('boom');
    });
    store.subscribe('services', () => delivered++);
    store.create('services', service('a'));
    expect(delivered).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it('replaceAll loads without events, keeps identities and makes older versions expire', () => {
    const store = new ObjectStore();
    store.create('services', service('old'));
    const before = store.resourceVersion;
    const events: StoreEvent[] = [];
    store.subscribe('*', (e) => events.push(e));
    const n = node('n1', 'z1');
    n.metadata.uid = 'kept-uid';
    n.metadata.creationTimestamp = '2020-01-01T00:00:00Z';
    store.replaceAll([{ resource: 'nodes', object: n }, { resource: 'services', object: service('new') }]);
    expect(events).toEqual([]);
    expect(store.get('services', 'default', 'old')).toBeUndefined();
    expect(store.get('nodes', undefined, 'n1')?.metadata).toMatchObject({ uid: 'kept-uid', creationTimestamp: '2020-01-01T00:00:00Z' });
    expect(store.resourceVersion).toBeGreaterThan(before);
    expect(() => store.eventsSince('services', before)).toThrowError(HistoryExpiredError);
    expect(() => store.replaceAll([{ resource: 'services', object: service('x') }, { resource: 'services', object: service('x') }])).toThrowError(/already exists/);
    expect(store.get('services', 'default', 'new')).toBeDefined();
  });
});

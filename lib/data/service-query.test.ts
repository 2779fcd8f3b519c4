import { describe, expect, it } from 'vitest';
import type { QueryableService } from './service-query';
import {
  API_SORT_ALIASES, parseTableQuery, queryServices, queryTable, SERVICE_SORT_KEYS, SERVICE_SORTS, serviceNaturalKey, serviceSearchText, tableQuerySearch,
  TABLE_SORT_KEYS,
} from './service-query';

function row(namespace: string, name: string, extra: Partial<QueryableService> = {}): QueryableService {
  return {
    namespace, name, mechanism: 'none', hintsExpected: false, hintsObserved: 'none', reason: null, attention: null, readyEndpoints: 1, crossZoneFraction: 0,
    search: serviceSearchText(namespace, name), naturalKey: serviceNaturalKey(namespace, name), ...extra,
  };
}

const keys = (rows: readonly QueryableService[]) => rows.map((r) => `${r.namespace}/${r.name}`);

describe('the shared Services query', () => {
  it('maps every API and table sort value onto one column', () => {
    for (const key of SERVICE_SORT_KEYS) expect(SERVICE_SORTS).toContain(API_SORT_ALIASES[key]);
    for (const key of TABLE_SORT_KEYS) expect(SERVICE_SORTS).toContain(key);
    expect(API_SORT_ALIASES.namespace).toBe('service');
  });

  it('sorts names naturally, ties by namespace/name ascending in both orders', () => {
    const rows = [row('a', 'svc-1454'), row('a', 'svc-154', { readyEndpoints: 3 }), row('b', 'svc-2'), row('a', 'svc-2')];
    expect(keys(queryServices(rows, { sort: 'service' }))).toEqual(['a/svc-2', 'a/svc-154', 'a/svc-1454', 'b/svc-2']);
    expect(keys(queryServices(rows, { sort: 'name' }))).toEqual(['a/svc-2', 'b/svc-2', 'a/svc-154', 'a/svc-1454']);
    expect(keys(queryServices(rows, { sort: 'endpoints', order: 'desc' }))).toEqual(['a/svc-154', 'a/svc-2', 'a/svc-1454', 'b/svc-2']);
  });

  it('sorts by name field by field (a name that is a prefix of another comes first)', () => {
    const rows = [row('x', 'api-gateway'), row('y', 'api')];
    expect(keys(queryServices(rows, { sort: 'name' }))).toEqual(['y/api', 'x/api-gateway']);
  });

  it('matches q against namespace/name, and against the reason only when asked (the table)', () => {
    const rows = [row('shop', 'cart', { reason: 'Insufficient number of endpoints', attention: 'hints-off' }), row('shop', 'checkout')];
    expect(keys(queryServices(rows, { q: ' SHOP/CH ', sort: 'service' }))).toEqual(['shop/checkout']);
    expect(keys(queryServices(rows, { q: 'insufficient', sort: 'service' }))).toEqual([]);
    expect(keys(queryTable(rows, { q: 'insufficient', ns: '', sort: 'service', order: 'asc', attention: false }))).toEqual(['shop/cart']);
    expect(keys(queryTable(rows, { q: '', ns: 'shop', sort: 'service', order: 'asc', attention: true }))).toEqual(['shop/cart']);
  });

  it('parses and writes the table URL state', () => {
    const query = parseTableQuery({ q: 'shop/', ns: 'payments', sort: 'crossZone', order: 'desc', attention: '1' }, ['payments']);
    expect(query).toEqual({ q: 'shop/', ns: 'payments', sort: 'crossZone', order: 'desc', attention: true });
    expect(tableQuerySearch(query)).toBe('?q=shop%2F&ns=payments&attention=1&sort=crossZone&order=desc');
    expect(parseTableQuery({ ns: 'unknown', sort: 'name', order: 'up' }, ['payments'])).toEqual({ q: '', ns: '', sort: 'service', order: 'asc', attention: false });
    expect(tableQuerySearch(parseTableQuery({}, []))).toBe('');
  });
});

/**
 * The table's views against the one definition of filtering and sorting (`queryTable`): the same
 * rows in the same order for every column, direction and filter, ties and odd names included.
 */
import { describe, expect, it } from 'vitest';

import type { QueryableService } from '@/lib/shared/service-query';
import { HPA_SCALE_DOWN_STATES, serviceNaturalKey, serviceSearchText } from '@/lib/shared/service-query';
import type { TableQuery } from '@/lib/shared/services-table-url';
import { queryTable, TABLE_SORT_KEYS } from '@/lib/shared/services-table-url';
import { TableViews, tableQueryKey } from './table-view';

interface TestRow extends QueryableService {
  readonly id: number;
}

const MECHANISMS = ['topology-mode', 'legacy-annotation', 'trafficDistribution', 'none'] as const;
const TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] as const;
const OBSERVED = ['all', 'some', 'none'] as const;
const REASONS = ['Hints off: Insufficient number of endpoints (2 endpoints, 3 zones).', 'Zone eu-west-1c has no ready endpoint', null] as const;

/** A deterministic pseudo-random sequence (no unseeded randomness in tests). */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function makeRow(id: number, namespace: string, name: string, random: () => number): TestRow {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const reason = pick(REASONS);
  const traffic = random() < 0.9;
  return {
    id,
    namespace,
    name,
    mechanism: pick(MECHANISMS),
    type: pick(TYPES),
    hintsExpected: random() < 0.5,
    hintsObserved: pick(OBSERVED),
    reason,
    attention: reason === null ? null : random() < 0.5 ? 'hints-off' : 'cross-zone-leak',
    // Few distinct values, so most sorts are decided by the tie-break.
    readyEndpoints: Math.floor(random() * 4),
    crossZoneFraction: pick([0, 0.25, 0.5, 2 / 3, 1]),
    gbPerMonth: traffic ? pick([0, 12.5, 50, 1e6]) : null,
    monthlyCost: traffic ? pick([0, 0.1, 3]) : null,
    hpaScaleDown: pick(HPA_SCALE_DOWN_STATES),
    measuredMinusPredicted: random() < 0.5 ? pick([-25, -10, 0, 4.5, 10, 30]) : null,
    search: serviceSearchText(namespace, name),
    naturalKey: serviceNaturalKey(namespace, name),
  };
}

function makeRows(): TestRow[] {
  const random = sequence(17);
  const names: [string, string][] = [];
  for (const namespace of ['shop', 'team-2', 'team-10', 'Checkout-EU']) {
    for (let i = 0; i < 30; i++) names.push([namespace, `svc-${Math.floor(random() * 200)}-${i % 3 === 0 ? 'API' : 'worker'}`]);
  }
  // Different names with the same natural key (digits padded): only the rows' own order separates them.
  names.push(['shop', 'svc-01'], ['shop', 'svc-1'], ['shop', 'svc-001']);
  // Rows arrive in no particular order.
  const shuffled = names.map((n) => ({ n, k: random() })).sort((a, b) => a.k - b.k).map((x) => x.n);
  return shuffled.map(([namespace, name], id) => makeRow(id, namespace, name, random));
}

const BASE: TableQuery = { q: '', ns: '', mechanism: '', reason: '', type: '', hpa: '', measuredDiff: null, sort: 'service', order: 'asc', attention: false };

const FILTERS: readonly Partial<TableQuery>[] = [
  {},
  { q: 'team-1' },
  { q: '  SVC-1 ' },
  { q: 'insufficient' },
  { q: 'no-such-service' },
  { ns: 'shop' },
  { attention: true },
  { mechanism: 'none', type: 'ClusterIP' },
  { reason: 'cross-zone-leak', q: 'worker' },
  { hpa: 'off' },
  { hpa: 'none', ns: 'shop' },
  { measuredDiff: 10 },
  { measuredDiff: 0, hpa: 'on' },
];

const ids = (rows: readonly TestRow[]) => rows.map((r) => r.id);

describe('the Services table views', () => {
  const rows = makeRows();

  it('shows the same rows in the same order as queryTable, for every column, direction and filter', () => {
    const views = new TableViews(rows);
    for (const filter of FILTERS) {
      for (const sort of TABLE_SORT_KEYS) {
        for (const order of ['asc', 'desc'] as const) {
          const query: TableQuery = { ...BASE, ...filter, sort, order };
          expect(ids(views.view(query)), JSON.stringify(query)).toEqual(ids(queryTable(rows, query)));
        }
      }
    }
  });

  it('breaks ties by namespace/name ascending in both directions, then by the rows’ own order', () => {
    const views = new TableViews(rows);
    const desc = views.view({ ...BASE, sort: 'endpoints', order: 'desc' });
    for (let i = 1; i < desc.length; i++) {
      const a = desc[i - 1] as TestRow;
      const b = desc[i] as TestRow;
      expect(a.readyEndpoints).toBeGreaterThanOrEqual(b.readyEndpoints);
      if (a.readyEndpoints === b.readyEndpoints) {
        expect(a.naturalKey <= b.naturalKey).toBe(true);
        if (a.naturalKey === b.naturalKey) expect(rows.indexOf(a)).toBeLessThan(rows.indexOf(b));
      }
    }
  });

  it('keeps the rows it was given untouched and reuses a view asked for again', () => {
    const before = ids(rows);
    const views = new TableViews(rows);
    const query: TableQuery = { ...BASE, q: 'worker', sort: 'cost', order: 'desc' };
    const first = views.view(query);
    expect(views.view({ ...query })).toBe(first);
    expect(ids(rows)).toEqual(before);
    // No filter: the column's full order.
    expect(views.view({ ...BASE, sort: 'cost', order: 'desc' })).toBe(views.ordered('cost', 'desc'));
  });

  it('drops the least recently used view beyond the views it keeps', () => {
    const views = new TableViews(rows, 2);
    const a = views.view({ ...BASE, q: 'shop' });
    const b = views.view({ ...BASE, q: 'team' });
    expect(views.view({ ...BASE, q: 'shop' })).toBe(a);
    views.view({ ...BASE, q: 'svc' });
    expect(views.view({ ...BASE, q: 'shop' })).toBe(a);
    const b2 = views.view({ ...BASE, q: 'team' });
    expect(b2).not.toBe(b);
    expect(ids(b2)).toEqual(ids(b));
  });

  it('keys a query by everything that changes the rows shown or their order', () => {
    const keys = new Set(
      [
        BASE,
        { ...BASE, q: 'a' },
        { ...BASE, ns: 'a' },
        { ...BASE, mechanism: 'none' },
        { ...BASE, reason: 'hints-off' },
        { ...BASE, type: 'NodePort' },
        { ...BASE, hpa: 'off' },
        { ...BASE, measuredDiff: 10 },
        { ...BASE, measuredDiff: 0 },
        { ...BASE, sort: 'cost' as const },
        { ...BASE, order: 'desc' as const },
        { ...BASE, attention: true },
      ].map(tableQueryKey),
    );
    expect(keys.size).toBe(12);
  });
});

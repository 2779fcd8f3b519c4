/**
 * The attention list by money: who is listed (a rule's entry is kept, a stale costly-fixable entry
 * is judged again from the Service's traffic row) and in which order (cost now, then saving, then
 * namespace and name).
 */
import { describe, expect, it } from 'vitest';

import type { AttentionItem, AttentionMoney } from './attention';
import { attentionByMoney } from './attention';

const row = (monthlyCost: number, saving: number, fix: string | null = null): AttentionMoney => ({ monthlyCost, saving, bestScenario: fix === null ? 'ifAuto' : 'fix', fix });

/** Rows of every kind: listed by a rule or not, saving nothing, too little or enough, with and without a fix. */
const sampleRows = () =>
  new Map<string, AttentionMoney>([
    ['b/off', row(50, 40)],
    ['a/leak', row(80, 0)],
    ['a/cheap', row(0, 0)],
    ['c/costly', row(50, 40, 'Add 2 ready endpoints')],
    ['a/costly', row(50, 40)],
    ['d/small', row(500, 5)],
    ['e/big', row(900, 900)],
  ]);

describe('attentionByMoney', () => {
  it('keeps rule entries, adds Services whose best change saves enough, and orders by cost, saving, then name', () => {
    const items: AttentionItem[] = [
      { namespace: 'b', name: 'off', reason: 'hints-off', message: 'off' },
      { namespace: 'a', name: 'leak', reason: 'cross-zone-leak', message: 'leak' },
      { namespace: 'a', name: 'cheap', reason: 'hints-unused', message: 'unused' },
    ];
    const rows = sampleRows();
    const list = attentionByMoney(items, rows, 10);
    expect(list.map((item) => `${item.namespace}/${item.name}:${item.reason}`)).toEqual([
      'e/big:costly-fixable',
      'a/leak:cross-zone-leak',
      // Equal cost and saving: by namespace, then name; the rule's own entry keeps its reason.
      'a/costly:costly-fixable',
      'b/off:hints-off',
      'c/costly:costly-fixable',
      'a/cheap:hints-unused',
    ]);
    expect(list.find((item) => item.name === 'costly' && item.namespace === 'c')?.message).toBe('$50.00 a month crosses zones; its smallest fix (Add 2 ready endpoints) saves $40.00 a month.');
  });

  it('judges a listed costly-fixable entry again from its row: dropped when the saving fell below the floor', () => {
    const items: AttentionItem[] = [
      { namespace: 'a', name: 'was-costly', reason: 'costly-fixable', message: 'old' },
      { namespace: 'a', name: 'still-costly', reason: 'costly-fixable', message: 'old' },
    ];
    const rows = new Map<string, AttentionMoney>([
      ['a/was-costly', row(100, 3)],
      ['a/still-costly', row(1234, 200)],
    ]);
    const list = attentionByMoney(items, rows, 10);
    expect(list).toEqual([{ namespace: 'a', name: 'still-costly', reason: 'costly-fixable', message: '$1,234 a month crosses zones; topology mode Auto saves $200 a month.' }]);
  });

  it('with rows that offer the ones saving enough, reads only those, and lists the same', () => {
    const items: AttentionItem[] = [
      { namespace: 'b', name: 'off', reason: 'hints-off', message: 'off' },
      { namespace: 'a', name: 'was-costly', reason: 'costly-fixable', message: 'old' },
    ];
    const plain = sampleRows().set('a/was-costly', row(100, 3));
    const offered: string[] = [];
    const rows = Object.assign(new Map(plain), {
      *savingAtLeast(min: number): Generator<readonly [string, AttentionMoney]> {
        for (const [key, value] of plain) {
          if (value.saving < min || value.saving <= 0) continue;
          offered.push(key);
          yield [key, value];
        }
      },
    });
    // Iterating the map itself would be a mistake: it is left empty of the rows below the floor.
    for (const key of ['a/was-costly', 'd/small', 'a/leak', 'a/cheap']) rows.delete(key);
    expect(attentionByMoney(items, rows, 10)).toEqual(attentionByMoney(items, plain, 10));
    expect(offered).toEqual(['b/off', 'c/costly', 'a/costly', 'e/big']);
  });

  it('a rule entry without a traffic row counts as $0 and goes last', () => {
    const items: AttentionItem[] = [{ namespace: 'z', name: 'no-row', reason: 'hints-off', message: 'off' }];
    const rows = new Map<string, AttentionMoney>([['a/paid', row(20, 15)]]);
    expect(attentionByMoney(items, rows, 10).map((item) => item.name)).toEqual(['paid', 'no-row']);
  });
});

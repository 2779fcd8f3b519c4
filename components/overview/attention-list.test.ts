import { describe, expect, it } from 'vitest';
import type { AttentionReason } from '@/lib/topology/report/analysis-schema';
import { attentionFor } from '@/lib/topology/report/attention';
import { attentionEntries, GROUP_MIN } from './attention-list';

function item(name: string, reason: AttentionReason, message: string) {
  return { namespace: 'shop', name, reason, message };
}

describe('the Services needing attention', () => {
  it('come costliest first (cross-zone $ now, then what the best change saves), then by reason and name', () => {
    const items = [
      item('a', 'hints-unused', 'internalTrafficPolicy: Local overrides hints.'),
      item('b', 'cross-zone-leak', 'Hints are on but 2 endpoint(s) are donated across zones (uneven placement): 27.8 % of traffic crosses zones.'),
      item('c', 'hints-off', 'Hints off: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (6 endpoints, 3 zones), addressType: IPv4.'),
      item('d', 'annotation-ineffective', 'service.kubernetes.io/topology-mode: "Enabled" does nothing.'),
    ];
    const money: Record<string, { monthlyCost: number; saving: number }> = { a: { monthlyCost: 0, saving: 0 }, b: { monthlyCost: 278, saving: 5 }, c: { monthlyCost: 667, saving: 0 }, d: { monthlyCost: 667, saving: 600 } };
    const entries = attentionEntries(items, (i) => money[i.name] ?? { monthlyCost: 0, saving: 0 });
    expect(entries.map((e) => (e.kind === 'one' ? e.item.name : e.key))).toEqual(['d', 'c', 'b', 'a']);
  });

  it('collapse rows that say the same thing into one group, placed at its most costly member', () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      item(`svc-${String(i).padStart(2, '0')}`, 'hints-off', `Hints off: Insufficient number of endpoints (${1 + (i % 2)} endpoints, 3 zones), addressType: IPv4.`),
    );
    const leak = item('leaky', 'cross-zone-leak', 'Hints are on but 1 endpoint(s) are donated across zones (uneven placement): 11.1 % of traffic crosses zones.');
    const entries = attentionEntries([...many, leak], (i) => ({ monthlyCost: i.name === 'leaky' ? 111 : i.name === 'svc-07' ? 700 : 50, saving: 0 }));
    expect(entries).toHaveLength(2);
    const [group, single] = entries;
    expect(group).toMatchObject({ kind: 'group', reason: 'hints-off', summary: 'fewer endpoints than zones' });
    if (group?.kind !== 'group') throw new Error('expected a group');
    expect(group.items).toHaveLength(30);
    expect(group.items[0]?.name).toBe('svc-07');
    expect(single).toMatchObject({ kind: 'one', item: { name: 'leaky' } });
  });

  it(`lists fewer than ${GROUP_MIN} alike rows one by one`, () => {
    const two = [item('x', 'hints-off', 'Hints off: Insufficient number of endpoints (2 endpoints, 3 zones).'), item('y', 'hints-off', 'Hints off: Insufficient number of endpoints (1 endpoints, 3 zones).')];
    expect(attentionEntries(two, () => ({ monthlyCost: 0, saving: 0 })).map((e) => e.kind)).toEqual(['one', 'one']);
  });

  it('quote the same cross-zone share as the figure beside them (hints now, not the next sync)', () => {
    const report = {
      mechanism: 'topology-mode',
      expected: { hintsEnabled: true, donatedEndpoints: 2, verdict: 'Hints on' },
      lints: [],
      diff: { inSync: true, missing: 0, unexpected: 0, stale: 0 },
      observed: { hintsPresent: true, readyEndpointsWithoutHints: 0 },
      traffic: { crossZoneFraction: 0.2857, crossZoneFractionExpected: 0.2866 },
      unknown: {},
    } as unknown as Parameters<typeof attentionFor>[0];
    expect(attentionFor(report)?.message).toBe('Hints are on but 2 endpoint(s) are donated across zones (uneven placement): 28.6 % of traffic crosses zones.');
  });
});

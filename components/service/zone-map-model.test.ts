import { describe, expect, it } from 'vitest';
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import { UNKNOWN_ZONE as NO_ZONE } from '@/lib/topology/analyses/traffic';
import { MAX_TILE_ENDPOINTS, zoneMapModel } from './zone-map-model';

function endpoint(address: string, zone: string | null, observed: readonly string[] | null, extra: Partial<EndpointView> = {}): EndpointView {
  return { address, podName: `pod-${address}`, nodeName: `node-${zone ?? 'x'}`, zone, ready: true, serving: true, terminating: false, observedHints: observed, expectedHints: observed, donatedTo: null, ...extra };
}

/** `count` endpoints per zone, the first `donated` of zone a hinted for zone c. */
function service(perZone: number, donated: number): EndpointView[] {
  const out: EndpointView[] = [];
  for (const zone of ['a', 'b', 'c']) {
    for (let i = 0; i < perZone; i++) out.push(endpoint(`10.0.${zone.charCodeAt(0)}.${i}`, zone, zone === 'a' && i < donated ? ['c'] : [zone]));
  }
  return out;
}

describe('zoneMapModel', () => {
  it('draws one tile per endpoint and one arrow per donated endpoint for small Services', () => {
    const model = zoneMapModel(service(3, 2), ['a', 'b', 'c'], 'observed');
    expect(model.tiled).toBe(true);
    expect(model.tiles).toHaveLength(9);
    expect(model.perPair).toBe(false);
    expect(model.arrows.map((a) => a.count)).toEqual([null, null]);
    expect(model.columns.map((c) => [c.zone, c.ready, c.own, c.donatedOut, c.received])).toEqual([
      ['a', 3, 1, 2, 0],
      ['b', 3, 3, 0, 0],
      ['c', 3, 3, 0, 2],
    ]);
    expect(model.columns.every((c) => c.bars.length === 0)).toBe(true);
    // Every endpoint is named in its tile's tooltip.
    expect(model.tiles.filter(([, , , kind]) => kind === 'donated').map(([, , , , , title]) => title)).toEqual([
      '10.0.97.0 (pod-10.0.97.0) on node-a — Donated: hinted for another zone; hints: c',
      '10.0.97.1 (pod-10.0.97.1) on node-a — Donated: hinted for another zone; hints: c',
    ]);
  });

  it('counts per kind and zone, with one arrow per zone pair, above the tile limit', () => {
    const perZone = Math.ceil((MAX_TILE_ENDPOINTS + 1) / 3) + 10;
    const model = zoneMapModel(service(perZone, 7), ['a', 'b', 'c'], 'observed');
    expect(model.tiled).toBe(false);
    expect(model.tiles).toEqual([]);
    expect(model.perPair).toBe(true);
    expect(model.arrows).toHaveLength(1);
    expect(model.arrows[0]).toMatchObject({ key: 'a->c', count: 7 });
    const [a, , c] = model.columns;
    expect(a?.bars.map((b) => [b.kind, b.count, b.text])).toEqual([
      ['donated', 7, '7 donated → c'],
      ['own', perZone - 7, `${perZone - 7} hinted for own zone`],
    ]);
    expect(c?.bars.map((b) => [b.kind, b.count])).toEqual([
      ['donated', 0],
      ['own', perZone],
    ]);
    expect(c?.received).toBe(7);
    expect(model.totalDonated).toBe(7);
    // The longest bar spans the column; the others are scaled to it.
    const widths = model.columns.flatMap((col) => col.bars.map((b) => b.width));
    expect(Math.max(...widths)).toBeCloseTo(model.colWidth - 12 - 46, 6);
    expect(model.label).toContain(`a: ${perZone} ready, ${perZone - 7} hinted for own zone, 7 donated out, receives 0`);
  });

  it('adds a column for endpoints without a zone and counts the not-ready ones', () => {
    const model = zoneMapModel([endpoint('10.0.0.1', 'a', ['a']), endpoint('10.0.0.2', null, null), endpoint('10.0.0.3', 'a', null, { ready: false })], ['a'], 'expected');
    expect(model.columns.map((c) => [c.zone, c.bad, c.ready, c.notReady, c.noHint])).toEqual([
      ['a', false, 1, 1, 0],
      [NO_ZONE, true, 1, 0, 1],
    ]);
  });
});

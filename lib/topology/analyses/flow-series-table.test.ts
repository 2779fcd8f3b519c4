import { describe, expect, it } from 'vitest';

import { FlowSeriesTable } from './flow-series-table';
import type { FlowSeries } from './measured-traffic';

function series(i: number, distinct: number): FlowSeries {
  return {
    srcZone: `zone-${i % 3}`,
    dstZone: i % 5 === 0 ? '' : `zone-${(i + 1) % 3}`,
    srcNamespace: `ns-${i % 40}`,
    srcOwner: `client-${i % distinct}`,
    srcOwnerType: 'Deployment',
    dstNamespace: `ns-${(i * 7) % 40}`,
    dstOwner: `server-${(i * 13) % distinct}`,
    dstOwnerType: i % 11 === 0 ? 'Service' : 'StatefulSet',
    direction: i % 2 === 0 ? 'request' : 'response',
    bytesPerSecond: i % 17 === 0 ? Number.NaN : i * 1.25,
  };
}

/** Adds a series given as an object (as a traffic source adds a sample's labels). */
function push(table: FlowSeriesTable, series: FlowSeries): void {
  table.add((name) => series[name] ?? '', series.bytesPerSecond);
}

describe('FlowSeriesTable: flow series kept as columns', () => {
  it('gives back every series added, in order, as it was added', () => {
    const table = new FlowSeriesTable();
    const added = Array.from({ length: 5000 }, (_, i) => series(i, 300));
    for (const s of added) push(table, s);
    expect(table.length).toBe(5000);
    expect([...table]).toEqual(added);
    expect(table.at(4321)).toEqual(added[4321]);
    // Trimmed to its rows, the same series.
    expect([...table.trim()]).toEqual(added);
  });

  it('keeps going past 65,536 distinct label values (wider columns), with the earlier series unchanged', () => {
    const table = new FlowSeriesTable();
    const added = Array.from({ length: 40_000 }, (_, i) => series(i, 40_000));
    for (const s of added) push(table, s);
    expect(table.length).toBe(40_000);
    expect([...table]).toEqual(added);
  });

  it('reads an absent label as empty, as the mapping does', () => {
    const table = new FlowSeriesTable();
    push(table, { srcZone: 'a', dstZone: 'b', srcNamespace: 'shop', srcOwner: 'loadgen', dstNamespace: 'shop', dstOwner: 'web', bytesPerSecond: 125 });
    table.add((name) => (name === 'srcZone' ? 'c' : ''), 0);
    expect([...table]).toEqual([
      { srcZone: 'a', dstZone: 'b', srcNamespace: 'shop', srcOwner: 'loadgen', srcOwnerType: '', dstNamespace: 'shop', dstOwner: 'web', dstOwnerType: '', direction: '', bytesPerSecond: 125 },
      { srcZone: 'c', dstZone: '', srcNamespace: '', srcOwner: '', srcOwnerType: '', dstNamespace: '', dstOwner: '', dstOwnerType: '', direction: '', bytesPerSecond: 0 },
    ]);
  });
});

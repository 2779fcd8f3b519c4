import { describe, expect, it } from 'vitest';

import { pricePerGbSetting, resolvePricing } from '../model/cloud-pricing';
import type { ServiceFlow, ServiceFlowScenario } from './cluster-traffic';
import { computeClusterTraffic, TOP_SERVICES } from './cluster-traffic';
import { defaultVolumeSettings, resolveServiceVolume, WHAT_IF_LABEL } from './service-volume';
import { applyModelChange } from './measured-projection';
import { applyVolumeToSummary } from './scenario-costs';
import { MAX_MATRIX_ZONES, OTHER_ZONES } from './traffic';
import { crossZoneCost } from './cross-zone-cost';
import type { MeasuredServiceTraffic, MeasuredTraffic, VolumeSettings } from './traffic-volume';

const FLOWS_METRIC = 'beyla_network_flow_bytes_total';
const POD_METRIC = 'container_network_receive_bytes_total+container_network_transmit_bytes_total';
const AWS = resolvePricing('eks', 'test', null);

function measuredTraffic(byService: Record<string, MeasuredServiceTraffic>, interZoneGbPerMonth: number | null = null): MeasuredTraffic {
  return {
    window: '7d',
    measuredAt: '2026-12-01T12:00:00Z',
    byService: new Map(Object.entries(byService)),
    interZoneGbPerMonth,
    flowZones: 'labelled',
    reconciliation: null,
    quality: { seriesRead: 3, invalidSamples: 0, unknownZoneBytesPerSecond: 0, unattributedBytesPerSecond: 0, notes: [] },
  };
}

/** A scenario in which each of zones a and b sends half the traffic, `cross` of it to the other zone. */
function twoZones(cross: number): ServiceFlowScenario {
  return { crossZoneFraction: cross, matrix: { a: { a: (1 - cross) / 2, b: cross / 2 }, b: { a: cross / 2, b: (1 - cross) / 2 } } };
}

function flow(name: string, fractions: { now: number; expected?: number; ifAuto?: number }, extra: Partial<ServiceFlow> = {}): ServiceFlow {
  return {
    namespace: 'shop',
    name,
    readyEndpoints: 2,
    now: twoZones(fractions.now),
    expected: twoZones(fractions.expected ?? fractions.now),
    ifAuto: twoZones(fractions.ifAuto ?? fractions.expected ?? fractions.now),
    fix: null,
    fixAfter: null,
    loadBalancerCrossZoneFraction: null,
    ...extra,
  };
}

describe('resolveServiceVolume: first found wins', () => {
  const settings = (partial: Partial<VolumeSettings> = {}) => defaultVolumeSettings(partial);
  const flows = measuredTraffic({ 'shop/web': { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth: 700, matrix: { a: { a: 700 } } } });
  const podBytes = measuredTraffic({ 'shop/web': { kind: 'measured-pod-bytes', metric: POD_METRIC, gbPerMonth: 300, matrix: null } });
  const set = new Map([['shop/web', 120]]);
  it.each([
    ['a what-if beats a measurement', settings({ setByService: set }), flows, 5, 'set', 5, WHAT_IF_LABEL],
    ['measured flows beat a set volume', settings({ setByService: set, gbPerService: 1000 }), flows, null, 'measured-flows', 700, `measured: ${FLOWS_METRIC}, rate over 7d`],
    ['measured pod bytes beat a set volume', settings({ setByService: set }), podBytes, null, 'measured-pod-bytes', 300, `measured: ${POD_METRIC}, rate over 7d (zone split modelled)`],
    ['a set volume beats the flat assumption', settings({ setByService: set, gbPerService: 1000 }), null, null, 'set', 120, 'set: 120 GB per month for this Service'],
    ['the flat assumption beats the per-endpoint one', settings({ gbPerService: 1000 }), null, null, 'assumed', 1000, 'assumed: 1,000 GB per Service per month (flat)'],
    ['otherwise 50 GB per ready endpoint', settings(), null, null, 'assumed', 150, 'assumed: 50 GB per ready endpoint per month × 3'],
  ] as const)('%s', (_, s, measured, whatIf, kind, gb, label) => {
    const volume = resolveServiceVolume('shop/web', 3, s, measured, whatIf);
    expect(volume.source.kind).toBe(kind);
    expect(volume.gbPerMonth).toBe(gb);
    expect(volume.source.label).toBe(label);
    expect(volume.measuredMatrix).toEqual(kind === 'measured-flows' ? { a: { a: 700 } } : null);
  });

  it('a measurement of another Service does not apply', () => {
    expect(resolveServiceVolume('shop/other', 4, settings(), flows).source.kind).toBe('assumed');
  });
});

describe('computeClusterTraffic', () => {
  it('costs cross-zone GB × price × 2: 100 GB, 30 % cross-zone, $0.01 each way = $0.60', () => {
    const { report, byService } = computeClusterTraffic([flow('web', { now: 0.3 })], defaultVolumeSettings({ setByService: new Map([['shop/web', 100]]) }), null, AWS);
    expect(report.totals.now).toEqual({ gbPerMonth: 100, crossZoneGbPerMonth: expect.closeTo(30, 9), crossZoneFraction: expect.closeTo(0.3, 9), monthlyCost: expect.closeTo(0.6, 9) });
    expect(byService.get('shop/web')?.monthlyCost).toBeCloseTo(0.6, 9);
    expect(report.priceNote).toBe('AWS (detected: test): $0.01/GB leaving one zone and $0.01/GB entering the other — $0.02 per cross-zone GB.');
    expect(report.pricing).toMatchObject({ cloud: 'aws', basis: 'detected', directions: 2, costPerCrossZoneGb: 0.02 });
    expect(report.flows.now).toEqual({ a: { a: expect.closeTo(35, 9), b: expect.closeTo(15, 9) }, b: { a: expect.closeTo(15, 9), b: expect.closeTo(35, 9) } });
  });

  it.each([
    ['Auto is best when only it cuts cross-zone traffic', { now: 0.6, expected: 0.6, ifAuto: 0.2 }, 'ifAuto', 0.2],
    ['the next sync wins a tie with Auto (no change needed)', { now: 0.6, expected: 0.1, ifAuto: 0.1 }, 'expected', 0.1],
    ['now stays best when the sync and Auto would raise cross-zone traffic', { now: 0.2, expected: 0.5, ifAuto: 0.5 }, 'now', 0.2],
    ['now stays best when nothing changes', { now: 0.4 }, 'now', 0.4],
  ] as const)('best scenario: %s', (_, fractions, scenario, bestFraction) => {
    const settings = defaultVolumeSettings({ setByService: new Map([['shop/web', 1000]]) });
    const { report, byService } = computeClusterTraffic([flow('web', fractions, { fix: 'Enable topology mode Auto' })], settings, null, AWS);
    const row = byService.get('shop/web');
    expect(row?.bestScenario).toBe(scenario);
    expect(row?.bestMonthlyCost).toBeCloseTo(1000 * bestFraction * 0.02, 9);
    expect(row?.saving).toBeCloseTo(1000 * (fractions.now - bestFraction) * 0.02, 9);
    expect(report.totals.best.crossZoneFraction).toBeCloseTo(bestFraction, 9);
    expect(report.saving.best).toBeCloseTo(1000 * (fractions.now - bestFraction) * 0.02, 9);
    // The expected saving is the sync's effect, negative when the sync adds cross-zone traffic.
    expect(report.saving.expected).toBeCloseTo(1000 * (fractions.now - (('expected' in fractions ? fractions.expected : undefined) ?? fractions.now)) * 0.02, 9);
    expect(report.topBySaving.map((r) => r.name)).toEqual(scenario === 'now' ? [] : ['web']);
    expect(report.topBySaving[0]?.fix ?? null).toBe(scenario === 'now' ? null : 'Enable topology mode Auto');
  });

  it('now uses the measured matrix of a Service measured with flows; a sync the model says changes nothing changes nothing measured', () => {
    // The model says no traffic crosses zones now; the flows say 40 % does (keep-alive connections, say).
    const measured = measuredTraffic({ 'shop/web': { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth: 1000, matrix: { a: { a: 300, b: 200 }, b: { a: 200, b: 300 } } } });
    const { report, byService } = computeClusterTraffic([flow('web', { now: 0, expected: 0, ifAuto: 0 })], defaultVolumeSettings(), measured, AWS);
    expect(report.flows.now).toEqual({ a: { a: 300, b: 200 }, b: { a: 200, b: 300 } });
    expect(report.flows.expected).toEqual(report.flows.now);
    expect(report.saving.expected).toBe(0);
    const row = byService.get('shop/web');
    expect(row).toMatchObject({ crossZoneFraction: 0.4, predictedCrossZoneFraction: 0, crossZoneGbPerMonth: 400, bestScenario: 'now', expectedMonthlyCost: 8 });
    expect(row?.monthlyCost).toBeCloseTo(8, 9);
    expect(report.totals.now).toMatchObject({ gbPerMonth: 1000, crossZoneGbPerMonth: 400 });
    expect(report.sources['measured-flows']).toEqual({ services: 1, gbPerMonth: 1000 });
    expect(report.measuredAt).toBe('2026-12-01T12:00:00Z');
    expect(report.quality?.seriesRead).toBe(3);
  });

  it('says what each figure rests on: measured metric and window, set volumes, the assumption and how to change it', () => {
    const measured = measuredTraffic(
      {
        ...Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`shop/m${i}`, { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth: 10, matrix: { a: { a: 10 } } } as const])),
        'shop/p0': { kind: 'measured-pod-bytes', metric: POD_METRIC, gbPerMonth: 20, matrix: null },
      },
      12.5,
    );
    const flows = [
      ...Array.from({ length: 9 }, (_, i) => flow(`m${i}`, { now: 0.1 })),
      flow('p0', { now: 0.1 }),
      flow('s0', { now: 0.1 }),
      ...Array.from({ length: 4 }, (_, i) => flow(`a${i}`, { now: 0.1 })),
    ];
    const { report } = computeClusterTraffic(flows, defaultVolumeSettings({ setByService: new Map([['shop/s0', 7]]) }), measured, AWS);
    expect(report.sourceNotes).toEqual([
      `Measured: 9 Services from ${FLOWS_METRIC} (rate over 7d × 30 days)`,
      `Measured: 1 Service from ${POD_METRIC} (rate over 7d × 30 days); their zone split is the model\u2019s`,
      'Set: 1 Service at the volume set for it',
      "Assumed: 4 Services at 50 GB per ready endpoint per month — set ZONESCOPE_GB_PER_ENDPOINT, or a Service's own volume in ZONESCOPE_TRAFFIC_VOLUMES",
      'Measured cluster-wide inter-zone traffic: 12.5 GB per month (*_network_inter_zone_bytes_total, rate over 7d × 30 days)',
    ]);
    expect(report.sources).toEqual({
      'measured-flows': { services: 9, gbPerMonth: 90 },
      'measured-pod-bytes': { services: 1, gbPerMonth: 20 },
      set: { services: 1, gbPerMonth: 7 },
      assumed: { services: 4, gbPerMonth: 400 },
    });
    expect(report.services).toBe(15);
    expect(report.measuredInterZoneGbPerMonth).toBe(12.5);
  });

  it('a flat assumption says so and names its setting', () => {
    const { report } = computeClusterTraffic([flow('web', { now: 0.1 })], defaultVolumeSettings({ gbPerService: 1000 }), null, AWS);
    expect(report.sourceNotes).toEqual(["Assumed: 1 Service at 1,000 GB per Service per month (flat) — set ZONESCOPE_GB_PER_SERVICE, or a Service's own volume in ZONESCOPE_TRAFFIC_VOLUMES"]);
  });

  it('top lists: at most 10, highest first, ties by namespace then name; only Services with a cost or a saving', () => {
    const flows = [
      ...Array.from({ length: 12 }, (_, i) => ({ ...flow(`svc-${String(i).padStart(2, '0')}`, { now: 0.5, ifAuto: i < 3 ? 0.1 : 0.5 }), namespace: i % 2 === 0 ? 'b' : 'a' })),
      flow('free', { now: 0 }),
    ];
    const { report } = computeClusterTraffic(flows, defaultVolumeSettings(), null, AWS);
    expect(report.topByCost).toHaveLength(TOP_SERVICES);
    // Equal cost everywhere: namespace a first, then by name.
    expect(report.topByCost.map((r) => `${r.namespace}/${r.name}`)).toEqual(['a/svc-01', 'a/svc-03', 'a/svc-05', 'a/svc-07', 'a/svc-09', 'a/svc-11', 'b/svc-00', 'b/svc-02', 'b/svc-04', 'b/svc-06']);
    expect(report.topBySaving.map((r) => `${r.namespace}/${r.name}`)).toEqual(['a/svc-01', 'b/svc-00', 'b/svc-02']);
    expect(report.topByCost.some((r) => r.name === 'free')).toBe(false);
  });

  it('a bigger cost ranks first whatever the cross-zone share: 11 % of a huge Service over 67 % of a tiny one', () => {
    const settings = defaultVolumeSettings({ setByService: new Map([['shop/huge', 100_000], ['shop/tiny', 10]]) });
    const { report } = computeClusterTraffic([flow('tiny', { now: 0.67 }), flow('huge', { now: 0.11 })], settings, null, AWS);
    expect(report.topByCost.map((r) => r.name)).toEqual(['huge', 'tiny']);
  });

  it(`lumps the columns beyond ${MAX_MATRIX_ZONES} zones into "${OTHER_ZONES}", keeping the totals exact`, () => {
    const zones = Array.from({ length: MAX_MATRIX_ZONES + 6 }, (_, i) => `z${String(i).padStart(3, '0')}`);
    // Every client zone sends all its traffic to the next zone.
    const matrix = Object.fromEntries(zones.map((zone, i) => [zone, { [zones[(i + 1) % zones.length] as string]: 1 / zones.length }]));
    const scenario = { crossZoneFraction: 1, matrix };
    const { report } = computeClusterTraffic([flow('web', { now: 1 }, { readyEndpoints: 1, now: scenario, expected: scenario, ifAuto: scenario })], defaultVolumeSettings({ gbPerService: 700 }), null, AWS);
    expect(report.zones).toHaveLength(zones.length + 1);
    expect(report.zones.at(-1)).toBe(OTHER_ZONES);
    expect(Object.keys(report.flows.now)).toHaveLength(zones.length);
    for (const row of Object.values(report.flows.now)) expect(Object.keys(row)).toEqual([OTHER_ZONES]);
    expect(report.totals.now).toMatchObject({ gbPerMonth: 700, crossZoneGbPerMonth: 700, crossZoneFraction: 1 });
  });

  it('zero traffic: no Services, or none with endpoints, gives zeros, no NaN and empty top lists', () => {
    for (const flows of [[], [flow('empty', { now: 0.5 }, { readyEndpoints: 0 })]]) {
      const { report } = computeClusterTraffic(flows, defaultVolumeSettings(), null, AWS);
      for (const scenario of ['now', 'expected', 'best'] as const) expect(report.totals[scenario]).toEqual({ gbPerMonth: 0, crossZoneGbPerMonth: 0, crossZoneFraction: 0, monthlyCost: 0 });
      expect(report.saving).toEqual({ expected: 0, best: 0 });
      expect(report.topByCost).toEqual([]);
      expect(report.topBySaving).toEqual([]);
      expect(report.flows.now).toEqual({});
      expect(report.measuredAt).toBeNull();
    }
  });
});

describe('computeClusterTraffic: sums by content', () => {
  it('gives the same cluster flows whether Services share one matrix object or hold equal copies', () => {
    // Which Services share a figures object depends on the memos' history; the sums must not.
    const shared = twoZones(1 / 3);
    const sizes = [3, 7, 11, 13, 17, 19, 23];
    const sharing = sizes.map((readyEndpoints, i) => flow(`s${i}`, { now: 1 / 3 }, { readyEndpoints, now: shared, expected: shared, ifAuto: shared }));
    const copies = sizes.map((readyEndpoints, i) => flow(`s${i}`, { now: 1 / 3 }, { readyEndpoints }));
    const settings = defaultVolumeSettings({});
    const a = computeClusterTraffic(sharing, settings, null, AWS).report;
    const b = computeClusterTraffic(copies, settings, null, AWS).report;
    expect(JSON.stringify(b.flows)).toBe(JSON.stringify(a.flows));
    expect(b.totals).toEqual(a.totals);
  });

  it('takes -0 for 0 and tells apart matrices that differ in one cell', () => {
    const sizes = [3, 7, 11, 13, 17];
    const settings = defaultVolumeSettings({});
    // 1/997 of the volume: summed per group its last digit depends on how the Services are grouped.
    const scenario = (zero: number, last: number): ServiceFlowScenario => ({ crossZoneFraction: 0.25, matrix: { a: { a: 1 / 997, b: zero }, b: { a: 0.25, b: last } } });
    const run = (scenarios: ServiceFlowScenario[]) =>
      computeClusterTraffic(sizes.map((readyEndpoints, i) => flow(`s${i}`, { now: 0.25 }, { readyEndpoints, now: scenarios[i % scenarios.length] as ServiceFlowScenario })), settings, null, AWS).report;
    // -0 and 0 are one content: the same sums as one shared object.
    const one = scenario(0, 0.25);
    expect(JSON.stringify(run([scenario(0, 0.25), scenario(-0, 0.25)]).flows)).toBe(JSON.stringify(run([one]).flows));
    // One cell apart: two contents, each weighted by its own Services' volumes.
    const apart = run([scenario(0, 0.25), scenario(0, 0.2500001)]).flows.now;
    const gb = (indexes: number[]) => indexes.reduce((sum, i) => sum + 50 * (sizes[i] as number), 0);
    expect(apart.b?.b).toBe(0.25 * gb([0, 2, 4]) + 0.2500001 * gb([1, 3]));
  });
});

describe('computeClusterTraffic: contents that look alike', () => {
  const sizes = [3, 7, 11, 13, 17];
  const settings = defaultVolumeSettings({});
  const run = (scenarios: ServiceFlowScenario[]) =>
    computeClusterTraffic(sizes.map((readyEndpoints, i) => flow(`s${i}`, { now: 0.25 }, { readyEndpoints, now: scenarios[i % scenarios.length] as ServiceFlowScenario })), settings, null, AWS).report;

  it('tells apart matrices with the same cells in another order (the sums keep the order each content first came in)', () => {
    const ab: ServiceFlowScenario = { crossZoneFraction: 0.25, matrix: { a: { a: 1 / 997, b: 0.25 }, b: { a: 0.25, b: 0.25 } } };
    const ba: ServiceFlowScenario = { crossZoneFraction: 0.25, matrix: { a: { b: 0.25, a: 1 / 997 }, b: { a: 0.25, b: 0.25 } } };
    // Kept apart, each content is summed on its own and then added: not the single sum of one content.
    const mixed = run([ab, ba]).flows.now;
    const gb = (indexes: number[]) => indexes.reduce((sum, i) => sum + 50 * (sizes[i] as number), 0);
    expect(mixed.a?.a).toBe((1 / 997) * gb([0, 2, 4]) + (1 / 997) * gb([1, 3]));
    expect(Object.keys(run([ba, ab]).flows.now.a ?? {})).toEqual(['b', 'a']);
  });
});

describe('computeClusterTraffic: byService', () => {
  const settings = defaultVolumeSettings({});
  const flows = [flow('a', { now: 0.5 }), flow('b', { now: 0 }), flow('c', { now: 0.25 }, { readyEndpoints: 8 })];

  it('holds every Service\'s row by namespace/name, the same object each time it is read, and iterates like a map', () => {
    const { byService, report } = computeClusterTraffic(flows, settings, null, AWS);
    expect(byService.size).toBe(3);
    expect(byService.has('shop/a')).toBe(true);
    expect(byService.has('shop/z')).toBe(false);
    expect(byService.get('shop/z')).toBeUndefined();
    expect(byService.get('shop/a')).toBe(byService.get('shop/a'));
    expect([...byService.keys()]).toEqual(['shop/a', 'shop/b', 'shop/c']);
    expect([...byService].map(([key, row]) => [key, row.crossZoneFraction])).toEqual([
      ['shop/a', 0.5],
      ['shop/b', 0],
      ['shop/c', 0.25],
    ]);
    expect([...byService.values()].map((row) => row.name)).toEqual(['a', 'b', 'c']);
    const seen: string[] = [];
    byService.forEach((row, key) => seen.push(`${key}=${row.bestScenario}`));
    expect(seen).toEqual(['shop/a=now', 'shop/b=now', 'shop/c=now']);
    // The top list's rows are plain copies of the same rows.
    expect(report.topByCost.map((row) => row.name)).toEqual(['c', 'a']);
    expect(report.topByCost[0]).toEqual(JSON.parse(JSON.stringify(byService.get('shop/c'))));
  });

  it('offers the rows saving at least an amount, in order, as the same row objects', () => {
    // a and c would save with Auto (0.5 and 0.25 cross-zone now, none if Auto); b saves nothing.
    const saving = [flow('a', { now: 0.5, ifAuto: 0 }), flow('b', { now: 0 }), flow('c', { now: 0.25, ifAuto: 0 }, { readyEndpoints: 8 })];
    const { byService } = computeClusterTraffic(saving, settings, null, AWS);
    const rows = byService as typeof byService & { savingAtLeast(min: number): Iterable<[string, { readonly saving: number }]> };
    const all = [...byService].filter(([, row]) => row.saving > 0);
    expect(all.length).toBe(2);
    expect([...rows.savingAtLeast(0)]).toEqual(all);
    expect([...rows.savingAtLeast(0)].map(([key, row]) => row === byService.get(key))).toEqual([true, true]);
    const floor = Math.min(...all.map(([, row]) => row.saving)) + 1e-9;
    expect([...rows.savingAtLeast(floor)].map(([key]) => key)).toEqual(all.filter(([, row]) => row.saving >= floor).map(([key]) => key));
    expect([...rows.savingAtLeast(floor)].length).toBe(1);
  });

  it('gives each computation its own figures, over the same Services in the same order or not', () => {
    const first = computeClusterTraffic(flows, settings, null, AWS).byService;
    const moved = [flow('a', { now: 0.1 }), flow('b', { now: 0.2 }), flow('c', { now: 0.3 }, { readyEndpoints: 8 })];
    const second = computeClusterTraffic(moved, settings, null, AWS).byService;
    expect(second.get('shop/a')?.crossZoneFraction).toBe(0.1);
    expect(first.get('shop/a')?.crossZoneFraction).toBe(0.5);
    const reordered = computeClusterTraffic([moved[2] as ServiceFlow, moved[0] as ServiceFlow], settings, null, AWS).byService;
    expect(reordered.size).toBe(2);
    expect(reordered.get('shop/a')?.crossZoneFraction).toBe(0.1);
    expect(reordered.get('shop/c')?.crossZoneFraction).toBe(0.3);
    expect(reordered.get('shop/b')).toBeUndefined();
  });
});

describe('applyVolumeToSummary', () => {
  it('recomputes every monthly cost from the volume; with a measured matrix now is measured and the rest the model\'s change applied to it', () => {
    const base = { crossZoneFraction: 0.5, crossZoneFractionExpected: 0.5, crossZoneFractionIfAuto: 0.1, crossZoneFractionIfNone: 0.6 };
    const summary = {
      ...base,
      volume: resolveServiceVolume('shop/web', 2, defaultVolumeSettings(), null),
      monthlyCost: { now: crossZoneCost(0.5, 100, AWS), expected: crossZoneCost(0.5, 100, AWS), ifAuto: crossZoneCost(0.1, 100, AWS), ifNone: crossZoneCost(0.6, 100, AWS) },
    };
    const set = applyVolumeToSummary(summary, resolveServiceVolume('shop/web', 2, defaultVolumeSettings(), null, 2000), AWS, null);
    expect(set.volume.source.label).toBe(WHAT_IF_LABEL);
    expect(set.monthlyCost.now).toMatchObject({ gbPerMonth: 2000, costPerCrossZoneGb: 0.02, monthlyCost: expect.closeTo(2000 * 0.5 * 0.02, 9) });
    expect(set.monthlyCost.ifAuto.monthlyCost).toBeCloseTo(2000 * 0.1 * 0.02, 9);
    expect(set.monthlyCost.ifNone.monthlyCost).toBeCloseTo(2000 * 0.6 * 0.02, 9);
    const measured = measuredTraffic({ 'shop/web': { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth: 100, matrix: { a: { a: 45, b: 5 }, b: { b: 50 } } } });
    const model = { now: twoZones(0.5).matrix, expected: twoZones(0.5).matrix, ifAuto: twoZones(0.1).matrix, ifNone: twoZones(0.6).matrix };
    const fromFlows = applyVolumeToSummary(summary, resolveServiceVolume('shop/web', 2, defaultVolumeSettings(), measured), AWS, model);
    expect(fromFlows.monthlyCost.now.crossZoneGbPerMonth).toBeCloseTo(5, 9);
    expect(fromFlows.monthlyCost.expected.crossZoneGbPerMonth).toBeCloseTo(5, 9);
    // Auto moves 40 points of each row home: row a loses its 5 GB (cut at 0), row b has none to lose.
    expect(fromFlows.monthlyCost.ifAuto.crossZoneGbPerMonth).toBeCloseTo(0, 9);
    // No hints adds 10 points to each row: a 5 + 5, b 0 + 5.
    expect(fromFlows.monthlyCost.ifNone.crossZoneGbPerMonth).toBeCloseTo(15, 9);
    expect(fromFlows.crossZoneFraction).toBe(0.5);
  });
});

describe('computeClusterTraffic: what-ifs over one measurement', () => {
  it('gives the same GB every time and re-prices them; the projections of one measurement are made once and shared', () => {
    const measured = measuredTraffic({
      'shop/web': { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth: 100, matrix: { a: { a: 45, b: 5 }, b: { b: 50 } } },
      'shop/api': { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth: 200, matrix: { a: { a: 80, b: 20 }, b: { a: 20, b: 80 } } },
    });
    const flows = [flow('web', { now: 0.5, expected: 0.5, ifAuto: 0.1 }), flow('api', { now: 0.2, expected: 0.05 })];
    const at = (price: number) => computeClusterTraffic(flows, defaultVolumeSettings({ priceSetting: pricePerGbSetting(price) }), measured, resolvePricing('eks', 'test', pricePerGbSetting(price)));
    const first = at(0.01);
    const other = at(0.02);
    const again = at(0.01);
    expect(again.report).toEqual(first.report);
    expect(other.report.flows).toEqual(first.report.flows);
    expect(other.report.totals.expected.crossZoneGbPerMonth).toBe(first.report.totals.expected.crossZoneGbPerMonth);
    expect(other.report.totals.now.monthlyCost).toBeCloseTo(2 * first.report.totals.now.monthlyCost, 9);
    // api's sync moves 15 points of each row home: 40 GB → 10 GB across zones.
    expect(first.byService.get('shop/api')?.expectedMonthlyCost).toBeCloseTo(10 * 0.02, 9);
  });
});

describe('applyModelChange', () => {
  const measured = { a: { a: 60, b: 40 }, b: { a: 10, b: 90 } };
  it('returns the measurement itself when the model does not change', () => {
    expect(applyModelChange(measured, twoZones(0.3).matrix, twoZones(0.3).matrix)).toBe(measured);
  });
  it('moves each row by the model\'s change of its shares, keeping the row total', () => {
    // The model's rows go from 70/30 to 90/10: 20 points of each row stay home.
    const after = applyModelChange(measured, twoZones(0.3).matrix, twoZones(0.1).matrix);
    expect(after.a).toEqual({ a: expect.closeTo(80, 9), b: expect.closeTo(20, 9) });
    // Row b had only 10 % away: cut at 0, then scaled back to its 100 GB.
    expect(after.b?.a ?? 0).toBeCloseTo(0, 9);
    expect(after.b?.b).toBeCloseTo(100, 9);
  });
  it('keeps rows the model does not have', () => {
    const after = applyModelChange({ ...measured, c: { c: 5, a: 5 } }, twoZones(0.3).matrix, twoZones(0.1).matrix);
    expect(after.c).toEqual({ c: 5, a: 5 });
  });
});

describe('computeClusterTraffic: fixes and the load balancer leg', () => {
  it('the smallest fix enters best and the top savings, priced at the Service\'s volume', () => {
    const settings = defaultVolumeSettings({ setByService: new Map([['shop/web', 30_000]]) });
    const fixed = flow('web', { now: 0.6, expected: 0.6, ifAuto: 0.6 }, { fix: 'Add 2 ready endpoints, to 5', fixAfter: twoZones(0.05) });
    const { report, byService } = computeClusterTraffic([fixed, flow('other', { now: 0.1 })], settings, null, AWS);
    const row = byService.get('shop/web');
    expect(row).toMatchObject({ bestScenario: 'fix', fix: 'Add 2 ready endpoints, to 5' });
    expect(row?.fixSaving).toBeCloseTo(30_000 * 0.55 * 0.02, 6);
    expect(row?.saving).toBeCloseTo(30_000 * 0.55 * 0.02, 6);
    expect(report.topBySaving[0]?.name).toBe('web');
    expect(report.totals.best.crossZoneGbPerMonth).toBeCloseTo(30_000 * 0.05 + 100 * 0.1, 6);
  });

  it('a Service with nothing crossing zones is not asked for its fix', () => {
    let asked = 0;
    const quiet = { ...flow('web', { now: 0 }), get fixAfter() { asked += 1; return twoZones(0); } };
    computeClusterTraffic([quiet], defaultVolumeSettings(), null, AWS);
    expect(asked).toBe(0);
  });

  it('prices the load balancer leg apart, from the measured external volume', () => {
    const measured = measuredTraffic({ 'shop/web': { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth: 100, matrix: { a: { a: 100 } }, externalGbPerMonth: 3000 } });
    const { report } = computeClusterTraffic([flow('web', { now: 0 }, { loadBalancerCrossZoneFraction: 2 / 3 })], defaultVolumeSettings(), measured, AWS);
    expect(report.loadBalancer).toEqual({ services: 1, gbPerMonth: 3000, crossZoneGbPerMonth: expect.closeTo(2000, 9), monthlyCost: expect.closeTo(40, 9) });
    expect(report.totals.now.crossZoneGbPerMonth).toBe(0);
  });

  it('the same cluster costs $X on AWS, about $X/2 on Google Cloud and $0 on Azure', () => {
    const settings = defaultVolumeSettings({ setByService: new Map([['shop/web', 10_000]]) });
    const cost = (platform: 'eks' | 'gke' | 'aks') => computeClusterTraffic([flow('web', { now: 0.5 })], settings, null, resolvePricing(platform, null, null)).report.totals.now.monthlyCost;
    expect(cost('eks')).toBeCloseTo(100, 9);
    expect(cost('gke')).toBeCloseTo((5000 * 1e9 * 0.01) / 2 ** 30, 6);
    expect(cost('gke') / cost('eks')).toBeCloseTo(0.4657, 3);
    expect(cost('aks')).toBe(0);
  });
});

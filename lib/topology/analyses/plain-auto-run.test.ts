import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { runHintsEngine } from './hints-engine';
import { topologyAnnotationChange } from './service-mechanism';
import { countDonatedEndpoints, countHintsByZone } from './observed-hints';
import { plainAutoRun } from './plain-auto-run';
import { groupTrafficEndpoints } from './traffic-figures-memo';
import { computeAllocationTable } from '../upstream/topology-cache';
import { defaultFeatureGates } from '../upstream/version';
import type { Endpoint, EndpointSlice, ValueByZone } from '../upstream/types';

const RATIOS: ValueByZone<number> = { 'zone-a': 0.5, 'zone-b': 1 / 6, 'zone-c': 1 / 12, 'zone-d': 0.25 };
const nodeZoneByName = new Map<string, string | null>([['node-a', 'zone-a'], ['node-b', 'zone-b']]);

const endpointArb = fc.record({
  zone: fc.constantFrom('zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-d', 'zone-d', 'zone-d', 'zone-e'),
  ready: fc.constantFrom<boolean | null>(true, true, true, true, false, null),
  serving: fc.constantFrom<boolean | null | undefined>(true, false, undefined),
  terminating: fc.constantFrom<boolean | null | undefined>(false, true, undefined),
  node: fc.constantFrom<string | null>('node-a', 'node-b', null),
});

const slicesArb = fc
  .tuple(fc.oneof(fc.array(endpointArb, { maxLength: 6 }), fc.array(endpointArb, { minLength: 12, maxLength: 90 })), fc.integer({ min: 1, max: 4 }))
  .map(([endpoints, count]): EndpointSlice[] => {
    const lists: Endpoint[][] = Array.from({ length: count }, () => []);
    endpoints.forEach((e, i) => (lists[(i * 7) % count] as Endpoint[]).push({ addresses: [`10.2.${i >> 8}.${i & 255}`], zone: e.zone, nodeName: e.node, ready: e.ready, serving: e.serving, terminating: e.terminating, hints: null }));
    return lists.map((list, i) => ({ name: `web-${i}`, addressType: 'IPv4' as const, endpoints: list }));
  });

/** The engine's run of `slices` (and `toCreate`) with topology mode Auto on 1.33. */
function autoOn33(slices: readonly EndpointSlice[], toCreate: readonly EndpointSlice[], ratios: ValueByZone<number>) {
  return runHintsEngine({
    serviceKey: 'default/web',
    annotations: topologyAnnotationChange({}, 33, true).annotations,
    trafficDistribution: null,
    addressType: 'IPv4',
    unchanged: slices,
    toCreate,
    cpuRatiosByZone: ratios,
    minor: 33,
    gates: defaultFeatureGates(33),
    topologyCacheEnabled: true,
  });
}

describe('plainAutoRun: the Auto run on slices without hints, in one walk', () => {
  it('is the engine\'s run: outcome, events, slices written, hint counts, donations and the grouped endpoints of its slices', () => {
    let enabled = 0;
    let disabled = 0;
    fc.assert(
      fc.property(slicesArb, fc.constantFrom(26, 30, 31, 33, 35), fc.constantFrom<ValueByZone<number> | null>(RATIOS, RATIOS, { 'zone-a': 0.5, 'zone-b': 0.5 }, null), (slices, minor, ratios) => {
        const ready = slices.reduce((sum, slice) => sum + slice.endpoints.filter((e) => e.ready === true).length, 0);
        const table = ratios === null ? null : computeAllocationTable(ratios, ready);
        const lean = plainAutoRun({ addressType: 'IPv4', slices, cpuRatiosByZone: ratios, table, minor, nodeZoneByName });
        expect(lean).not.toBeNull();
        if (lean === null) return;
        const engine = runHintsEngine({
          serviceKey: 'default/web',
          // The edit the toggle makes on this release (1.26 knows only the older key).
          annotations: topologyAnnotationChange({}, minor, true).annotations,
          trafficDistribution: null,
          addressType: 'IPv4',
          unchanged: slices,
          cpuRatiosByZone: ratios,
          minor,
          gates: defaultFeatureGates(minor),
          topologyCacheEnabled: true,
        });
        expect(lean.result).toEqual({ ...engine, slices: [] });
        if (engine.slicesToWrite > 0) {
          expect(lean.hintCountsByZone).toEqual(countHintsByZone(engine.slices));
          expect(lean.donated).toBe(countDonatedEndpoints(engine.slices));
          const grouped = groupTrafficEndpoints(engine.slices, nodeZoneByName, true);
          expect(lean.grouped?.key).toBe(grouped.key);
          expect(lean.grouped?.counts).toEqual(grouped.counts);
          expect(lean.grouped?.endpoints).toEqual(grouped.endpoints);
        } else expect(lean.grouped).toBeNull();
        if (engine.hintsEnabled) enabled++;
        else disabled++;
      }),
      { numRuns: 400, seed: 11 },
    );
    expect(enabled).toBeGreaterThan(40);
    expect(disabled).toBeGreaterThan(40);
  });

  it('asked again for the same slices under other ratios and another node zone map, is still the engine\'s run (what is kept by slice list does not go stale)', () => {
    // Not-ready endpoints without a zone take their node's: the groups read the node zone map.
    const zonelessArb = slicesArb.map((slices): EndpointSlice[] =>
      slices.map((slice) => ({ ...slice, endpoints: slice.endpoints.map((e, i) => (e.ready !== true && i % 2 === 0 ? { ...e, zone: null, nodeName: 'node-b' } : e)) })),
    );
    const maps = [nodeZoneByName, new Map<string, string | null>([['node-a', 'zone-a'], ['node-b', 'zone-c']])];
    const ratioSets: ValueByZone<number>[] = [RATIOS, { 'zone-a': 0.25, 'zone-b': 0.25, 'zone-c': 0.25, 'zone-d': 0.25 }];
    let compared = 0;
    fc.assert(
      fc.property(zonelessArb, (slices) => {
        for (let round = 0; round < 4; round++) {
          const zones = maps[round % 2] as Map<string, string | null>;
          const ratios = ratioSets[round >> 1] as ValueByZone<number>;
          const lean = plainAutoRun({ addressType: 'IPv4', slices, cpuRatiosByZone: ratios, table: null, minor: 33, nodeZoneByName: zones });
          const engine = autoOn33(slices, [], ratios);
          expect(lean?.result).toEqual({ ...engine, slices: [] });
          if (engine.slicesToWrite === 0) continue;
          const grouped = groupTrafficEndpoints(engine.slices, zones, true);
          expect(lean?.grouped?.key).toBe(grouped.key);
          expect(lean?.grouped?.endpoints).toEqual(grouped.endpoints);
          expect(lean?.hintCountsByZone).toEqual(countHintsByZone(engine.slices));
          compared++;
        }
      }),
      { numRuns: 150, seed: 12 },
    );
    expect(compared).toBeGreaterThan(100);
  });

  it('asked again after a Node change, gives the run it kept when the plan is the same and a new one when it moved, with or without a created slice', () => {
    // A Node change moves the CPU ratios a little (usually the same plan: the run kept is given
    // again) or a lot (another plan): either way the answer is the engine's for the new ratios.
    const nudged = (step: number): ValueByZone<number> => {
      const a = 0.5 + step * 1e-4;
      return { 'zone-a': a, 'zone-b': 1 / 6, 'zone-c': 1 / 12, 'zone-d': 1 - a - 1 / 6 - 1 / 12 };
    };
    const ratioSets = [RATIOS, nudged(1), nudged(-2), { 'zone-a': 0.25, 'zone-b': 0.25, 'zone-c': 0.25, 'zone-d': 0.25 }, nudged(3)];
    const created: EndpointSlice = { name: 'zonescope-simulated', endpoints: ['zone-b', 'zone-c', 'zone-c'].map((zone, i) => ({ addresses: [`added-${zone}-${i + 1}`], zone, nodeName: null, ready: true, hints: null })) };
    let same = 0;
    let compared = 0;
    fc.assert(
      fc.property(slicesArb, fc.boolean(), (slices, withCreated) => {
        let previous: ReturnType<typeof plainAutoRun> | undefined;
        for (const ratios of ratioSets) {
          const lean = plainAutoRun({ addressType: 'IPv4', slices, created: withCreated ? created : null, cpuRatiosByZone: ratios, table: null, minor: 33, nodeZoneByName });
          if (lean !== null && lean === previous) same++;
          previous = lean;
          if (lean === null) continue;
          const engine = autoOn33(slices, withCreated ? [created] : [], ratios);
          expect(lean.result).toEqual({ ...engine, slices: [] });
          if (!engine.hintsEnabled) continue;
          expect(lean.hintCountsByZone).toEqual(countHintsByZone(engine.slices));
          expect(lean.donated).toBe(countDonatedEndpoints(engine.slices));
          if (engine.slicesToWrite > 0) expect(lean.grouped?.key).toBe(groupTrafficEndpoints(engine.slices, nodeZoneByName, true).key);
          compared++;
        }
      }),
      { numRuns: 150, seed: 13 },
    );
    expect(compared).toBeGreaterThan(100);
    // The nudges mostly leave the plan as it was: those runs are the ones kept.
    expect(same).toBeGreaterThan(50);
  });

  it('leaves a ready endpoint without a zone to the engine (it turns the hints off after copying the slices)', () => {
    const endpoints: Endpoint[] = ['zone-a', 'zone-a', 'zone-b', 'zone-c', 'zone-d', ''].map((zone, i) => ({ addresses: [`10.3.0.${i}`], zone, nodeName: null, ready: true, hints: null }));
    const slices = [{ endpoints }];
    expect(plainAutoRun({ addressType: 'IPv4', slices, cpuRatiosByZone: { 'zone-a': 0.5, 'zone-b': 0.5 }, table: null, minor: 33, nodeZoneByName })).toBeNull();
    // Before the allocation fits, the zone is never looked at: still the lean run.
    expect(plainAutoRun({ addressType: 'IPv4', slices, cpuRatiosByZone: RATIOS, table: null, minor: 33, nodeZoneByName })?.result.hintsEnabled).toBe(false);
    expect(plainAutoRun({ addressType: 'IPv4', slices, cpuRatiosByZone: RATIOS, table: null, minor: 25, nodeZoneByName })).toBeNull();
  });
});

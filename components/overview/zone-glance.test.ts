/**
 * What the zone map says per zone: a real analysis (eks-demo, from its fixture) summed
 * independently, and small clusters built to show uneven CPU, donated endpoints and traffic that
 * leaves a zone.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import { analyseFixture } from '@/lib/views/fleet/fleet-test-support';
import type { ClusterAnalysis, ClusterReport } from '@/lib/topology/report/analysis-schema';
import type { GlanceService } from './zone-glance';
import { formatPoints, zoneGlance } from './zone-glance';

let demo: ClusterAnalysis;

beforeAll(async () => {
  demo = await analyseFixture('eks-demo');
});

type Zones = Pick<ClusterReport, 'zones'>;

function zones(ratios: Record<string, number | null>): Zones {
  return { zones: Object.entries(ratios).map(([name, cpuRatio]) => ({ name, nodes: 3, readyNodes: 3, countedNodes: 3, cpuMillis: 12_000, cpuRatio })) };
}

/** A Service with `ready` endpoints per zone; `hints` per zone when its Auto hints are on. */
function service(ready: Record<string, number>, hints: Record<string, number> | null, donated = 0): GlanceService {
  const endpointsByZone = Object.fromEntries(Object.entries(ready).map(([zone, n]) => [zone, { ready: n, notReady: 0 }]));
  const total = Object.values(ready).reduce((a, b) => a + b, 0);
  return {
    mechanism: hints === null ? 'none' : 'topology-mode',
    expected: { hintsEnabled: hints !== null, hintCountsByZone: hints ?? {}, donatedEndpoints: donated },
    observed: { readyEndpoints: total, endpointsByZone },
    unknown: {},
  } as unknown as GlanceService;
}

describe('zoneGlance', () => {
  it('sums a real cluster per zone: CPU against an even share, ready endpoints, the Auto donations and cross-zone traffic', () => {
    const glance = zoneGlance(demo.cluster, demo.services, demo.traffic);
    const rated = demo.cluster.zones.filter((z) => z.cpuRatio !== null);
    expect(glance.evenShare).toBeCloseTo(1 / rated.length, 12);
    expect(glance.zones.map((z) => z.zone)).toEqual(demo.cluster.zones.map((z) => z.name));
    const allReady = demo.services.reduce((sum, s) => sum + s.observed.readyEndpoints, 0);
    for (const zone of glance.zones) {
      const report = demo.cluster.zones.find((z) => z.name === zone.zone);
      expect(zone.deviationPoints).toBeCloseTo(((report?.cpuRatio ?? 0) - 1 / rated.length) * 100, 9);
      const ready = demo.services.reduce((sum, s) => sum + (s.observed.endpointsByZone[zone.zone]?.ready ?? 0), 0);
      expect(zone.readyEndpoints).toBe(ready);
      expect(zone.endpointShare).toBeCloseTo(ready / allReady, 12);
      const sent = demo.traffic.flows.now[zone.zone] ?? {};
      const total = Object.values(sent).reduce((a, b) => a + b, 0);
      expect(zone.crossZoneGb).toBeCloseTo(total - (sent[zone.zone] ?? 0), 9);
    }
    // What the zones receive is what the others give, and no more than the endpoints donated.
    expect(glance.zones.reduce((sum, z) => sum + z.donatedIn, 0)).toBe(0);
    expect(glance.zones.reduce((sum, z) => sum + Math.max(0, z.donatedIn), 0)).toBeLessThanOrEqual(glance.donated);
    const auto = demo.services.filter((s) => (s.mechanism === 'topology-mode' || s.mechanism === 'legacy-annotation') && s.expected.hintsEnabled);
    expect(glance.autoServices).toBe(auto.length);
    expect(glance.donated).toBe(auto.reduce((sum, s) => sum + s.expected.donatedEndpoints, 0));
    expect(glance.sentences.length).toBeGreaterThanOrEqual(2);
  });

  it('says CPU is even when every zone is within two points of an even share', () => {
    const glance = zoneGlance(zones({ a: 0.34, b: 0.33, c: 0.33 }), [], null);
    expect(glance.sentences).toEqual(['CPU is even: each of the 3 zones holds 33.3 % of it, within 2 points.']);
    expect(glance.zones.map((z) => z.crossZoneShare)).toEqual([null, null, null]);
  });

  it('names the zones furthest above and below an even share, and where Auto moves endpoints', () => {
    const cluster = zones({ a: 0.5, b: 0.25, c: 0.25 });
    // Nine endpoints, three a zone: Auto wants about 4.5 / 2.25 / 2.25, so b and c give one each to a.
    const services = [service({ a: 3, b: 3, c: 3 }, { a: 5, b: 2, c: 2 }, 2), service({ a: 1, b: 1, c: 1 }, null)];
    const glance = zoneGlance(cluster, services, null);
    expect(glance.zones.map((z) => [z.zone, z.donatedIn, z.readyEndpoints])).toEqual([
      ['a', 2, 4],
      ['b', -1, 4],
      ['c', -1, 4],
    ]);
    expect(glance.sentences).toEqual([
      'CPU is uneven (an even share is 33.3 %): a holds 50.0 % (+16.7 pt), b 25.0 % (−8.3 pt).',
      'Auto donates 2 endpoints across zones to match the CPU shares: into a (+2), from b (−1) and c (−1); each serves another zone\'s clients.',
    ]);
  });

  it('says when Auto donates nothing, and which zone sends the most traffic across zones', () => {
    const cluster = zones({ a: 0.5, b: 0.5 });
    const flows = { now: { a: { a: 90, b: 10 }, b: { a: 60, b: 40 } }, expected: {}, best: {} };
    const glance = zoneGlance(cluster, [service({ a: 2, b: 2 }, { a: 2, b: 2 })], { flows });
    expect(glance.zones.map((z) => z.crossZoneShare)).toEqual([0.1, 0.6]);
    expect(glance.sentences).toEqual([
      'CPU is even: each of the 2 zones holds 50.0 % of it, within 2 points.',
      "Auto donates no endpoint across zones: the ready endpoints of its 1 Service follow each zone's CPU share closely enough.",
      "b's clients send the most traffic across zones: 60.0 % of theirs is served in another zone now (86 % of the cluster's cross-zone GB).",
    ]);
    expect(zoneGlance(cluster, [], { flows: { now: { a: { a: 5 }, b: { b: 5 } }, expected: {}, best: {} } }).sentences).toContain('No traffic crosses zones now.');
  });

  it('says so when no zone has a CPU share', () => {
    const glance = zoneGlance(zones({ a: null, b: null }), [], null);
    expect(glance.evenShare).toBeNull();
    expect(glance.sentences[0]).toMatch(/^No zone has a CPU share/);
  });
});

describe('formatPoints', () => {
  it('signs the points with a true minus and one decimal', () => {
    expect([formatPoints(3.14), formatPoints(-2), formatPoints(0.01), formatPoints(-0.04)]).toEqual(['+3.1 pt', '−2.0 pt', '0.0 pt', '0.0 pt']);
  });
});

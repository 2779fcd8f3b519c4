/**
 * The Services API's filter, sort and paging over rows sorted once per column and direction give
 * exactly what filtering and then sorting each request's rows gave (the shared query definition of
 * lib/shared/service-query.ts), for random rows and queries — ties of the natural key (`svc-1` and `svc-01`)
 * included — and the namespaces list is the sorted set of the rows' namespaces. The rows of
 * successive analyses say what each report and its traffic figures say, reusing a row only for the
 * same report with the same figures; their HPA column agrees with the Service page's HPA scan, and
 * the measured difference is measured minus predicted, in points.
 */
import { describe, expect, it } from 'vitest';

import { defaultVolumeSettings } from '../../topology/analyses/service-volume';
import { testEndpoints, testSlice } from '../../topology/model/test-cluster';
import { AnalysisCache } from '../../topology/report/analysis-cache';
import type { AttentionReason, ClusterAnalysis } from '../../topology/report/analysis-schema';
import { analyzeCluster, analyzeClusterIn, clusterTrafficOf } from '../../topology/report/cluster-analysis';
import { prepareAnalysis, withAnalysisCache } from '../../topology/report/prepared-analysis';
import { publicCases } from '../../topology/report/test-public-cases';
import type { QueryableService, ServiceQuery } from '../../shared/service-query';
import { API_SORT_ALIASES, HPA_FILTERS, HPA_SCALE_DOWN_STATES, queryServices, SERVICE_SORT_KEYS, serviceNaturalKey, serviceSearchText } from '../../shared/service-query';
import { clusterAnswers } from './attention';
import { exportServiceRows, queryServiceRows } from './query';
import type { ServiceRow } from './rows';
import { pointsDifference, predictedOfDelivered, serviceNamespaces, serviceRows } from './rows';

/** A small seeded generator (mulberry32): the same rows and queries on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMESPACES = ['shop', 'ads', 'payments', 'web-1', 'web-01'];
const NAMES = ['api', 'svc-1', 'svc-01', 'svc-154', 'svc-1454', 'cart', 'Cart', 'front'];
const MECHANISMS = ['none', 'topology-mode', 'legacy-annotation', 'trafficDistribution'] as const;
const REASONS: readonly (AttentionReason | null)[] = [null, null, 'hints-off', 'cross-zone-leak', 'hints-unused'];
const TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer'] as const;

function rows(next: () => number): ServiceRow[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const seen = new Set<string>();
  const out: ServiceRow[] = [];
  for (const namespace of NAMESPACES) {
    for (const name of NAMES) {
      if (next() < 0.25 || seen.has(`${namespace}/${name}`)) continue;
      seen.add(`${namespace}/${name}`);
      const attention = pick(REASONS);
      const counted = next() < 0.8;
      out.push({
        namespace, name, type: pick(TYPES), mechanism: pick(MECHANISMS), hintsExpected: next() < 0.5, hintsObserved: pick(['all', 'some', 'none'] as const),
        reason: attention === null ? (next() < 0.3 ? 'Hints off: Insufficient Node information' : null) : `why: ${attention}`,
        attention: attention === null ? null : { reason: attention, message: `why: ${attention}` },
        endpointsByZone: { a: 1 }, readyEndpoints: Math.floor(next() * 5), crossZoneFraction: Math.floor(next() * 4) / 4, crossZoneFractionIfAuto: 0,
        gbPerMonth: counted ? Math.floor(next() * 3) * 50 : null, volumeSource: counted ? 'assumed' : null, monthlyCost: counted ? Math.floor(next() * 3) : null, measuredCrossZoneFraction: null,
        measuredMinusPredicted: counted && next() < 0.6 ? pick([-30, -10, -2.5, 0, 9.9, 10, 25]) : null,
        hpaScaleDown: { state: pick(HPA_SCALE_DOWN_STATES), minReplicas: 2, maxReplicas: 9, hintsOffAt: [] },
      });
    }
  }
  return out;
}

function query(next: () => number, namespaces: readonly string[]): ServiceQuery {
  const maybe = <T>(value: T): T | undefined => (next() < 0.5 ? value : undefined);
  return {
    sort: SERVICE_SORT_KEYS[Math.floor(next() * SERVICE_SORT_KEYS.length)],
    order: maybe(next() < 0.5 ? 'asc' : 'desc'),
    q: maybe(['svc-1', 'SHOP/', 'cart', ' api ', 'why'][Math.floor(next() * 5)]),
    searchReasons: maybe(true),
    namespace: maybe(namespaces[Math.floor(next() * namespaces.length)]),
    attention: maybe(true),
    mechanism: maybe(MECHANISMS[Math.floor(next() * MECHANISMS.length)]),
    type: maybe(TYPES[Math.floor(next() * TYPES.length)]),
    reason: maybe((REASONS[2 + Math.floor(next() * 3)] as string) ?? ''),
    hpa: maybe(HPA_FILTERS[Math.floor(next() * HPA_FILTERS.length)]),
    measuredDiff: maybe([0, 5, 10, 20][Math.floor(next() * 4)]),
    offset: maybe(Math.floor(next() * 10)),
    limit: maybe(1 + Math.floor(next() * 20)),
  };
}

/** What the API answered before: this request's rows filtered, then sorted. */
function reference(all: readonly ServiceRow[], q: ServiceQuery): ServiceRow[] {
  const queryable = all.map((row): QueryableService & { row: ServiceRow } => ({
    row, namespace: row.namespace, name: row.name, mechanism: row.mechanism, type: row.type, hintsExpected: row.hintsExpected, hintsObserved: row.hintsObserved,
    reason: row.reason, attention: row.attention?.reason ?? null, readyEndpoints: row.readyEndpoints, crossZoneFraction: row.crossZoneFraction,
    gbPerMonth: row.gbPerMonth, monthlyCost: row.monthlyCost, hpaScaleDown: row.hpaScaleDown.state, measuredMinusPredicted: row.measuredMinusPredicted, search: serviceSearchText(row.namespace, row.name), naturalKey: serviceNaturalKey(row.namespace, row.name),
  }));
  return queryServices(queryable, { ...q, sort: API_SORT_ALIASES[q.sort ?? 'namespace'] }).map((entry) => entry.row);
}

const keys = (list: readonly ServiceRow[]) => list.map((row) => `${row.namespace}/${row.name}`);

describe('the Services API query over rows sorted once', () => {
  it('answers every random query as filtering then sorting its rows did', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const all = rows(next);
      for (let i = 0; i < 25; i++) {
        const q = query(next, NAMESPACES);
        const expected = reference(all, q);
        expect(keys(exportServiceRows(all, q))).toEqual(keys(expected));
        const offset = Math.max(0, q.offset ?? 0);
        const limit = Math.min(500, Math.max(1, q.limit ?? 100));
        const page = queryServiceRows(all, q);
        expect(page.total).toBe(expected.length);
        expect(keys(page.items)).toEqual(keys(expected.slice(offset, offset + limit)));
      }
    }
  });

  it('keeps the order of names that sort alike (svc-1 and svc-01) as the rows have them', () => {
    const next = random(7);
    const all = rows(next).filter((row) => row.name === 'svc-1' || row.name === 'svc-01');
    expect(all.length).toBeGreaterThan(2);
    expect(keys(exportServiceRows(all, { sort: 'name' }))).toEqual(keys(reference(all, { sort: 'name' })));
    expect(keys(exportServiceRows([...all].reverse(), { sort: 'name' }))).toEqual(keys(reference([...all].reverse(), { sort: 'name' })));
  });

  it('lists the namespaces of the rows once each, sorted', () => {
    const all = rows(random(3));
    expect(serviceNamespaces(all)).toEqual([...new Set(all.map((row) => row.namespace))].sort());
    expect(serviceNamespaces(all)).toBe(serviceNamespaces(all));
  });
});

describe('the Services rows of successive analyses', () => {
  const cached = () => withAnalysisCache(prepareAnalysis(publicCases()), new AnalysisCache());
  const byServiceOf = (analysis: ClusterAnalysis, gbPerEndpoint = 50) => clusterTrafficOf(analysis, defaultVolumeSettings({ gbPerEndpoint }), null).byService;
  const view = (rows: readonly ServiceRow[]) => rows.map((row) => ({ key: `${row.namespace}/${row.name}`, ready: row.readyEndpoints, gb: row.gbPerMonth, cost: row.monthlyCost }));

  it('are each Service’s report with its traffic figures', () => {
    const analysis = analyzeCluster(publicCases());
    const byService = byServiceOf(analysis);
    const rows = serviceRows(analysis, byService);
    expect(view(rows)).toEqual(
      analysis.services.map((report) => {
        const cost = byService.get(`${report.namespace}/${report.name}`);
        return { key: `${report.namespace}/${report.name}`, ready: report.observed.readyEndpoints, gb: cost ? Math.round(cost.volume.gbPerMonth * 1e6) / 1e6 : null, cost: cost ? Math.round(cost.monthlyCost * 1e6) / 1e6 : null };
      }),
    );
    expect(rows.find((row) => row.name === 'web')).toMatchObject({ readyEndpoints: 11, gbPerMonth: 550, volumeSource: 'assumed', mechanism: 'topology-mode' });
    expect(serviceRows(analysis, null).every((row) => row.gbPerMonth === null && row.monthlyCost === null)).toBe(true);
  });

  it('keep the rows of the reports a new analysis kept, and follow new traffic figures', () => {
    const prepared = cached();
    const first = analyzeClusterIn(prepared);
    const second = analyzeClusterIn(prepared);
    expect(second).not.toBe(first);
    expect(second.services[0]).toBe(first.services[0]);
    const rows = serviceRows(first, byServiceOf(first));
    // A new analysis of the same reports, with traffic figures computed anew (equal values): the same row objects.
    const again = serviceRows(second, byServiceOf(second));
    again.forEach((row, i) => expect(row).toBe(rows[i]));
    // Other volumes: every counted row says so.
    const doubled = serviceRows(second, byServiceOf(second, 100));
    doubled.forEach((row, i) => {
      const base = rows[i] as ServiceRow;
      expect(row).not.toBe(base);
      expect(row.gbPerMonth).toBe(base.gbPerMonth === null ? null : base.gbPerMonth * 2);
      expect(row.monthlyCost ?? -1).toBeCloseTo(base.monthlyCost === null ? -1 : base.monthlyCost * 2, 5);
    });
  });

  it('of a changed Service are new: its row says what its new report says', () => {
    const before = analyzeCluster(publicCases());
    const web = testEndpoints({ 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 }, { service: 'web' });
    const after = analyzeCluster(publicCases({ endpointSlices: [...publicCases().snapshot.endpointSlices.filter((slice) => slice.serviceName !== 'web'), testSlice('web', web)] }));
    const rows = serviceRows(before, byServiceOf(before));
    const changed = serviceRows(after, byServiceOf(after));
    expect(rows.find((row) => row.name === 'web')?.readyEndpoints).toBe(11);
    expect(changed.find((row) => row.name === 'web')).toMatchObject({ readyEndpoints: 3, gbPerMonth: 150 });
  });
});

describe('the HPA column of the Services rows', () => {
  const hpaOf = (index: ReturnType<typeof publicCases>) => {
    const prepared = prepareAnalysis(index);
    const analysis = analyzeClusterIn(prepared);
    const rows = serviceRows(analysis, null, undefined, prepared.context);
    return { analysis, row: (name: string) => rows.find((r) => r.name === name)?.hpaScaleDown };
  };

  it('says at which counts of the HPA range hints are off, as the Service page’s scan does', () => {
    // api: HPA 3–12 over three equal zones: off at 4, 5, 8 and 11 (Σ minimum > replicas), on at 3.
    const { analysis, row } = hpaOf(publicCases());
    expect(row('api')).toEqual({ state: 'off-in-range', minReplicas: 3, maxReplicas: 12, hintsOffAt: [4, 5, 8, 11] });
    expect(row('api')?.hintsOffAt).toEqual(analysis.services.find((s) => s.name === 'api')?.hpa?.hintsOffAt);
    expect(row('web')).toEqual({ state: 'none', minReplicas: null, maxReplicas: null, hintsOffAt: [] });
  });

  it('is off at minReplicas when the low end turns hints off, on when no count of the range does', () => {
    const hpa = (minReplicas: number, maxReplicas: number) => publicCases().snapshot.hpas.map((h) => ({ ...h, minReplicas, maxReplicas }));
    expect(hpaOf(publicCases({ hpas: hpa(4, 12) })).row('api')).toMatchObject({ state: 'off-at-min', hintsOffAt: [4, 5, 8, 11] });
    expect(hpaOf(publicCases({ hpas: hpa(12, 30) })).row('api')).toEqual({ state: 'on', minReplicas: 12, maxReplicas: 30, hintsOffAt: [] });
  });

  it('where several Deployments match the selector, follows the one owning the Service’s pods, as the Service page does', () => {
    const cases = publicCases();
    const api = cases.snapshot.deployments.find((d) => d.name === 'api');
    if (api === undefined) throw new Error('no api Deployment');
    // A second Deployment with the same pod template labels but no pods (a canary scaled to zero).
    const deployments = [...cases.snapshot.deployments, { ...api, name: 'api-canary', replicas: 0, readyReplicas: 0 }];
    expect(hpaOf(publicCases({ deployments })).row('api')).toMatchObject({ state: 'off-in-range', minReplicas: 3 });
    const onCanary = cases.snapshot.hpas.map((h) => ({ ...h, scaleTargetRef: { kind: 'Deployment', name: 'api-canary' } }));
    expect(hpaOf(publicCases({ deployments, hpas: onCanary })).row('api')?.state).toBe('none');
  });

  it('is not applicable where the hints do not come from the Auto heuristic, unknown without the cluster', () => {
    const services = publicCases().snapshot.services.map((s) => (s.name === 'api' ? { ...s, annotations: {} } : s));
    expect(hpaOf(publicCases({ services })).row('api')).toMatchObject({ state: 'not-applicable', minReplicas: 3, maxReplicas: 12, hintsOffAt: [] });
    const analysis = analyzeCluster(publicCases());
    expect(serviceRows(analysis, null).every((r) => r.hpaScaleDown.state === 'unknown')).toBe(true);
  });
});

describe('the measured difference of the Services rows', () => {
  it('is measured minus predicted in points, to one decimal, never -0', () => {
    expect(pointsDifference(0.5, 0.2764)).toBe(22.4);
    expect(pointsDifference(0.1, 0.25)).toBe(-15);
    expect(Object.is(pointsDifference(0.3, 0.30001), 0)).toBe(true);
  });

  it('compares with the share of the delivered traffic, as the Service page does', () => {
    expect(predictedOfDelivered({ crossZoneFraction: 0.3, droppedFraction: 0 })).toBe(0.3);
    expect(predictedOfDelivered({ crossZoneFraction: 0.3, droppedFraction: 0.25 })).toBeCloseTo(0.4, 12);
    expect(predictedOfDelivered({ crossZoneFraction: 0, droppedFraction: 1 })).toBe(0);
  });

  it('is null unless the Service is measured with zone-resolved flows, then measured minus predicted', () => {
    const analysis = analyzeCluster(publicCases());
    const byService = clusterTrafficOf(analysis, defaultVolumeSettings({ gbPerEndpoint: 50 }), null).byService;
    expect(serviceRows(analysis, byService).every((r) => r.measuredMinusPredicted === null && r.measuredCrossZoneFraction === null)).toBe(true);
    // The same figures with web's volume measured by flows at 50 % cross-zone.
    const web = byService.get('default/web');
    if (web === undefined) throw new Error('no traffic figures for web');
    const measured = new Map(byService);
    measured.set('default/web', { ...web, volume: { ...web.volume, source: { ...web.volume.source, kind: 'measured-flows' } }, crossZoneFraction: 0.5 });
    const row = serviceRows(analysis, measured).find((r) => r.name === 'web');
    const predicted = analysis.services.find((s) => s.name === 'web')?.traffic.crossZoneFraction ?? NaN;
    expect(row?.measuredCrossZoneFraction).toBe(0.5);
    expect(row?.measuredMinusPredicted).toBe(Math.round((0.5 - predicted) * 1000) / 10);
    expect(row?.measuredMinusPredicted).not.toBe(0);
  });
});

describe('the Overview’s counts over the Services rows', () => {
  it('count what the table’s hpa and measuredDiff filters keep', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const all = rows(random(seed));
      const answers = clusterAnswers(all);
      expect(answers.hpaOffAtMin).toBe(exportServiceRows(all, { hpa: 'off-at-min' }).length);
      expect(answers.hpaOffAtMin + answers.hpaOffInRange).toBe(exportServiceRows(all, { hpa: 'off' }).length);
      expect(answers.measuredDiffers).toBe(exportServiceRows(all, { measuredDiff: answers.threshold }).length);
      expect(answers.measured).toBe(exportServiceRows(all, { measuredDiff: 0 }).length);
      expect(answers.withHpa + answers.hpaUnknown + exportServiceRows(all, { hpa: 'none' }).length).toBe(all.length);
      expect(clusterAnswers(all)).toBe(answers);
    }
  });
});

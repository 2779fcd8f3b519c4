import { describe, expect, it } from 'vitest';

import { parseBenchArgs } from './args';
import { latencyStats, percentile } from './http';
import type { BenchResult } from './report';
import { missedGoals } from './report';

describe('bench arguments', () => {
  it('needs a scale and takes the documented options', () => {
    expect(parseBenchArgs([])).toBe('--scale is required');
    expect(parseBenchArgs(['--scale', 'X'])).toBe('--scale takes S, M or L');
    expect(parseBenchArgs(['--help'])).toBe('help');
    expect(parseBenchArgs(['--', '--scale', 'L', '--requests', '50', '--churn-minutes', '30', '--no-kubectl', '--build', 'never'])).toMatchObject({
      scale: 'L',
      requests: 50,
      churnMinutes: 30,
      churnRate: 20,
      kubectl: false,
      build: 'never',
      timeoutMinutes: 60,
    });
    expect(parseBenchArgs(['--scale', 'L'])).toMatchObject({ prometheus: true, prometheusRefreshSeconds: 10, trafficSeconds: 30, trafficOnly: false });
    expect(parseBenchArgs(['--scale', 'L', '--traffic-only', '--no-prometheus', '--traffic-seconds', '0', '--prometheus-refresh-seconds', '5'])).toMatchObject({
      prometheus: false,
      prometheusRefreshSeconds: 5,
      trafficSeconds: 0,
      trafficOnly: true,
    });
    expect(parseBenchArgs(['--scale', 'S', '--prometheus-refresh-seconds', '0'])).toBe('--prometheus-refresh-seconds must be at least 1');
    expect(parseBenchArgs(['--scale', 'S', '--requests', '0'])).toBe('--requests must be at least 1');
    expect(parseBenchArgs(['--scale', 'S', '--what'])).toBe('unknown argument "--what"');
  });
});

describe('bench statistics', () => {
  it('nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    const stats = latencyStats([
      { status: 200, ms: 3, bytes: 10, body: '', headers: {} },
      { status: 503, ms: 1, bytes: 20, body: '', headers: {} },
    ]);
    expect(stats).toMatchObject({ n: 2, p50: 1, p95: 3, max: 3, bytes: 15, errors: 1 });
  });

  it('names every missed goal with its figure', () => {
    const result = {
      scale: 'L',
      coldSyncSeconds: 61,
      clusterP95Ms: 10,
      servicesP95Ms: 10,
      serviceP95Ms: 25,
      bigServiceP95Ms: 10,
      analyzeAllMs: 150,
      rssMiB: 700,
      readPathApiRequests: 0,
      watchesPerType: 1,
      changeLatencyMs: 100,
      overviewVsKubectl: 40,
      overviewPageP95Ms: 10,
      servicesPageP95Ms: 10,
      servicePageP95Ms: 10,
      bigServicePageP95Ms: 10,
    } as unknown as Omit<BenchResult, 'goalsMissed'>;
    expect(missedGoals(result)).toEqual(['coldSyncSeconds 61 > 60', 'serviceP95Ms 25 > 20', 'overviewVsKubectl 40 < 50']);
  });
});

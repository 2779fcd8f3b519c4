import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';

import { parseBenchArgs } from './args';
import { latencyStats, percentile } from './http';
import { closeScrapeConnections, countExposition, formulaSeries, perServiceFamilies, promtoolCheck, scrape, treeCpuMs } from './metrics';
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

  it('takes the metrics phase options', () => {
    expect(parseBenchArgs(['--scale', 'S'])).toMatchObject({ metricsSeconds: 30, metricsOnly: false });
    expect(parseBenchArgs(['--scale', 'L', '--metrics-only', '--metrics-seconds', '10'])).toMatchObject({ metricsSeconds: 10, metricsOnly: true });
    expect(parseBenchArgs(['--scale', 'S', '--metrics-seconds', '0'])).toMatchObject({ metricsSeconds: 0 });
    expect(parseBenchArgs(['--scale', 'S', '--metrics-seconds', 'x'])).toBe('--metrics-seconds needs a whole number');
    expect(parseBenchArgs(['--scale', 'S', '--metrics-only', '--traffic-only'])).toBe('--traffic-only and --metrics-only exclude each other');
    expect(parseBenchArgs(['--scale', 'S', '--metrics-only', '--metrics-seconds', '0'])).toBe('--metrics-only needs --metrics-seconds of at least 1');
    expect(parseBenchArgs(['--scale', 'M', '--metrics-only', '--realistic'])).toMatchObject({ scale: 'M', metricsOnly: true, realistic: true });
    expect(parseBenchArgs(['--scale', 'M', '--realistic'])).toBe('--realistic needs --metrics-only (the other phases read the bench Services of the reference cluster)');
  });
});

/** A scrape shaped like the exporter's (contract §1): two Services in three zones, cluster and runtime series. */
const EXPOSITION = [
  '# HELP zonescope_service_info Service',
  '# TYPE zonescope_service_info gauge',
  'zonescope_service_info{namespace="payments",service="ledger",type="ClusterIP",mechanism="topology-mode",traffic_distribution="",topology_mode="Auto"} 1',
  'zonescope_service_info{namespace="odd",service="a\\"b,c={}",type="ClusterIP",mechanism="none",traffic_distribution="",topology_mode=""} 1',
  'zonescope_service_hints_expected{namespace="payments",service="ledger"} 1',
  'zonescope_service_hints_expected{namespace="odd",service="a\\"b,c={}"} 0',
  ...['a', 'b', 'c'].map((z) => `zonescope_service_ready_endpoints{namespace="payments",service="ledger",zone="eu-west-1${z}"} 2`),
  ...['a', 'b', 'c'].map((z) => `zonescope_service_ready_endpoints{namespace="odd",service="a\\"b,c={}",zone="eu-west-1${z}"} 0`),
  '# TYPE zonescope_services gauge',
  'zonescope_services{mechanism="none"} 1',
  'zonescope_services{mechanism="topology-mode"} 1',
  ...['a', 'b', 'c'].map((z) => `zonescope_zone_nodes{zone="eu-west-1${z}"} 3`),
  'zonescope_cluster_synced 1',
  'zonescope_metrics_services_exported 2',
  'zonescope_metrics_services_omitted 0',
  'process_resident_memory_bytes 1.5e+08',
  'nodejs_heap_size_total_bytes 9e+07',
  'nodejs_heap_size_total_bytes 9e+07',
  '',
].join('\n');

describe('bench metrics phase: counting a scrape', () => {
  it('counts series, Services, zones and duplicates as Prometheus would see them', () => {
    const counts = countExposition(EXPOSITION);
    expect(counts).toMatchObject({ series: 21, serviceSeries: 10, clusterSeries: 11, runtimeSeries: 3, services: 2, zones: 3, servicesExported: 2, servicesOmitted: 0, synced: 1, duplicateSeries: 1 });
    expect(counts.byFamily['zonescope_service_ready_endpoints']).toBe(6);
    // 2 Services × (8 + 2 × 3 zones) + 11 cluster series.
    expect(formulaSeries(counts)).toBe(39);
    expect(perServiceFamilies(counts)).toEqual([
      { family: 'zonescope_service_ready_endpoints', perService: 3 },
      { family: 'zonescope_service_hints_expected', perService: 1 },
      { family: 'zonescope_service_info', perService: 1 },
    ]);
    expect(countExposition('# only comments\n\n')).toMatchObject({ series: 0, services: 0, synced: null, servicesExported: null });
  });

  it('reads a gzip answer as Prometheus asks for it, and a plain one', async () => {
    const server = http.createServer((request, response) => {
      const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      response.end(gzip ? zlib.gzipSync(EXPOSITION) : EXPOSITION);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    try {
      const zipped = await scrape(url, { gzip: true });
      const plain = await scrape(url, { gzip: false });
      expect(zipped).toMatchObject({ status: 200, contentEncoding: 'gzip', text: EXPOSITION });
      expect(plain).toMatchObject({ status: 200, contentEncoding: 'identity', text: EXPOSITION, wireBytes: Buffer.byteLength(EXPOSITION) });
      expect(zipped.wireBytes).toBeLessThan(plain.wireBytes);
    } finally {
      closeScrapeConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.skipIf(!existsSync('/proc/self/stat'))('reads the CPU time a process has used', () => {
    const before = treeCpuMs(process.pid);
    const until = performance.now() + 150;
    let x = 0;
    while (performance.now() < until) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    expect(treeCpuMs(process.pid) - before).toBeGreaterThanOrEqual(50);
    expect(treeCpuMs(2 ** 22 + 12345)).toBe(0);
  });

  it.skipIf(!existsSync('/usr/bin/promtool') && !process.env.PROMTOOL_BIN)('passes the text to promtool check metrics and reports its verdict', async () => {
    const good = await promtoolCheck('# HELP zonescope_cluster_synced Synced.\n# TYPE zonescope_cluster_synced gauge\nzonescope_cluster_synced 1\n', process.env.PROMTOOL_BIN || '/usr/bin/promtool');
    expect(good).toMatchObject({ exitCode: 0, lines: [] });
    const lint = await promtoolCheck('# HELP foo_count x\n# TYPE foo_count counter\nfoo_count 1\n', process.env.PROMTOOL_BIN || '/usr/bin/promtool');
    expect(lint.exitCode).not.toBe(0);
    expect(lint.lines.join('\n')).toContain('counter metrics should have "_total" suffix');
    const missing = await promtoolCheck('x 1\n', '/nonexistent/promtool');
    expect(missing.exitCode).toBeNull();
    expect(missing.lines[0]).toContain('is not installed');
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

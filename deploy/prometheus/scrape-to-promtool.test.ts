import { describe, expect, it } from 'vitest';

import { compressValues, escapeLabelValue, ExpositionParseError, parseExposition, scrapesToInputSeries, seriesNotation } from './scrape-to-promtool';

/** Text shaped like the exporter's output (contract §1), with prom-client's defaults mixed in. */
const SCRAPE = `# HELP zonescope_service_hints_observed_ratio Share of ready endpoints carrying a zone hint.
# TYPE zonescope_service_hints_observed_ratio gauge
zonescope_service_hints_observed_ratio{namespace="shop",service="checkout"} 1
zonescope_service_hints_observed_ratio{namespace="shop",service="cart"} 0
# HELP zonescope_service_hints_reason_info The hints reason code.
# TYPE zonescope_service_hints_reason_info gauge
zonescope_service_hints_reason_info{namespace="shop",service="cart",reason="insufficient-number-of-endpoints"} 1
zonescope_cluster_info{cluster="prod \\"eu\\"\\\\a",kubernetes_version="1.35",platform="eks",proxy_mode="ipvs"} 1
zonescope_cluster_synced 1
process_cpu_user_seconds_total 0.12
nodejs_heap_size_total_bytes 1234567
zonescope_sync_age_seconds 2.5 1700000000000
`;

describe('parseExposition', () => {
  it('reads samples with their labels and values, and drops comments and process_/nodejs_ series', () => {
    const samples = parseExposition(SCRAPE);
    expect(samples.map((s) => s.name)).toEqual([
      'zonescope_service_hints_observed_ratio',
      'zonescope_service_hints_observed_ratio',
      'zonescope_service_hints_reason_info',
      'zonescope_cluster_info',
      'zonescope_cluster_synced',
      'zonescope_sync_age_seconds',
    ]);
    expect(samples[2]).toEqual({ name: 'zonescope_service_hints_reason_info', labels: { namespace: 'shop', service: 'cart', reason: 'insufficient-number-of-endpoints' }, value: 1 });
    // Text-format escapes are undone: the value is what the exporter meant.
    expect(samples[3]?.labels.cluster).toBe('prod "eu"\\a');
    expect(samples[5]?.value).toBe(2.5);
  });

  it('reads special values, exponents, spaces around labels, a trailing comma and an empty label set', () => {
    const samples = parseExposition('a NaN\nb +Inf\nc -Inf\nd 1.5e-7\ne{ x = "1" , } 3\nf{} 4\r\ng Nan\n');
    // prom-client writes `Nan` for an empty summary; Prometheus reads it as Go's ParseFloat does.
    expect(samples.map((s) => s.value)).toEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1.5e-7, 3, 4, Number.NaN]);
    expect(samples[4]?.labels).toEqual({ x: '1' });
    expect(samples[5]?.labels).toEqual({});
  });

  it('names the line that is not a sample', () => {
    expect(() => parseExposition('ok 1\nbroken{a="1" 2\n')).toThrow(ExpositionParseError);
    expect(() => parseExposition('ok 1\nbroken{a="1" 2\n')).toThrow(/^line 2: expected , or } after a label/);
    expect(() => parseExposition('x{a="1} 2')).toThrow(/unterminated value of label a/);
    expect(() => parseExposition('x{a="\\t"} 2')).toThrow(/bad escape/);
    expect(() => parseExposition('x one')).toThrow(/line 1: not a number: one/);
    expect(() => parseExposition('x{a="1",a="2"} 1')).toThrow(/label a given twice/);
    expect(() => parseExposition('{a="1"} 1')).toThrow(/expected a metric name/);
    expect(() => parseExposition('x')).toThrow(/expected a value/);
  });
});

describe('series notation', () => {
  it('escapes backslashes, quotes and newlines as a PromQL string', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
  });

  it('sorts labels so a series always reads the same', () => {
    expect(seriesNotation('up', { job: 'zonescope', instance: '10.0.0.7:3000' })).toBe('up{instance="10.0.0.7:3000",job="zonescope"}');
    expect(seriesNotation('zonescope_cluster_synced', {})).toBe('zonescope_cluster_synced');
  });
});

describe('compressValues', () => {
  it('writes runs as promtool expands them (axn is n+1 values, _xn is n)', () => {
    expect(compressValues([1, 1, 1, 0, 0])).toBe('1x2 0x1');
    expect(compressValues([1])).toBe('1');
    expect(compressValues([0.25, 0.5, 0.5])).toBe('0.25 0.5x1');
    expect(compressValues([1, null, null, null, 2])).toBe('1 _x3 2');
    expect(compressValues([1, 1, 'stale', null, null, 2])).toBe('1x1 stale _x2 2');
    expect(compressValues([null, 3])).toBe('_ 3');
    expect(compressValues([Number.NaN, Number.NaN, Number.POSITIVE_INFINITY, -2])).toBe('NaNx1 Inf -2');
    expect(compressValues([])).toBe('');
  });
});

describe('scrapesToInputSeries', () => {
  it('turns a sequence of scrapes into one entry per series with the target labels', () => {
    const before = 'zonescope_service_hints_observed_ratio{namespace="shop",service="checkout"} 1\nzonescope_cluster_synced 1\n';
    const after = 'zonescope_service_hints_observed_ratio{namespace="shop",service="checkout"} 0\nzonescope_cluster_synced 1\n';
    const scrapes = [...Array<string>(21).fill(before), ...Array<string>(41).fill(after)];
    expect(scrapesToInputSeries(scrapes, { targetLabels: { job: 'zonescope', instance: '127.0.0.1:3000' } })).toEqual([
      { series: 'zonescope_cluster_synced{instance="127.0.0.1:3000",job="zonescope"}', values: '1x61' },
      { series: 'zonescope_service_hints_observed_ratio{instance="127.0.0.1:3000",job="zonescope",namespace="shop",service="checkout"}', values: '1x20 0x40' },
    ]);
  });

  it('marks a series stale where a scrape failed or lacked it, then leaves it missing, and keeps a label the exporter set', () => {
    const series = scrapesToInputSeries(
      ['a{job="own"} 1\nb 2\n', null, 'a{job="own"} 1\n', 'a{job="own"} 1\n', 'a{job="own"} 1\nb 5\n', 'c 1\n'],
      { targetLabels: { job: 'zonescope' } },
    );
    expect(series).toEqual([
      { series: 'a{job="own"}', values: '1 stale 1x2 stale' },
      { series: 'b{job="zonescope"}', values: '2 stale _x2 5 stale' },
      { series: 'c{job="zonescope"}', values: '_x5 1' },
    ]);
  });

  it('a label that changes between scrapes ends the old series where the new one starts', () => {
    const scrape = (reason: string) => `zonescope_service_hints_reason_info{namespace="shop",service="web",reason="${reason}"} 1\n`;
    expect(scrapesToInputSeries([scrape('enabled'), scrape('enabled'), scrape('insufficient-number-of-endpoints')])).toEqual([
      { series: 'zonescope_service_hints_reason_info{namespace="shop",reason="enabled",service="web"}', values: '1x1 stale' },
      { series: 'zonescope_service_hints_reason_info{namespace="shop",reason="insufficient-number-of-endpoints",service="web"}', values: '_x2 1' },
    ]);
  });

  it('escapes label values into the series notation', () => {
    const [entry] = scrapesToInputSeries(['zonescope_cluster_info{cluster="a\\"b"} 1\n']);
    expect(entry?.series).toBe('zonescope_cluster_info{cluster="a\\"b"}');
  });

  it('refuses a scrape with the same series twice', () => {
    expect(() => scrapesToInputSeries(['a{x="1"} 1\na{x="1"} 2\n'])).toThrow(/scrape 0: series a\{x="1"\} appears twice/);
  });
});

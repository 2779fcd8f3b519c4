import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { analyzeCluster } from '../lib/topology/report/cluster-analysis';
import { loadSnapshot } from '../lib/k8s/snapshot/load';
import { indexCluster } from '../lib/topology/model/cluster-model';
import { REPORT_SERVICE_DEPTH, writeJson } from './json-stream';

function streamed(value: unknown, depth?: number): { text: string; chunks: number } {
  const parts: string[] = [];
  writeJson(value, (t) => parts.push(t), depth);
  return { text: parts.join(''), chunks: parts.length };
}

describe('writeJson', () => {
  it('writes what JSON.stringify(value, null, 2) writes, plus a newline', () => {
    const date = new Date('2026-12-05T00:00:00Z');
    const values: unknown[] = [
      0,
      'text with "quotes"\nand a newline',
      null,
      [],
      {},
      [undefined, () => 1, Symbol('s'), 1],
      { a: undefined, b: () => 1, c: 1, d: [], e: {}, f: [[[[[[{ deep: ['x', { y: 'multi\nline' }] }]]]]]] },
      { when: date, custom: { toJSON: (key: string) => ({ key }) } },
      {
        get lazy() {
          return { computed: [1, 2, { three: 3 }] };
        },
        services: Array.from({ length: 50 }, (_, i) => ({ name: `svc-${i}`, zones: { a: i, b: [i, i + 1] }, note: i % 2 ? null : 'x' })),
      },
      { clusters: [{ context: 'a', report: { services: [{ n: 1 }, { n: 2 }] } }, { context: 'b', error: 'down' }], exitCode: 3 },
    ];
    for (const value of values) {
      for (const depth of [undefined, 0, 1, 2, 3]) expect(streamed(value, depth).text).toBe(`${JSON.stringify(value, null, 2)}\n`);
    }
  });

  it('property: any JSON value at any walk depth, byte for byte', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 7 }), fc.integer({ min: 0, max: 8 }), (value, depth) => {
        expect(streamed(value, depth).text).toBe(`${JSON.stringify(value, null, 2)}\n`);
      }),
      { seed: 3003, numRuns: 500 },
    );
  });

  it('hands a large report over in chunks of about 1 MiB, not as one string', () => {
    const report = { services: Array.from({ length: 20_000 }, (_, i) => ({ namespace: 'payments', name: `ledger-${i}`, text: 'x'.repeat(200) })) };
    for (const depth of [undefined, REPORT_SERVICE_DEPTH]) {
      const { text, chunks } = streamed(report, depth);
      expect(text).toBe(`${JSON.stringify(report, null, 2)}\n`);
      expect(chunks).toBeGreaterThan(3);
    }
  });

  it("prints the eks-demo analysis byte for byte as JSON.stringify does", async () => {
    const loaded = await loadSnapshot('fixtures/eks-demo.yaml');
    if (!loaded.ok) throw new Error('fixture did not load');
    const analysis = analyzeCluster(indexCluster(loaded.snapshot));
    // As the command writes one report (each Service stringified whole), and as a section of several.
    expect(streamed(analysis, REPORT_SERVICE_DEPTH).text).toBe(`${JSON.stringify(analysis, null, 2)}\n`);
    expect(streamed({ clusters: [{ context: 'a', report: analysis }], exitCode: 0 }).text).toBe(`${JSON.stringify({ clusters: [{ context: 'a', report: analysis }], exitCode: 0 }, null, 2)}\n`);
  });
});

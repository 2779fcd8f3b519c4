/**
 * The HPA replica scan as the Service page sends it: one tuple per replica count, read by the chart
 * and by the table, which renders its rows only once "Scan as a table" is opened, with the same
 * figures per row as the analysis.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { analyzeService } from '@/lib/topology/report/service-detail';
import { publicCases } from '@/lib/topology/report/test-public-cases';
import { htmlText } from '../test-support';
import { HpaPanel } from './hpa-panel';
import type { ScanTuple } from './hpa-scan-data';
import { MAX_SCAN_BARS, scanBars, scanTuples } from './hpa-scan-data';
import { ScanTable } from './hpa-scan-table';

function apiHpa() {
  const detail = analyzeService(publicCases(), 'default', 'api');
  if (!detail?.hpa?.scan) throw new Error('publicCases api has no HPA scan');
  return { analysis: detail.hpa, scan: detail.hpa.scan };
}

describe('HPA replica scan', () => {
  it('one tuple per replica count with the row figures, the same array for the same scan', () => {
    const { scan } = apiHpa();
    const tuples = scanTuples(scan);
    expect(tuples).toHaveLength(scan.length);
    expect(scan.length).toBeGreaterThan(1);
    const sum = (counts: string) => counts.split('/').reduce((total, n) => total + Number(n), 0);
    scan.forEach((row, i) => {
      const tuple = tuples[i];
      if (tuple === undefined) throw new Error(`no row for ${row.replicas} replicas`);
      const [replicas, minimumTotal, hintsOn, evenDonated, worstDonated, evenCounts, worstCounts] = tuple;
      // Each row says what the scan computed for its replica count: the count itself, the minimum,
      // whether hints stay on, and per-zone pods that add up to the replicas in both spreads.
      expect(replicas).toBe(row.replicas);
      expect(minimumTotal).toBe(row.minimumTotal);
      expect(hintsOn === 1).toBe(row.hintsEnabled);
      expect([evenDonated, worstDonated]).toEqual([row.evenSpread.donated, row.worstSpread.donated]);
      expect(sum(evenCounts)).toBe(row.replicas);
      expect(sum(worstCounts)).toBe(row.replicas);
      expect(evenCounts.split('/')).toHaveLength(Object.keys(row.evenSpread.countsByZone).length);
    });
    expect(scanTuples(scan)).toBe(tuples);
  });

  it('the table shows every replica count with Σ minimum, hints and both spreads', () => {
    const { scan } = apiHpa();
    const html = renderToStaticMarkup(<ScanTable scan={scanTuples(scan)} />);
    const rows = [...html.matchAll(/<tr class="border-t[^"]*">(.*?)<\/tr>/g)].map((m) => htmlText(m[1] ?? ''));
    expect(rows).toEqual(
      scan.map((row) =>
        [
          row.replicas,
          row.minimumTotal,
          row.hintsEnabled ? 'on' : 'off',
          `${Object.values(row.evenSpread.countsByZone).join('/')} (${row.evenSpread.donated})`,
          `${Object.values(row.worstSpread.countsByZone).join('/')} (${row.worstSpread.donated})`,
        ].join(' '),
      ),
    );
    expect(scan.some((row) => !row.hintsEnabled)).toBe(true);
  });

  it('the panel sends the disclosure closed, without the table rows', () => {
    const { analysis } = apiHpa();
    const html = renderToStaticMarkup(<HpaPanel analysis={analysis} />);
    expect(html).toContain('<summary class="cursor-pointer">Scan as a table</summary>');
    expect(html).not.toContain('Replica scan table');
    expect(htmlText(html)).toContain(`Every replica count from ${analysis.scan?.[0]?.replicas} to ${analysis.scan?.[analysis.scan.length - 1]?.replicas}: where hints turn off`);
  });

  it('a wide range is drawn in at most MAX_SCAN_BARS runs, and a count with hints off always makes its run red', () => {
    // 1,000 counts from 3,000 (as the biggest realistic-L Service's HPA): hints off at a few
    // scattered counts, Σ minimum creeping up towards the count in between.
    const offAt = new Set([3_004, 3_517, 3_518, 3_999]);
    const scan: ScanTuple[] = Array.from({ length: 1_000 }, (_, i) => {
      const replicas = 3_000 + i;
      const off = offAt.has(replicas);
      return [replicas, off ? replicas + 3 : replicas - 10 - (i % 7), off ? 0 : 1, i % 5, (i * 7) % 13, '', ''] as const;
    });
    const bars = scanBars(scan);
    expect(bars.length).toBeLessThanOrEqual(MAX_SCAN_BARS);
    expect(bars.length).toBeGreaterThan(MAX_SCAN_BARS / 2);
    // The runs cover every count once, in order.
    expect(bars[0]?.from).toBe(3_000);
    expect(bars[bars.length - 1]?.to).toBe(3_999);
    bars.forEach((bar, i) => {
      if (i > 0) expect(bar.from).toBe((bars[i - 1]?.to ?? 0) + 1);
      const run = scan.filter((t) => t[0] >= bar.from && t[0] <= bar.to);
      expect(bar.replicas).toBeGreaterThanOrEqual(bar.from);
      expect(bar.replicas).toBeLessThanOrEqual(bar.to);
      expect(bar.offCounts).toBe(run.filter((t) => t[2] === 0).length);
      expect(bar.hintsEnabled).toBe(bar.offCounts === 0);
      expect(bar.worstDonated).toBe(Math.max(...run.map((t) => t[4])));
      // The count shown is the one nearest to hints off, and its figures are that count's.
      const shown = run.find((t) => t[0] === bar.replicas);
      expect(bar.minimumTotal).toBe(shown?.[1]);
      if (bar.hintsEnabled) expect(Math.max(...run.map((t) => t[1] - t[0]))).toBe((shown?.[1] ?? 0) - bar.replicas);
    });
    expect(bars.filter((b) => !b.hintsEnabled).map((b) => b.replicas)).toEqual([3_004, 3_517, 3_999]);
    expect(scanBars(scan)).toBe(bars);
  });

  it('a range that fits is one bar per replica count', () => {
    const { scan } = apiHpa();
    const tuples = scanTuples(scan);
    expect(scanBars(tuples).map((b) => [b.from, b.to, b.replicas, b.minimumTotal, b.hintsEnabled])).toEqual(tuples.map((t) => [t[0], t[0], t[0], t[1], t[2] === 1]));
  });
});

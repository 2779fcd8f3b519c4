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
import { scanTuples } from './hpa-scan-data';
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
});

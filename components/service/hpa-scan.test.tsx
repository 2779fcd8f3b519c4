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
    scan.forEach((row, i) => {
      expect(tuples[i]).toEqual([
        row.replicas,
        row.minimumTotal,
        row.hintsEnabled ? 1 : 0,
        row.evenSpread.donated,
        row.worstSpread.donated,
        Object.values(row.evenSpread.countsByZone).join('/'),
        Object.values(row.worstSpread.countsByZone).join('/'),
      ]);
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

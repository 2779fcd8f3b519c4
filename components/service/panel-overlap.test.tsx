/**
 * The Service page says a fact once: the HPA panel points to the distribution panel's minimum
 * table when its pods per zone would repeat it, and to the verdict's HPA-range risk instead of a
 * recommendation saying the same (differently).
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import type { PodsInZone } from '@/lib/topology/analyses/hpa';
import type { MinimumTableRow } from '@/lib/topology/analyses/minimum-table';
import { analyzeService } from '@/lib/topology/report/service-detail';
import { publicCases } from '@/lib/topology/report/test-public-cases';
import { htmlText } from '../test-support';
import { HpaPanel } from './hpa-panel';
import { donationSentence, podsRepeatMinimumTable, verdictRangeRisk } from './panel-overlap';
import { ServiceVerdict } from './service-verdict';

function pods(zone: string, ready: number, minimum: number, desired: number, maximum: number, extra: Partial<PodsInZone> = {}): PodsInZone {
  return { zone, pods: ready, readyPods: ready, minimum, desired, maximum, belowMinimum: ready < minimum, ...extra };
}

function row(zone: string, ready: number, minimum: number, desired: number, maximum: number): MinimumTableRow {
  return { zone, cpuRatio: 0.5, readyEndpoints: ready, minimum, desired, maximum, formula: '', meetsMinimum: ready >= minimum } as MinimumTableRow;
}

describe('pods per zone against the minimum table', () => {
  const table = { rows: [row('a', 5, 3, 3.11, 3), row('b', 1, 2, 2.33, 2)] };

  it('repeat it when every zone has as many ready pods as ready endpoints, no pod not ready, the same allocation', () => {
    expect(podsRepeatMinimumTable({ podsByZone: [pods('a', 5, 3, 3.11, 3), pods('b', 1, 2, 2.33, 2)] }, table)).toBe(true);
  });

  it('do not when a pod is not ready, a count differs, a zone is missing, or there is no table', () => {
    expect(podsRepeatMinimumTable({ podsByZone: [pods('a', 5, 3, 3.11, 3, { pods: 6 }), pods('b', 1, 2, 2.33, 2)] }, table)).toBe(false);
    expect(podsRepeatMinimumTable({ podsByZone: [pods('a', 4, 3, 3.11, 3), pods('b', 1, 2, 2.33, 2)] }, table)).toBe(false);
    expect(podsRepeatMinimumTable({ podsByZone: [pods('a', 5, 3, 3.11, 3)] }, table)).toBe(false);
    expect(podsRepeatMinimumTable({ podsByZone: [pods('a', 5, 3, 3.11, 3), pods('b', 1, 2, 2.33, 2)] }, null)).toBe(false);
  });

  it('say in a sentence which zones donate and receive', () => {
    const podsByZone = [pods('a', 5, 3, 3.11, 3), pods('b', 1, 2, 2.33, 2), pods('c', 1, 2, 2, 2)];
    expect(donationSentence({ podsByZone, hintsEnabledNow: true })).toBe('a above its maximum (donates); b, c below their minimums (receive donations).');
    expect(donationSentence({ podsByZone, hintsEnabledNow: false })).toBe('a above its maximum; b, c below their minimums.');
    expect(donationSentence({ podsByZone: [pods('a', 3, 3, 3, 3)], hintsEnabledNow: true })).toBe('Every zone is within its range.');
  });
});

describe('the HPA panel beside the verdict (publicCases default/api: Auto, hints on, off at some HPA counts)', () => {
  const detail = analyzeService(publicCases(), 'default', 'api');
  if (!detail?.hpa) throw new Error('publicCases api has no HPA');
  const hpa = detail.hpa;

  it('the verdict shows the HPA-range risk, so the panel links to it instead of its own "hints are off at" recommendation', () => {
    const risk = verdictRangeRisk(detail);
    expect(risk).not.toBeNull();
    expect(htmlText(renderToStaticMarkup(<ServiceVerdict detail={detail} />))).toContain(risk?.text ?? '?');
    const html = renderToStaticMarkup(<HpaPanel analysis={hpa} riskInVerdict podsRepeatMinimums={podsRepeatMinimumTable(hpa, detail.minimumTable)} />);
    const text = htmlText(html);
    const offTitle = hpa.recommendations.find((r) => r.id === 'avoid-replica-counts')?.title ?? '?';
    expect(text).not.toContain(offTitle);
    expect(html).toContain('href="#verdict"');
    expect(text).toContain('Risk within the HPA range');
    // The other recommendations stay.
    expect(text).toContain(hpa.recommendations.find((r) => r.id === 'descheduler')?.title ?? '?');
  });

  it('pods per zone that repeat the minimum table: a sentence and a link, not a second table', () => {
    const html = renderToStaticMarkup(<HpaPanel analysis={hpa} podsRepeatMinimums />);
    expect(html).not.toContain('Pods per zone against the allocation');
    expect(html).toContain('href="#distribution"');
    expect(htmlText(html)).toContain(`(minimum, desired and maximum there): ${donationSentence(hpa)}`);
    // Without the overlap, the table as before.
    expect(renderToStaticMarkup(<HpaPanel analysis={hpa} />)).toContain('Pods per zone against the allocation');
  });
});

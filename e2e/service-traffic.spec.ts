/**
 * The Service page's traffic panels with measured traffic (scripts/e2e.ts starts a Prometheus that
 * scrapes the simulator's Beyla- and cAdvisor-style counters): shop/catalog is measured keep-alive
 * skewed, so measured ≠ predicted with long-lived connections among the causes that fit; the
 * "Send 100 requests" panel for payments/ledger keeps a zone-a client on zone-a pods while hints
 * are on and spreads it over every pod without them, 100 answers either way.
 */
import type { APIRequestContext } from '@playwright/test';
import type { ServiceResponse } from '../lib/views/api-types';
import { expect, test } from './fixtures';
import { ServiceTrafficPage } from './pages/service-traffic';
import { PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON } from './prometheus';

const ZONE_A = 'ap-northeast-2a';

/** Waits (bounded) until the dashboard compares catalog's measured flows with the model, and returns the comparison. */
async function measuredCatalog(request: APIRequestContext): Promise<NonNullable<ServiceResponse['measuredVsPredicted']>> {
  let body: ServiceResponse | null = null;
  await expect
    .poll(
      async () => {
        const response = await request.get('/api/v1/services/shop/catalog');
        body = (await response.json()) as ServiceResponse;
        return body.measuredVsPredicted !== null ? 'measured' : body.traffic.volume.source.label;
      },
      { message: 'the dashboard reads measured flows for shop/catalog from Prometheus', timeout: 90_000, intervals: [250, 500, 1000, 2000] },
    )
    .toBe('measured');
  const comparison = (body as ServiceResponse | null)?.measuredVsPredicted;
  if (!comparison) throw new Error('no comparison for shop/catalog');
  return comparison;
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(1)} %`;

test('shop/catalog: measured cross-zone share beside the predicted one, and long-lived connections fit', async ({ page, request }) => {
  test.skip(!PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON);
  const comparison = await measuredCatalog(request);
  expect(comparison.agrees).toBe(false);
  const service = new ServiceTrafficPage(page);
  await service.goto('shop/catalog');

  // The volume is measured, with its metric; the cost is at the measured share.
  await expect(service.volume).toContainText('measured: beyla_network_flow_bytes_total, rate over');
  await expect(service.volume).toContainText('(measured)');

  await expect(service.measured).toBeVisible();
  await expect(service.measuredCrossZone).toHaveText(percent(comparison.measuredCrossZoneFraction));
  await expect(service.predictedCrossZone).toHaveText(percent(comparison.predictedCrossZoneFraction));
  await expect(service.difference).toHaveText(/^\+\d+\.\d points$/);
  await expect(service.measured).toContainText(`Measured and predicted disagree by ${Math.abs(comparison.differencePoints).toFixed(1)} points`);
  await expect(service.fittingCauses.getByRole('listitem').filter({ hasText: 'Long-lived or keep-alive connections' })).toHaveCount(1);
  await expect(service.measured.getByRole('table').filter({ hasText: 'Where the clients are' })).toBeVisible();
  await expect(service.measured.getByRole('table').filter({ hasText: 'Measured bytes per month' }).getByRole('row')).toHaveCount(4);

  // The request sample from zone a shows the measured split of that zone beside the modelled one.
  await expect(service.sampleMeasured).toContainText(`Measured from zone ${ZONE_A}`);
});

test('payments/ledger: 100 requests from zone a stay on zone-a pods with hints, and spread over all 7 without', async ({ page }) => {
  const service = new ServiceTrafficPage(page);
  await service.goto('payments/ledger');
  await service.waitForHydration();
  await expect(service.requests).toBeVisible();
  await expect(service.zoneSelect).toHaveValue(ZONE_A);

  await service.expectSelection(new RegExp(`^hints for zone ${ZONE_A}: \\d of 7 ready endpoints$`));
  const hinted = await service.sampleRows();
  expect(hinted.length).toBeGreaterThan(0);
  expect(hinted.reduce((sum, row) => sum + row.sampled, 0)).toBe(100);
  expect(hinted.every((row) => row.sameZone && row.pod.includes(ZONE_A))).toBe(true);
  await expect(service.sampleTotal).toHaveText('100');
  await expect(service.requests.getByText(`for i in $(seq 100); do curl -s http://ledger.payments/hostname; echo; done | sort | uniq -c`)).toBeVisible();

  await service.chooseSampleScenario('Without hints');
  await service.expectSelection('no topology: all 7 ready endpoints');
  const spread = await service.sampleRows();
  expect(spread).toHaveLength(7);
  expect(spread.reduce((sum, row) => sum + row.sampled, 0)).toBe(100);
  expect(spread.some((row) => !row.sameZone)).toBe(true);

  // More requests: the counts follow, still summing to the number sent; the command loops that often.
  await service.countInput.fill('1000');
  await expect(service.sampleTotal).toHaveText('1,000');
  await expect(service.requests.getByText('for i in $(seq 1000);')).toBeVisible();
  const many = await service.sampleRows();
  expect(many.reduce((sum, row) => sum + row.sampled, 0)).toBe(1000);

  // A count out of range says so and keeps the last sample.
  await service.countInput.fill('0');
  await expect(service.requests.getByRole('alert')).toHaveText('Enter a whole number of requests from 1 to 10,000.');
  await expect(service.sampleTotal).toHaveText('1,000');
});

/**
 * The user path of issue 5: from the overview to a Service whose hints are off, reading why (the
 * EndpointSlice controller's own event text) and the per-zone minimums, then turning topology mode
 * on with the toggle — prediction first, confirm, write — and following the cluster until the
 * simulator's controller has written the hints.
 */
import { expect, test } from './fixtures';
import { OverviewPage } from './pages/overview-page';
import { ServicePage } from './pages/service-page';
import { ServicesPage } from './pages/services-page';
import { getService, hintedEndpoints } from './sim';
import { htmlText } from '../components/test-support';

const CATALOG_EVENT = 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones), addressType: IPv4';

test('overview → a Service with hints off: the upstream event text and the per-zone minimums', async ({ page }) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  await expect(overview.heading).toHaveText('Overview');
  await overview.expectLive();
  await expect(overview.eligibility).toContainText('Eligible: the EndpointSlice controller has CPU ratios for every zone.');

  // The overview lists shop/catalog among the Services needing attention, with the controller's reason.
  const catalog = overview.attentionItem('shop/catalog');
  await expect(catalog).toContainText('hints off', { ignoreCase: true });
  await expect(catalog).toContainText(CATALOG_EVENT);
  await catalog.getByRole('link', { name: 'shop/catalog' }).click();

  const service = new ServicePage(page);
  await expect(page).toHaveURL(/\/services\/shop\/catalog$/);
  await expect(service.heading).toHaveText('shop/catalog');
  await expect(service.verdict.getByText('Hints off', { exact: true })).toBeVisible();
  // The exact upstream event: type, reason and message, as the controller records it.
  await expect(service.verdict.getByText('Event the EndpointSlice controller records')).toBeVisible();
  await expect(service.verdict.getByText('TopologyAwareHintsDisabled', { exact: true })).toBeVisible();
  await expect(service.verdict.getByText(CATALOG_EVENT, { exact: true })).toBeVisible();
  // The smallest fix that would turn hints on.
  await expect(service.verdict.getByRole('heading', { name: 'Smallest fix', exact: true })).toBeVisible();

  // Per-zone minimums: ceil(total × cpuRatio / 1.2), with the sum check that fails (5 > 4).
  await expect(service.minimums).toContainText('minimum = ceil(total × cpuRatio / 1.2)');
  const expected = [
    ['ap-northeast-2a', '2', 'ceil(4 × 0.4444 / 1.2)'],
    ['ap-northeast-2b', '2', 'ceil(4 × 0.3333 / 1.2)'],
    ['ap-northeast-2c', '1', 'ceil(4 × 0.2222 / 1.2)'],
  ] as const;
  for (const [zone, minimum, formula] of expected) {
    const row = service.minimumRow(zone);
    await expect(row.getByRole('cell').nth(2)).toContainText(`${minimum} = ${formula}`);
  }
  await expect(service.minimumRow('ap-northeast-2b')).toContainText('1 short');
  await expect(service.sumCheck).toContainText('2 + 2 + 1 = 5 > 4 ready endpoints → hints off');
  // The same event in the timeline.
  await expect(service.events.getByText(CATALOG_EVENT)).toBeVisible();
});

test('enables topology mode on shop/recommendations: prediction, confirm, then the hints arrive', async ({ page }) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  await overview.nav.getByRole('link', { name: 'Services' }).click();

  const services = new ServicesPage(page);
  await expect(services.table).toBeVisible();
  await services.search.fill('recommendations');
  await expect(services.rows).toHaveCount(1);
  await services.rows.first().getByRole('link', { name: 'shop/recommendations' }).click();

  const service = new ServicePage(page);
  await expect(page).toHaveURL(/\/services\/shop\/recommendations$/);
  await expect(service.heading).toHaveText('shop/recommendations');
  await expect(service.verdict).toContainText('No hints: nothing asks for Topology Aware Routing');
  await expect(service.sumCheck).toContainText('4 + 3 + 2 = 9 ≤ 9 ready endpoints → hints can be on');
  await expect(service.hintedNow('ap-northeast-2a')).toHaveText('0');
  await expect(service.hintedExpected('ap-northeast-2a')).toHaveText('0');

  // Before anything is written: the current value and the predicted outcome.
  await service.waitForToggle();
  await expect(service.currentValue).toContainText('no topology annotation');
  await expect(service.toggle.getByText('topology mode off')).toBeVisible();
  const ifEnabled = service.toggle.getByText('If enabled (Auto)').locator('..');
  // off → on: the box says it once — the verdict, the cross-zone change, why.
  await expect(ifEnabled).toContainText('Hints turn on cross-zone 64.2 % → 0.0 %');
  await expect(ifEnabled).toContainText('topology-mode Auto: the Auto heuristic hints endpoints in proportion to zone CPU');
  await expect(ifEnabled).not.toContainText('hints off');
  // off → off: Disable on a Service with no annotation changes nothing.
  await expect(service.toggle.getByText('If disabled').locator('..')).toContainText('Hints stay off cross-zone stays 64.2 %');

  await service.enableButton.click();
  await expect(service.confirmGroup).toBeVisible();
  await expect(service.confirmGroup).toContainText('set service.kubernetes.io/topology-mode: Auto');
  await expect(service.confirmGroup).toContainText(
    'Predicted: hints turn on, cross-zone 64.2 % → 0.0 % (topology-mode Auto: the Auto heuristic hints endpoints in proportion to zone CPU).',
  );
  // The confirm step has written nothing yet.
  expect((await getService('shop', 'recommendations')).metadata.annotations ?? {}).not.toHaveProperty(['service.kubernetes.io/topology-mode']);

  await service.confirmButton.click();
  // The page follows the cluster until the controller's hints are on the slices.
  await expect(service.toggle.getByRole('status').filter({ hasText: /Hints arrived after \d+ s: 9 of 9 ready endpoints hinted\./ })).toBeVisible({ timeout: 40_000 });

  // The cluster has the annotation and the hints the page reports.
  expect((await getService('shop', 'recommendations')).metadata.annotations?.['service.kubernetes.io/topology-mode']).toBe('Auto');
  expect(await hintedEndpoints('shop', 'recommendations')).toBe(9);

  // The page shows the new state without a reload.
  await expect(service.verdict).toContainText('Hints on: traffic stays in its zone');
  await expect(service.hints.getByText('In sync', { exact: true })).toBeVisible();
  await expect(service.hintedNow('ap-northeast-2a')).toHaveText('4');
  await expect(service.events.getByText('TopologyAwareHintsEnabled')).toBeVisible();
  await expect(service.currentValue).toContainText('service.kubernetes.io/topology-mode: "Auto"');
  await expect(service.enableButton).toBeDisabled();
  await expect(service.enableButton).toHaveText('Enable topology mode (on)');
  await expect(service.disableButton).toBeEnabled();
});

test('the toggle predicts from the whole mechanism precedence: trafficDistribution keeps hints on Disable, Auto overrides it on Enable', async ({ page }) => {
  const service = new ServicePage(page);
  // payments/notifier: topology-mode Auto plus trafficDistribution PreferClose.
  await service.goto('payments/notifier');
  await service.waitForToggle();
  const ifDisabled = service.toggle.getByText('If disabled').locator('..');
  // on → on.
  await expect(ifDisabled).toContainText('Hints stay on cross-zone stays 0.0 %');
  await expect(ifDisabled).toContainText('trafficDistribution PreferClose keeps hints when topology mode is disabled');

  // payments/fraud-check: trafficDistribution only, hints on now; Auto would take over and turn them off.
  await service.goto('payments/fraud-check');
  await service.waitForToggle();
  const ifEnabled = service.toggle.getByText('If enabled (Auto)').locator('..');
  // on → off.
  await expect(ifEnabled).toContainText('Hints turn off cross-zone 0.0 % → 66.7 %');
  await expect(ifEnabled).toContainText('topology-mode Auto overrides trafficDistribution PreferClose');
});

test('the Service page as served carries the toggle’s current value and prediction; its buttons wait for the permission check', async ({ request, page }) => {
  // What the server sends, before any script runs: the prediction is painted with the page.
  const response = await request.get('/services/shop/recommendations');
  expect(response.ok()).toBe(true);
  const html = await response.text();
  // Tags split the text: a space from a tag before a colon or full stop is not the reader's.
  const text = htmlText(html).replace(/ ([:.,])/g, '$1');
  expect(text).toContain('Current in cluster zonescope-sim: no topology annotation');
  expect(text).toContain('If enabled (Auto) Hints turn on cross-zone 64.2 % → 0.0 %');
  expect(text).toContain('Checking permission…');
  expect(html).toMatch(/<button[^>]*disabled=""[^>]*>Enable topology mode/);

  // Once the permission check answers, the same prediction stays and the buttons can be used.
  const service = new ServicePage(page);
  await service.goto('shop/recommendations');
  await service.waitForToggle();
  await expect(service.toggle.getByText('If enabled (Auto)').locator('..')).toContainText('Hints turn on cross-zone 64.2 % → 0.0 %');
  await expect(service.enableButton).toBeEnabled();
});

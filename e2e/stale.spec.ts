/**
 * The API server goes away: every request fails and the open watches drop. The dashboard keeps
 * serving its last data under a "stale since" banner — no crash, no empty page — and recovers on
 * its own when the API server is back.
 */
import { expect, resetAndSettle, test } from './fixtures';
import { OverviewPage } from './pages/overview-page';
import { ServicePage } from './pages/service-page';
import { addFaults, clearFaults, dropWatches } from './sim';

test.afterEach(async ({ request }) => {
  // Never leave the cluster down for the next test, even when this one failed: wait for recovery.
  await clearFaults();
  await resetAndSettle(request);
});

test('API down shows a stale banner over the last data, then recovers', async ({ page }) => {
  test.setTimeout(120_000);
  const overview = new OverviewPage(page);
  await overview.goto();
  await overview.expectLive();
  await overview.waitForHydration();

  // Every API request now fails with 503, and the watches are cut.
  await addFaults([{ type: 'error', code: 503, message: 'injected: the API server is down' }]);
  await dropWatches();

  // The open page notices by itself (no reload): banner and badge.
  await expect(overview.staleBanner).toBeVisible({ timeout: 30_000 });
  await expect(overview.staleBanner).toContainText('is down');
  await expect(overview.staleBanner).toContainText('Pages show the last data received');
  await expect(overview.freshnessBadge).toHaveText(/^Stale since \d\d:\d\d:\d\d/);
  // ...and still shows the cluster.
  await expect(overview.eligibility).toContainText('Eligible');
  await expect(overview.attentionItem('shop/catalog')).toBeVisible();
  await expect(overview.zoneMap.locator('svg').first()).toBeVisible();

  // Other pages render from the cache under the same banner.
  const service = new ServicePage(page);
  await service.goto('shop/catalog');
  await expect(service.staleBanner).toBeVisible();
  await expect(service.heading).toHaveText('shop/catalog');
  await expect(service.verdict).toContainText('Hints off');
  await expect(service.minimumTable).toBeVisible();
  await expect(page.getByText('Something went wrong')).toHaveCount(0);
  // The toggle's own read works from the cache; writing is what needs the API server.
  await service.waitForToggle();

  // The API server is back: the banner goes away on its own.
  await clearFaults();
  await expect(service.staleBanner).toHaveCount(0, { timeout: 60_000 });
  await expect(service.freshnessBadge).toHaveText('Live, synced', { timeout: 15_000 });
});

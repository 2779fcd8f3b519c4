/**
 * Per-endpoint tables of a large Service show their first rows and load the rest on request: the
 * button says how many there are, the complete list replaces the first rows, focus stays on the
 * control, and a failed load says so and can be retried.
 */
import { expect, test } from './fixtures';
import { createManualService, zonedNodes } from './sim';

const SERVICE = 'shop/many-endpoints';

test.beforeEach(async ({ page }) => {
  await createManualService('shop', 'many-endpoints', 30, await zonedNodes());
  // The dashboard follows the cluster through its watches.
  await expect.poll(async () => (await page.request.get(`/api/v1/services/${SERVICE}`)).status(), { timeout: 15_000 }).toBe(200);
});

test('the endpoint table shows the first rows, then every endpoint on request', async ({ page }) => {
  await page.goto(`/services/${SERVICE}`);
  const table = page.getByRole('table', { name: /^Endpoints: pod, node, zone/ });
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(10);
  await expect(page.getByText(/The first 10 of 30 endpoints shown/)).toBeVisible();

  const showAll = page.getByRole('button', { name: 'Show all 30 endpoints' });
  await showAll.focus();
  await page.keyboard.press('Enter');
  await expect(rows).toHaveCount(30);
  await expect(page.getByText(/All 30 endpoints shown/)).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Loaded all 30 endpoints.' })).toHaveCount(1);
  // Every address is there, once.
  const addresses = await rows.locator(':scope > :first-child').allTextContents();
  expect(new Set(addresses.map((a) => a.trim())).size).toBe(30);
  const collapse = page.getByRole('button', { name: 'Show the first rows only' });
  await expect(collapse).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(rows).toHaveCount(10);
});

test('a failed load says so and offers a retry that works', async ({ page }) => {
  await page.goto(`/services/${SERVICE}`);
  let failures = 1;
  await page.route('**/api/v1/services/shop/many-endpoints/endpoints?*', async (route) => {
    if (failures-- > 0) await route.abort('connectionrefused');
    else await route.continue();
  });
  await page.getByRole('button', { name: 'Show all 30 endpoints' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Could not load the endpoints' });
  await expect(alert).toBeVisible();
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByText(/All 30 endpoints shown/)).toBeVisible();
});

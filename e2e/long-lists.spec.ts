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
  // Every load fails until the user retries: a load the page starts by itself meanwhile (a live
  // refresh after another spec's cluster restore) fails too, rather than racing the alert.
  let failing = true;
  await page.route('**/api/v1/services/shop/many-endpoints/endpoints?*', async (route) => {
    if (failing) await route.abort('connectionrefused');
    else await route.continue();
  });
  await page.getByRole('button', { name: 'Show all 30 endpoints' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Could not load the endpoints' });
  await expect(alert).toBeVisible();
  failing = false;
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByText(/All 30 endpoints shown/)).toBeVisible();
});

test.describe('5,000 endpoints', () => {
  const BIG = 'shop/five-thousand';
  test.setTimeout(120_000);

  test.beforeEach(async ({ page }) => {
    await createManualService('shop', 'five-thousand', 5000, await zonedNodes());
    await expect.poll(async () => (await page.request.get(`/api/v1/services/${BIG}`)).status(), { timeout: 30_000 }).toBe(200);
  });

  test('the complete list is virtualised: bounded DOM rows, filter and sort over all 5,000, keyboard scrolling', async ({ page }) => {
    await page.goto(`/services/${BIG}`);
    const table = page.getByRole('table', { name: /^Endpoints: pod, node, zone/ });
    const rows = table.locator('tbody tr[aria-rowindex]');
    await expect(rows).toHaveCount(10);
    await page.getByRole('button', { name: 'Show all 5,000 endpoints' }).click();
    await expect(page.getByText(/All 5,000 endpoints shown/)).toBeVisible({ timeout: 30_000 });
    await expect(table).toHaveAttribute('aria-rowcount', '5001');
    // Only the rows in view (plus overscan) are in the DOM.
    const rendered = await rows.count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(80);
    expect(await page.evaluate(() => document.querySelectorAll('*').length)).toBeLessThan(6000);

    // The scroll region takes the focus and scrolls with the keyboard; rows further down render.
    const region = page.getByRole('region', { name: 'Endpoints', exact: true });
    await region.focus();
    await page.keyboard.press('End');
    await expect(rows.last()).toHaveAttribute('aria-rowindex', '5001');
    expect(await rows.count()).toBeLessThan(80);

    // Sort by address, descending: the highest address first.
    await region.evaluate((el) => el.scrollTo({ top: 0 }));
    const byAddress = table.getByRole('columnheader', { name: 'Endpoint' });
    await byAddress.getByRole('button').click();
    await expect(byAddress).toHaveAttribute('aria-sort', 'ascending');
    await expect(rows.first().locator('th')).toHaveText('10.99.0.1');
    await byAddress.getByRole('button').click();
    await expect(byAddress).toHaveAttribute('aria-sort', 'descending');
    await expect(rows.first().locator('th')).toHaveText('10.99.19.136');

    // Filter over every endpoint, with the count announced.
    await page.getByRole('searchbox', { name: 'Filter endpoints' }).fill('10.99.7.');
    await expect(page.getByRole('status').filter({ hasText: /^256 of 5,000 endpoints match\.$/ })).toBeVisible();
    await expect(table).toHaveAttribute('aria-rowcount', '257');
    expect(await rows.count()).toBeLessThan(80);
    await page.getByRole('searchbox', { name: 'Filter endpoints' }).fill('no such endpoint');
    await expect(table.getByText('No endpoint matches “no such endpoint”.')).toBeVisible();
  });
});

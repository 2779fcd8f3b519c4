/**
 * The Services table: search (name and reason), namespace filter, sortable columns, and the query
 * string as the single source of the table's state (it survives a reload and can be linked); the
 * reason chip with the full message on demand; the two cluster-level answers as filters and
 * sorts (what an HPA's range does to the hints; measured against predicted cross-zone share).
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { ServicesPage } from './pages/services-page';
import { PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON } from './prometheus';
import { createHpa } from './sim';

interface ApiRows {
  readonly total: number;
  readonly items: { namespace: string; name: string; measuredMinusPredicted: number | null; hpaScaleDown: { state: string } }[];
}

async function apiRows(request: APIRequestContext, query: string): Promise<ApiRows> {
  const response = await request.get(`/api/v1/services?${query}`);
  expect(response.ok()).toBe(true);
  return (await response.json()) as ApiRows;
}

const keysOf = (rows: ApiRows) => rows.items.map((item) => `${item.namespace}/${item.name}`);

test('lists every Service, sorted by namespace/name', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto();
  await expect(services.heading).toHaveText('Services');
  await expect(services.count).toHaveText('13 Services');
  await expect(services.columnHeader(/^Service/)).toHaveAttribute('aria-sort', 'ascending');
  const keys = await services.serviceKeys();
  expect(keys).toHaveLength(13);
  expect(keys.slice(0, 4)).toEqual(['kube-system/kube-dns', 'payments/fraud-check', 'payments/ledger', 'payments/notifier']);
  expect(keys).toEqual([...keys].sort());
});

test('search matches names and reasons; no match offers to clear the filters', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto();
  await services.search.fill('checkout');
  await expect(services.count).toHaveText('1 of 13 Services');
  expect(await services.serviceKeys()).toEqual(['shop/checkout']);
  await expect(page).toHaveURL(/\/services\?q=checkout$/);

  // The reason text is searchable too: "Insufficient number of endpoints" is shop/cart's.
  await services.search.fill('insufficient');
  await expect(services.count).toHaveText('1 of 13 Services');
  expect(await services.serviceKeys()).toEqual(['shop/cart']);
  await expect(services.rows.first()).toContainText('Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4');

  await services.search.fill('no-such-service');
  await expect(services.table.getByText('No Service matches.')).toBeVisible();
  await services.table.getByRole('button', { name: 'Clear the filters' }).click();
  await expect(services.search).toHaveValue('');
  await expect(services.count).toHaveText('13 Services');
  await expect(page).toHaveURL(/\/services$/);
});

test('namespace filter and sort are kept in the URL and survive a reload', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto();
  await services.namespace.selectOption('payments');
  await expect(services.count).toHaveText('3 of 13 Services');
  expect(await services.serviceKeys()).toEqual(['payments/fraud-check', 'payments/ledger', 'payments/notifier']);

  // Sort by cross-zone share: a number, so descending first, then ascending (ties by name), then descending again.
  const crossZone = services.columnHeader(/Cross-zone share/);
  await services.sortButton(/Cross-zone share/).click();
  await expect(crossZone).toHaveAttribute('aria-sort', 'descending');
  expect(await services.serviceKeys()).toEqual(['payments/ledger', 'payments/fraud-check', 'payments/notifier']);
  await services.sortButton(/Cross-zone share/).click();
  await expect(crossZone).toHaveAttribute('aria-sort', 'ascending');
  expect(await services.serviceKeys()).toEqual(['payments/fraud-check', 'payments/notifier', 'payments/ledger']);
  await services.sortButton(/Cross-zone share/).click();
  await expect(crossZone).toHaveAttribute('aria-sort', 'descending');
  expect(await services.serviceKeys()).toEqual(['payments/ledger', 'payments/fraud-check', 'payments/notifier']);
  await expect(services.rows.first()).toContainText('27.8 %');
  await expect(page).toHaveURL(/\/services\?ns=payments&sort=crossZone&order=desc$/);

  await page.reload();
  await expect(services.table).toBeVisible();
  await expect(services.namespace).toHaveValue('payments');
  await expect(crossZone).toHaveAttribute('aria-sort', 'descending');
  await expect(services.count).toHaveText('3 of 13 Services');
  expect(await services.serviceKeys()).toEqual(['payments/ledger', 'payments/fraud-check', 'payments/notifier']);
});

test('a shared link opens the table with its search, filters and sort', async ({ page, request }) => {
  const services = new ServicesPage(page);
  await services.goto('?q=shop%2F&attention=1&sort=endpoints&order=asc');
  await expect(services.search).toHaveValue('shop/');
  await expect(services.attentionOnly).toBeChecked();
  await expect(services.columnHeader(/Ready endpoints per zone/)).toHaveAttribute('aria-sort', 'ascending');
  // shop Services needing attention, fewest ready endpoints first: the rules' cart (2), catalog (4),
  // api-gateway (6), checkout (9) — and storefront (3) once its measured 100× volume makes its
  // smallest fix worth more than $10 a month ("Costly, fixable"): the same rows as the API's.
  const keys = await services.serviceKeys();
  expect(keys.filter((key) => key !== 'shop/storefront')).toEqual(['shop/cart', 'shop/catalog', 'shop/api-gateway', 'shop/checkout']);
  await expect(services.count).toHaveText(`${keys.length} of 13 Services`);
  const api = (await (await request.get('/api/v1/services?q=shop%2F&attention=1&sort=endpoints&order=asc')).json()) as { items: { namespace: string; name: string }[] };
  expect(keys).toEqual(api.items.map((item) => `${item.namespace}/${item.name}`));
});

test('mechanism, reason and type filters narrow the table and go into the URL', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto();
  await services.reason.selectOption({ label: 'Hints off' });
  await expect(services.count).toHaveText('3 of 13 Services');
  expect(await services.serviceKeys()).toEqual(['shop/api-gateway', 'shop/cart', 'shop/catalog']);
  await expect(page).toHaveURL(/\/services\?reason=hints-off$/);

  await services.reason.selectOption('');
  await services.mechanism.selectOption({ label: 'legacy annotation' });
  expect(await services.serviceKeys()).toEqual(['platform/auth']);
  await services.mechanism.selectOption('');
  await services.type.selectOption('LoadBalancer');
  await expect(page).toHaveURL(/\/services\?type=LoadBalancer$/);
  const loadBalancers = await services.serviceKeys();
  expect(loadBalancers.length).toBeGreaterThan(0);
  for (const row of await services.rows.all()) await expect(row.locator('td').first()).toContainText('LoadBalancer');

  // A shared link opens with the same filters.
  await page.goto('/services?mechanism=topology-mode&reason=cross-zone-leak');
  await expect(services.mechanism).toHaveValue('topology-mode');
  await expect(services.reason).toHaveValue('cross-zone-leak');
  expect(await services.serviceKeys()).toEqual(['payments/ledger', 'shop/checkout']);
});

test('the cross-zone column and the reason text agree, and the secondary figure says what it is', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto('?q=payments/ledger');
  const row = services.rows.first();
  // The cross-zone share column (the measured difference, volume and cost columns follow it).
  const share = (await row.locator('td').nth(6).textContent()) ?? '';
  const percent = /^(\d+\.\d) %/.exec(share.trim())?.[1];
  expect(percent).toBeDefined();
  await expect(row).toContainText(`${percent} % of traffic crosses zones`);
  // The with-Auto figure is labelled wherever it differs (recommendations: none now, Auto would keep traffic in-zone).
  await services.search.fill('shop/recommendations');
  await expect(services.rows.first().locator('td').nth(6)).toContainText(/if Auto: \d+\.\d %/);
});

test('exports the rows shown, filtered and sorted, as CSV and JSON', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto('?ns=shop&sort=crossZone&order=desc');
  const shown = await services.serviceKeys();
  const csvHref = await services.exportCsv.getAttribute('href');
  expect(csvHref).toBe('/api/v1/services?format=csv&namespace=shop&sort=crossZone&order=desc');

  const [download] = await Promise.all([page.waitForEvent('download'), services.exportCsv.click()]);
  expect(download.suggestedFilename()).toMatch(/^services(-[A-Za-z0-9._-]+)?\.csv$/);
  const csv = await (await page.request.get(csvHref ?? '')).text();
  const lines = csv.trim().split('\r\n');
  expect(lines[0]).toMatch(/^namespace,name,type,mechanism,/);
  expect(lines.slice(1).map((line) => line.split(',').slice(0, 2).join('/'))).toEqual(shown);

  // The search covers reasons in the table; the export follows it.
  await services.search.fill('insufficient');
  await expect(services.count).toHaveText('1 of 13 Services');
  const jsonHref = await services.exportJson.getAttribute('href');
  const json = (await (await page.request.get(jsonHref ?? '')).json()) as { items: { namespace: string; name: string }[] };
  expect(json.items.map((row) => `${row.namespace}/${row.name}`)).toEqual(['shop/cart']);
});

test('the rows come from their own address, sent once per table; a failed load says why and tries again', async ({ page }) => {
  // The page's HTML is its frame: the rows are not in it, but in one body the table loads.
  const html = await (await page.request.get('/services')).text();
  expect(html).not.toContain('fraud-check');
  const src = /\/api\/v1\/services\/table\?v=[0-9a-z]+/.exec(html)?.[0];
  expect(src).toBeDefined();
  // Compressed on the way (Next.js gzips what a route sends to a client that takes it).
  const body = await page.request.get(src ?? '', { headers: { 'accept-encoding': 'gzip' } });
  expect(body.headers()['content-encoding']).toBe('gzip');
  expect(((await body.json()) as { rows: unknown[] }).rows).toHaveLength(13);

  // The dashboard's server unreachable for the table's first load (a restart, a dropped proxy).
  let refuse = true;
  await page.route('**/api/v1/services/table?*', async (route) => {
    if (refuse) await route.abort('connectionrefused');
    else await route.continue();
  });
  await page.goto('/services');
  const alert = page.getByRole('alert').filter({ hasText: 'could not be loaded' });
  await expect(alert).toContainText('The table of 13 Services could not be loaded.');
  await expect(alert).toContainText("The dashboard's server could not be reached");
  refuse = false;
  await alert.getByRole('button', { name: 'Try again' }).click();
  const services = new ServicesPage(page);
  await expect(services.count).toHaveText('13 Services');
  await expect(alert).toHaveCount(0);
});

test('Back from a Service shows the table as it was left, and leaves its query in the URL', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto();
  await services.namespace.selectOption('payments');
  await services.sortButton(/Cross-zone share/).click();
  const left = /\/services\?ns=payments&sort=crossZone&order=desc$/;
  await expect(page).toHaveURL(left);
  const order = ['payments/ledger', 'payments/fraud-check', 'payments/notifier'];
  expect(await services.serviceKeys()).toEqual(order);

  await services.rows.first().locator('a[data-row-link]').click();
  await expect(services.heading).toHaveText('payments/ledger');
  await page.goBack();
  await expect(page).toHaveURL(left);
  await expect(services.namespace).toHaveValue('payments');
  await expect(services.columnHeader(/Cross-zone share/)).toHaveAttribute('aria-sort', 'descending');
  await expect(services.count).toHaveText('3 of 13 Services');
  expect(await services.serviceKeys()).toEqual(order);
  // The table wrote nothing over the query it was given: a change it still held would go into the
  // URL at once when the page is hidden (as before leaving), and there is none.
  await page.evaluate(() => window.dispatchEvent(new Event('pagehide')));
  await expect(page).toHaveURL(left);

  // Forward and Back again, then a change: the table follows the user from the restored state.
  await page.goForward();
  await expect(services.heading).toHaveText('payments/ledger');
  await page.goBack();
  await expect(services.count).toHaveText('3 of 13 Services');
  await services.search.fill('fraud');
  await expect(services.count).toHaveText('1 of 13 Services');
  await expect(page).toHaveURL(/\/services\?q=fraud&ns=payments&sort=crossZone&order=desc$/);
});

test('a change made just before leaving the table is in the history entry Back returns to', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto('?ns=shop');
  // A row followed at once, within the URL write's delay: the click writes the query first.
  await services.search.fill('cart');
  await expect(services.count).toHaveText('1 of 13 Services');
  await services.rows.first().locator('a[data-row-link]').click();
  await expect(services.heading).toHaveText('shop/cart');
  await page.goBack();
  await expect(page).toHaveURL(/\/services\?q=cart&ns=shop$/);
  await expect(services.search).toHaveValue('cart');
  await expect(services.namespace).toHaveValue('shop');
  await expect(services.count).toHaveText('1 of 13 Services');

  // Leaving the document altogether (the page is hidden) writes it too.
  await services.search.fill('');
  await page.goto('/');
  await expect(services.heading).toHaveText('Overview');
  await page.goBack();
  await expect(page).toHaveURL(/\/services\?ns=shop$/);
  await expect(services.search).toHaveValue('');
  await expect(services.namespace).toHaveValue('shop');
});

test('the reason is a short chip on one line; the full message opens under it, by mouse or keyboard', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto('?q=shop/cart');
  await services.waitForHydration();
  const row = services.row('shop/cart');
  const chip = row.getByRole('button', { name: /endpoints < zones/ });
  await expect(chip).toHaveAttribute('aria-expanded', 'false');
  const message = row.getByText('Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4');
  // Folded, the message is there for screen readers only (visually hidden: a 1 px box).
  const width = async () => (await message.boundingBox())?.width ?? 0;
  expect(await width()).toBeLessThanOrEqual(1);
  // One line of reason: the row is as tall as its two-line Service and hints cells, no more.
  expect((await row.boundingBox())?.height ?? 0).toBeLessThanOrEqual(72);
  await chip.click();
  await expect(chip).toHaveAttribute('aria-expanded', 'true');
  await expect.poll(width).toBeGreaterThan(50);
  // The row's link is the table's tab stop; Tab goes on to its chip, and Enter folds the message again.
  await row.locator('a[data-row-link]').focus();
  await page.keyboard.press('Tab');
  await expect(chip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(chip).toHaveAttribute('aria-expanded', 'false');
  await expect.poll(width).toBeLessThanOrEqual(1);
});

test('the HPA scale-down filter and column answer which HPAs turn hints off, worst first', async ({ page, request }) => {
  // eks-demo's ledger (HPA 3–12 over zones of 4 : 3 : 2 CPU) is off at 3, 4, 6 and 11 replicas; an
  // HPA on platform/auth (9 pods, legacy annotation) from 7 to 10 keeps hints on throughout.
  await createHpa('platform', 'auth', 7, 10);
  await expect.poll(async () => keysOf(await apiRows(request, 'hpa=on')), { message: 'the dashboard sees the new HPA', timeout: 30_000 }).toEqual(['platform/auth']);
  const services = new ServicesPage(page);
  await services.goto();
  await expect(services.row('payments/ledger')).toContainText('off at min 3');
  await expect(services.row('payments/ledger')).toContainText('HPA 3–12');
  await expect(services.row('platform/auth')).toContainText('stays on');
  await expect(services.row('shop/cart')).toContainText('no HPA');

  await services.hpa.selectOption({ label: 'Hints off at minReplicas' });
  await expect(services.count).toHaveText('1 of 13 Services');
  expect(await services.serviceKeys()).toEqual(['payments/ledger']);
  await expect(page).toHaveURL(/\/services\?hpa=off-at-min$/);
  await expect(services.exportCsv).toHaveAttribute('href', '/api/v1/services?format=csv&hpa=off-at-min&sort=namespace&order=asc');
  await services.hpa.selectOption({ label: 'Hints on across the range' });
  expect(await services.serviceKeys()).toEqual(['platform/auth']);
  await services.hpa.selectOption({ label: 'No HPA' });
  await expect(services.count).toHaveText('11 of 13 Services');
  await services.hpa.selectOption('');

  // The column sorts worst first on the first click (a category), the reverse on the second; the API agrees.
  const header = services.columnHeader(/HPA scale-down/);
  await services.sortButton(/HPA scale-down/).click();
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  await expect(page).toHaveURL(/\/services\?sort=hpa$/);
  const ascending = await services.serviceKeys();
  expect(ascending.slice(0, 2)).toEqual(['payments/ledger', 'platform/auth']);
  expect(ascending).toEqual(keysOf(await apiRows(request, 'sort=hpa&order=asc')));
  await services.sortButton(/HPA scale-down/).click();
  await expect(header).toHaveAttribute('aria-sort', 'descending');
  expect((await services.serviceKeys()).slice(-2)).toEqual(['platform/auth', 'payments/ledger']);
});

test('the measured-vs-predicted filter and column show where measured traffic disagrees with the prediction', async ({ page, request }) => {
  test.skip(!PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON);
  // shop/catalog's flows are keep-alive skewed (80 % of each zone's requests pinned to another zone's endpoints).
  await expect
    .poll(async () => keysOf(await apiRows(request, 'measuredDiff=10')), { message: 'the dashboard reads measured flows from Prometheus', timeout: 90_000, intervals: [250, 500, 1000, 2000] })
    .toContain('shop/catalog');
  const services = new ServicesPage(page);
  await services.goto();
  await services.measuredDiff.selectOption({ label: 'Differs by ≥ 10 points' });
  await expect(page).toHaveURL(/\/services\?measuredDiff=10$/);
  const differing = await services.serviceKeys();
  expect(differing).toContain('shop/catalog');
  expect(differing).toEqual(keysOf(await apiRows(request, 'measuredDiff=10')));
  for (const text of await services.columnTexts(/Measured − predicted/)) expect(Math.abs(Number(text.replace('−', '-').replace(/[^\d.+-].*$/, '')))).toBeGreaterThanOrEqual(10);

  // Every Service measured with flows, largest difference first (either sign), the unmeasured ones (blank) last.
  await services.measuredDiff.selectOption({ label: 'Measured by flows (any difference)' });
  const measured = await services.serviceKeys();
  expect(measured.length).toBeGreaterThan(differing.length);
  expect(measured.some((key) => key.startsWith('kube-system/') || key.startsWith('platform/'))).toBe(false);
  await services.measuredDiff.selectOption('');
  const header = services.columnHeader(/Measured − predicted/);
  await services.sortButton(/Measured − predicted/).click();
  await expect(header).toHaveAttribute('aria-sort', 'descending');
  await expect(page).toHaveURL(/\/services\?sort=measuredDiff&order=desc$/);
  const sizes = (await services.columnTexts(/Measured − predicted/)).map((text) => (text.startsWith('—') ? -1 : Math.abs(Number(text.replace('−', '-').replace(/[^\d.+-].*$/, '')))));
  expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
  expect(sizes.at(-1)).toBe(-1);
  expect((await services.serviceKeys())[0]).toBe(keysOf(await apiRows(request, 'sort=measuredDiff&order=desc'))[0]);
});

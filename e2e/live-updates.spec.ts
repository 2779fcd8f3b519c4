/**
 * Pages follow the watch (issue "An SRE's day", item 2): a change made in the cluster by another
 * client — `kubectl scale`, through the simulator's own API — shows on an open Service page
 * without a reload, the header says how old the page's data is, an open confirmation or a field
 * being edited holds the update back (saying so), a lost connection to the dashboard server is
 * said out loud, and Refresh works as a plain link without JavaScript.
 *
 * shop/cart (2 replicas, hints off) has a cross-zone share of 61.1 %; at 3 replicas it is 66.7 %.
 * Every test starts from the scenario again (e2e/fixtures.ts resets the objects after a write).
 */
import { expect, test } from './fixtures';
import { ServicePage } from './pages/service-page';
import { scaleDeployment } from './sim';

const BEFORE = '61.1 % cross-zone';
const AFTER = '66.7 % cross-zone';
const AGE = /^updated \d+(s|m|h|d) ago$/;
/** The toggle's before → after sentences start from the current share. */
/** The cross-zone share now, as each prediction box states it (`cross-zone 61.1 % → …` or `cross-zone stays 61.1 %`). */
const PREDICTED_BEFORE = /cross-zone (stays )?61\.1 %/;
const PREDICTED_AFTER = /cross-zone (stays )?66\.7 %/;

/** Marks the document: a reload (or a full navigation) would drop the mark. */
async function markDocument(service: ServicePage): Promise<void> {
  await service.page.evaluate(() => {
    (window as unknown as { zonescopeMark?: string }).zonescopeMark = 'same document';
  });
}

async function documentMark(service: ServicePage): Promise<string | undefined> {
  return service.page.evaluate(() => (window as unknown as { zonescopeMark?: string }).zonescopeMark);
}

test('an open Service page shows a kubectl scale made elsewhere, without a reload, keeping the scroll position', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  const service = new ServicePage(page);
  await service.goto('shop/cart');
  await service.expectLive();
  await service.waitForHydration();
  await expect(service.crossZone).toHaveText(BEFORE);
  await expect(service.dataAge).toHaveText(AGE);
  await expect(service.dataAge).toHaveAttribute('aria-label', /^Page data updated \d+ (second|seconds|minute|minutes|hour|hours) ago$/);
  await markDocument(service);

  // Read further down the page; the update must not jump back to the top.
  await service.traffic.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 200));
  const scrolledTo = await page.evaluate(() => window.scrollY);
  expect(scrolledTo).toBeGreaterThan(300);
  const panelTop = await service.traffic.evaluate((el) => el.getBoundingClientRect().top);

  // kubectl scale deployment/cart --replicas=3, as another client: not through zonescope.
  await scaleDeployment('shop', 'cart', 3);

  await expect(service.crossZone).toHaveText(AFTER, { timeout: 15_000 });
  expect(await documentMark(service)).toBe('same document');
  await expect(service.dataAge).toHaveText(AGE);
  await expect(service.freshnessBadge).toHaveText('Live, synced');
  // Same place on the page (scroll anchoring may shift scrollY by the rows added above).
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(300);
  const panelTopAfter = await service.traffic.evaluate((el) => el.getBoundingClientRect().top);
  expect(Math.abs(panelTopAfter - panelTop)).toBeLessThan(120);
  // No hydration mismatch (the age renders the server's text first) and no failed refresh.
  expect(errors).toEqual([]);
});

test("the topology-mode toggle's prediction follows a live update, keeping the focus", async ({ page }) => {
  const service = new ServicePage(page);
  await service.goto('shop/cart');
  await service.waitForHydration();
  await service.waitForToggle();
  const ifEnabled = service.toggle.getByText('If enabled (Auto)').locator('..');
  const ifDisabled = service.toggle.getByText('If disabled').locator('..');
  await expect(ifEnabled).toContainText(PREDICTED_BEFORE);
  await expect(ifDisabled).toContainText(PREDICTED_BEFORE);
  await markDocument(service);
  // A keyboard user sits on the toggle's Disable button: a refetch must not move the focus.
  await service.disableButton.focus();

  await scaleDeployment('shop', 'cart', 3);

  await expect(service.crossZone).toHaveText(AFTER, { timeout: 15_000 });
  await expect(ifEnabled).toContainText(PREDICTED_AFTER, { timeout: 10_000 });
  await expect(ifDisabled).toContainText(PREDICTED_AFTER);
  await expect(service.toggle).not.toContainText(PREDICTED_BEFORE);
  await expect(service.disableButton).toBeFocused();
  // Said once, politely: the prediction text changed.
  await expect(service.toggle.getByRole('status').filter({ hasText: /^Topology-mode prediction updated/ })).toHaveCount(1);
  expect(await documentMark(service)).toBe('same document');
});

test('an open confirmation and a field being edited hold the update back, and say so', async ({ page }) => {
  test.setTimeout(90_000);
  const service = new ServicePage(page);
  await service.goto('shop/cart');
  await service.waitForHydration();
  await service.waitForToggle();
  await expect(service.crossZone).toHaveText(BEFORE);
  await markDocument(service);

  // The topology-mode confirmation is open: the page must not change under it.
  await service.disableButton.click();
  await expect(service.confirmGroup).toBeVisible();
  await scaleDeployment('shop', 'cart', 3);
  await expect(service.liveNote).toContainText('Newer data is waiting', { timeout: 15_000 });
  await expect(service.crossZone).toHaveText(BEFORE);
  await expect(service.confirmGroup).toBeVisible();
  // What is being confirmed does not change under the user either.
  await expect(service.confirmGroup).toContainText(/Predicted: hints stay off, cross-zone (stays )?61\.1 %/);
  await service.cancelButton.click();
  await expect(service.crossZone).toHaveText(AFTER, { timeout: 10_000 });
  await expect(service.liveNote).not.toContainText('waiting');
  // Closed: the toggle catches up with the page.
  await expect(service.toggle.getByText('If disabled').locator('..')).toContainText(PREDICTED_AFTER, { timeout: 10_000 });

  // Typing in the traffic field: no update until the field is left, and the input is kept. (The
  // scale-down is zone-blind, so the share at 2 replicas depends on which pod goes: count endpoints.)
  await expect(service.verdict).toContainText('(3 endpoints, 3 zones)');
  await service.gbInput.click();
  await service.gbInput.press('Control+a');
  await service.gbInput.pressSequentially('2500');
  await scaleDeployment('shop', 'cart', 2);
  await expect(service.liveNote).toContainText('Newer data is waiting', { timeout: 15_000 });
  await expect(service.verdict).toContainText('(3 endpoints, 3 zones)');
  await expect(service.gbInput).toBeFocused();
  await service.gbInput.press('Tab');
  await expect(service.verdict).toContainText('(2 endpoints, 3 zones)', { timeout: 10_000 });
  await expect(service.liveNote).not.toContainText('waiting');
  await expect(service.gbInput).toHaveValue('2500');
  expect(await documentMark(service)).toBe('same document');
});

test('a lost connection to the dashboard server is shown, and recovery too', async ({ page, context }) => {
  const service = new ServicePage(page);
  await service.goto('shop/cart');
  await service.expectLive();
  await service.waitForHydration();
  await expect(service.connectionLost).toHaveCount(0);

  await context.setOffline(true);
  try {
    await expect(service.connectionLost).toBeVisible({ timeout: 15_000 });
    await expect(service.liveNote).toContainText('Connection to the dashboard server lost');
    await expect(service.freshnessBadge).toHaveCount(0);
    // Nothing confirms the data any more: its age keeps growing.
    await expect(service.dataAge).toHaveText(/^updated ([4-9]|\d\d+)s ago$/, { timeout: 10_000 });
  } finally {
    await context.setOffline(false);
  }
  await expect(service.connectionLost).toHaveCount(0, { timeout: 15_000 });
  await expect(service.freshnessBadge).toHaveText('Live, synced');
  await expect(service.liveNote).not.toContainText('lost');
  await expect(service.dataAge).toHaveText(/^updated [0-3]s ago$/);
});

test('Refresh is a plain link to the page (query kept), and the data time is there without JavaScript', async ({ browser, page }) => {
  // With JavaScript: the link's target is the current URL, so a new tab or a reload before hydration lands on the same view.
  const service = new ServicePage(page);
  await service.goto('shop/cart?gb=2500');
  await service.waitForHydration();
  // An empty href is the document's own URL: whatever the traffic panel wrote into the query, or a rewrite did.
  await expect(service.refreshLink).toHaveAttribute('href', '');
  expect(await service.refreshLink.evaluate((a) => (a as HTMLAnchorElement).href)).toBe(page.url().replace(/#.*$/, ''));
  await markDocument(service);
  await service.refreshLink.click();
  expect(await documentMark(service)).toBe('same document');
  await expect(service.dataAge).toHaveText(/^updated [0-2]s ago$/);

  // Without JavaScript the page is server-rendered HTML: the same link, and the render time instead of a live age.
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const plain = await context.newPage();
    const response = await plain.goto('/services/shop/cart?gb=2500');
    expect(response?.status()).toBe(200);
    const link = plain.locator('header a', { hasText: 'Refresh' });
    await expect(link).toHaveAttribute('href', '');
    // What the browser follows: the page's own URL, query included.
    expect(await link.evaluate((a) => (a as HTMLAnchorElement).href)).toMatch(/\/services\/shop\/cart\?gb=2500$/);
    await expect(plain.locator('header [role="timer"]')).toHaveText(/^updated at \d\d:\d\d:\d\d UTC$/);
  } finally {
    await context.close();
  }
});

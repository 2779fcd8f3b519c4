/**
 * Keyboard only: the skip link, the topology-mode toggle from focus to written change, the
 * Services table's shortcuts (`/`, Enter on a single match, arrow keys between rows), `/` from the
 * Overview to the Services search, and the focus on the heading after a client-side navigation.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { OverviewPage } from './pages/overview-page';
import { ServicePage } from './pages/service-page';
import { ServicesPage } from './pages/services-page';
import { getService } from './sim';

/** Presses Tab until `target` has the focus (bounded), as a keyboard user would. */
async function tabTo(page: Page, target: Locator, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`${String(target)} was not reached with ${max} Tab presses`);
}

test('the skip link is the first Tab stop and moves focus to the content', async ({ page }) => {
  const service = new ServicePage(page);
  await service.goto('payments/ledger');
  await service.waitForHydration();
  await page.keyboard.press('Tab');
  await expect(service.skipLink).toBeFocused();
  await expect(service.skipLink).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(service.main).toBeFocused();
  // The next Tab stop is inside the content, not the header.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.querySelector('main')?.contains(document.activeElement) ?? false)).toBe(true);
});

test('the toggle works with the keyboard alone: open, cancel (button or Escape), confirm', async ({ page }) => {
  const service = new ServicePage(page);
  await service.goto('shop/api-gateway');
  await service.waitForToggle();
  await expect(service.disableButton).toBeEnabled();

  await tabTo(page, service.disableButton);
  await expect(service.disableButton).toBeFocused();
  await page.keyboard.press('Enter');
  // The confirm step takes focus on its primary action.
  await expect(service.confirmGroup).toContainText('remove service.kubernetes.io/topology-mode');
  await expect(service.confirmButton).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(service.cancelButton).toBeFocused();
  await page.keyboard.press('Space');
  await expect(service.confirmGroup).toHaveCount(0);
  // Focus returns to the button that opened the step, so the user can carry on from there.
  await expect(service.disableButton).toBeFocused();

  // Escape closes it too.
  await page.keyboard.press('Enter');
  await expect(service.confirmButton).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(service.confirmGroup).toHaveCount(0);
  await expect(service.disableButton).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(service.confirmButton).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(service.toggle.getByRole('status').filter({ hasText: 'Topology mode disabled; the slices carry 0 hints.' })).toBeVisible({ timeout: 40_000 });
  expect((await getService('shop', 'api-gateway')).metadata.annotations ?? {}).not.toHaveProperty('service.kubernetes.io/topology-mode');
});

test('/ focuses the Services search, but not while typing in a field; Enter opens the only match', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto();
  await services.waitForHydration();
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('/');
  await expect(services.search).toBeFocused();
  await expect(services.search).toHaveValue('');

  // In the search itself "/" is a character (namespace/name).
  await page.keyboard.type('payments/led');
  await expect(services.search).toHaveValue('payments/led');
  await expect(services.count).toHaveText('1 of 13 Services');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/services\/payments\/ledger$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('payments/ledger');
});

test('/ on the Overview goes to the Services search, focused, in the same cluster', async ({ page }) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  await overview.waitForHydration();
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('/');
  const services = new ServicesPage(page);
  await expect(page).toHaveURL(/\/services$/);
  await expect(services.search).toBeFocused();
  // The search answers at once: "/" is a character there again.
  await page.keyboard.type('payments/led');
  await expect(services.count).toHaveText('1 of 13 Services');
});

test('Enter in the search does nothing while several Services match', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto('?q=shop');
  await services.waitForHydration();
  await services.search.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/services\?q=shop$/);
});

test('arrow keys move between the rows of the Services table (one tab stop), Enter opens the row', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto();
  await services.waitForHydration();
  const links = services.rows.locator('a[data-row-link]');
  // One tab stop for the rows: only the first row's link is in the tab order.
  await expect(links.first()).toHaveAttribute('tabindex', '0');
  await expect(links.nth(1)).toHaveAttribute('tabindex', '-1');
  await tabTo(page, links.first());
  await expect(links.first()).toHaveText('kube-system/kube-dns');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator(':focus')).toHaveText('payments/fraud-check');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator(':focus')).toHaveText('payments/ledger');
  await page.keyboard.press('ArrowUp');
  await expect(page.locator(':focus')).toHaveText('payments/fraud-check');
  await page.keyboard.press('End');
  await expect(page.locator(':focus')).toHaveText('shop/storefront');
  await page.keyboard.press('Home');
  await expect(page.locator(':focus')).toHaveText('kube-system/kube-dns');
  await page.keyboard.press('ArrowDown');
  // Tab leaves the rows; Shift+Tab comes back to the row last visited.
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await expect(page.locator(':focus')).toHaveText('payments/fraud-check');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/services\/payments\/fraud-check$/);
});

test('after a client-side navigation the focus is on the new page heading', async ({ page }) => {
  const services = new ServicesPage(page);
  await services.goto();
  await services.waitForHydration();
  await services.nav.getByRole('link', { name: 'Dataplane' }).click();
  await expect(page).toHaveURL(/\/dataplane$/);
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toHaveText('Dataplane');
  await expect(heading).toBeFocused();
  await services.nav.getByRole('link', { name: 'Overview' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeFocused();
});

/** Keyboard only: the skip link, and the topology-mode toggle from focus to written change. */
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ServicePage } from './pages/service-page';
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
  await expect(service.confirmGroup).toContainText('set service.kubernetes.io/topology-mode: Disabled');
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
  expect((await getService('shop', 'api-gateway')).metadata.annotations?.['service.kubernetes.io/topology-mode']).toBe('Disabled');
});

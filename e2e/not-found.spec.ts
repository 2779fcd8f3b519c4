/** Unknown addresses: a Service the cluster does not have, and a page that does not exist. */
import { expect, test } from './fixtures';
import { ServicesPage } from './pages/services-page';

test('an unknown Service gets the not-found page with a link back to the Services', async ({ page }) => {
  const response = await page.goto('/services/shop/no-such-service');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Service not found');
  await expect(page.getByText('This cluster has no Service with that namespace and name.')).toBeVisible();
  // Not indexed either.
  await expect(page.locator('meta[name="robots"]').first()).toHaveAttribute('content', /noindex/);
  await page.getByRole('link', { name: '← Back to all Services' }).click();
  const services = new ServicesPage(page);
  await expect(page).toHaveURL(/\/services$/);
  await expect(services.count).toHaveText('13 Services');
});

test('an invalid Service name gets the not-found page too, not an error', async ({ page }) => {
  const response = await page.goto('/services/Shop/..%2Fsecrets');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/not found/);
  await expect(page.getByText('Something went wrong')).toHaveCount(0);
});

test('an unknown page answers 404 with links to the three views', async ({ page }) => {
  const response = await page.goto('/no-such-page');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found');
  const main = page.locator('main');
  for (const view of ['Overview', 'Services', 'Dataplane']) await expect(main.getByRole('link', { name: view, exact: true })).toBeVisible();
});

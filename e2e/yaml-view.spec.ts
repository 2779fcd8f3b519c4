/** The YAML view of a Service: the Service and its EndpointSlices as the API server has them. */
import { expect, test } from './fixtures';

test('a Service page links to its YAML: the Service, its EndpointSlices, managedFields on request', async ({ page }) => {
  await page.goto('/services/payments/ledger');
  await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'YAML' }).click();
  await expect(page).toHaveURL(/\/services\/payments\/ledger\/yaml$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('payments/ledger YAML');
  await expect(page).toHaveTitle(/^payments\/ledger YAML · Services · .+ · zonescope$/);
  const yaml = page.getByLabel('YAML of payments/ledger and its EndpointSlices');
  await expect(yaml).toContainText('kind: Service');
  await expect(yaml).toContainText('kind: EndpointSlice');
  await expect(yaml).toContainText('kubernetes.io/service-name: ledger');
  await expect(yaml).not.toContainText('managedFields');
  await page.getByRole('link', { name: 'Show managedFields' }).click();
  await expect(page).toHaveURL(/\/yaml\?managedFields=1$/);
  await expect(page.getByRole('link', { name: 'Hide managedFields' })).toBeVisible();
  const raw = await page.request.get('/api/v1/services/payments/ledger/yaml');
  expect(raw.headers()['content-type']).toBe('application/yaml; charset=utf-8');
  expect(await raw.text()).toContain('kind: Service');
});

test('the YAML view of a Service the cluster does not have is the not-found page', async ({ page }) => {
  const response = await page.goto('/services/shop/no-such-service/yaml');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Service not found');
});

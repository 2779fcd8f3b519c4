/**
 * Every view names itself and the cluster in the browser tab ("Overview · <cluster> · zonescope"),
 * and the header shows the cluster's own name (here the simulator's kubeconfig context).
 */
import { expect, test } from './fixtures';

const CLUSTER = 'zonescope-sim';

test('page titles name the view, the cluster and zonescope', async ({ page }) => {
  const cases: [string, string][] = [
    ['/', `Overview · ${CLUSTER} · zonescope`],
    ['/services', `Services · ${CLUSTER} · zonescope`],
    ['/services/payments/ledger', `payments/ledger · Services · ${CLUSTER} · zonescope`],
    ['/dataplane', `Dataplane · ${CLUSTER} · zonescope`],
    ['/no-such-page', 'Page not found · zonescope'],
  ];
  for (const [path, title] of cases) {
    await page.goto(path);
    await expect(page).toHaveTitle(title);
  }
});

test('the header names the cluster', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('header').getByTestId('cluster-name')).toHaveText(`Cluster: ${CLUSTER}`);
});

test('the title follows client-side navigation', async ({ page }) => {
  await page.goto('/services');
  await page.getByRole('link', { name: 'payments/ledger' }).click();
  await expect(page).toHaveTitle(`payments/ledger · Services · ${CLUSTER} · zonescope`);
});

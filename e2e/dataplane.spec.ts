/**
 * The Dataplane page on a phone: its answer is the first box and a sentence; the reference
 * material stays closed until asked for (by keyboard, or by a link to it); the page is short.
 */
import { expect, test } from './fixtures';
import { DataplanePage } from './pages/dataplane-page';

test.use({ viewport: { width: 390, height: 844 } });

test('the answer comes first, the reference opens on demand, and the page is a few screens tall', async ({ page }) => {
  const dataplane = new DataplanePage(page);
  await dataplane.goto();
  await expect(dataplane.answer).toHaveText(/^kube-proxy in iptables mode implements this cluster's Services and honours topology hints on Kubernetes 1\.\d+\. \S/);
  // The first panel of the page is the answer.
  await expect(dataplane.main.locator('section').first()).toHaveAttribute('id', 'answer');
  await expect(dataplane.ruleComparison).toBeVisible();

  // Reference material: closed, so short; its summaries are reachable and open with the keyboard.
  const schedulers = dataplane.referenceSection('ipvs-schedulers');
  await expect(schedulers.content).toBeHidden();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height, 'Dataplane page height at 390 px').toBeLessThan(4_500);
  await schedulers.summary.focus();
  await page.keyboard.press('Enter');
  await expect(schedulers.content.getByRole('table')).toBeVisible();
  await expect(schedulers.summary).toContainText('IPVS schedulers');

  // "Annotation per release" beside this release's annotation opens the table of every release.
  const releases = dataplane.referenceSection('annotation');
  await expect(releases.content).toBeHidden();
  await dataplane.proxy.getByRole('link', { name: 'Annotation per release' }).click();
  await expect(releases.content.getByRole('row', { name: /this cluster/ })).toBeVisible();
});

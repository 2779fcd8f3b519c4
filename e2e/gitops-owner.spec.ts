/**
 * Next to the toggle, who re-applies the Service and what their next sync does to a live change:
 * a Service applied by Argo CD 2.x with its defaults (label tracking with
 * `app.kubernetes.io/instance`, client-side apply keeping the manifest in
 * `kubectl.kubernetes.io/last-applied-configuration`).
 */
import { expect, test } from './fixtures';
import { ServicePage } from './pages/service-page';
import { patchServiceMetadata } from './sim';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function manifest(annotations: Record<string, string>): string {
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'checkout', namespace: 'shop', labels: { 'app.kubernetes.io/instance': 'shop' }, annotations }, spec: { selector: { 'app.kubernetes.io/name': 'checkout' } } })}\n`;
}

test('the Git source declares topology-mode: the page names Argo CD and the last-applied configuration, and says the next sync puts it back', async ({ page }) => {
  await patchServiceMetadata('shop', 'checkout', { labels: { 'app.kubernetes.io/instance': 'shop' }, annotations: { [LAST_APPLIED]: manifest({ 'service.kubernetes.io/topology-mode': 'Auto' }) } });
  const service = new ServicePage(page);
  await service.goto('shop/checkout');
  await service.waitForToggle();
  const warning = page.getByText("Managed by Argo CD (label app.kubernetes.io/instance=shop, Argo CD's default tracking label, with a last-applied configuration): the Git source declares service.kubernetes.io/topology-mode: Auto (read from its kubectl.kubernetes.io/last-applied-configuration) — the next Argo CD sync puts it back. Make the change in Git.", { exact: true });
  await expect(warning.first()).toBeVisible();
  // The Git change is what it offers first.
  await expect(page.getByText('The change in Git, and the live commands')).toBeVisible();
});

test('the Git source leaves topology-mode out: the page says the change stays', async ({ page }) => {
  await patchServiceMetadata('shop', 'checkout', { labels: { 'app.kubernetes.io/instance': 'shop' }, annotations: { [LAST_APPLIED]: manifest({}) } });
  const service = new ServicePage(page);
  await service.goto('shop/checkout');
  await service.waitForToggle();
  await expect(page.getByText(/no manager declares a topology annotation \(read from its kubectl\.kubernetes\.io\/last-applied-configuration and managedFields\) — the change stays after the next Argo CD sync/)).toBeVisible();
  await expect(page.getByText(/puts it back/)).toHaveCount(0);
});

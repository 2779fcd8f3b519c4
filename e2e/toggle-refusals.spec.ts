/**
 * The toggle when the cluster says no: RBAC denies the patch (403: "not permitted", the reason, the
 * control disabled) and another client changed the Service first (409: nothing written, the user's
 * choice kept beside the server's current value).
 */
import { expect, test } from './fixtures';
import { ServicePage } from './pages/service-page';
import { annotateService, denyInSimulator, getService } from './sim';

test('403: a patch the API server forbids shows "not permitted" with the reason, and disables the control', async ({ page, request }) => {
  // The dashboard remembers a refusal for ~30 s: when this test is repeated, wait until it asks again.
  await expect
    .poll(async () => ((await (await request.get('/api/v1/services/platform/config/topology-mode')).json()) as { canPatch: boolean }).canPatch, { timeout: 45_000 })
    .toBe(true);
  const service = new ServicePage(page);
  // The page loads while the patch is allowed (the permission check says yes)...
  await service.goto('platform/config');
  await service.waitForToggle();
  await expect(service.enableButton).toBeEnabled();
  // ...then the cluster's RBAC changes and the write is forbidden.
  await denyInSimulator('patch', 'services');

  await service.enableButton.click();
  await service.confirmButton.click();
  const refusal = service.toggle.getByRole('alert');
  await expect(refusal).toContainText('Not permitted');
  // The API server's reason, with the identity and the verb it lacks.
  await expect(refusal).toContainText('system:serviceaccount:zonescope:zonescope');
  await expect(refusal).toContainText('cannot patch resource "services"');
  await expect(refusal).toContainText('forbidden:topology-mode');
  // The control is disabled, with the reason next to it.
  await expect(service.enableButton).toBeDisabled();
  await expect(service.disableButton).toBeDisabled();
  await expect(service.toggle.getByText('not permitted', { exact: true })).toBeVisible();
  await expect(service.enableButton).toHaveAccessibleDescription(/Not permitted: .*cannot patch resource "services"/);
  // Nothing was written.
  expect((await getService('platform', 'config')).metadata.annotations?.['service.kubernetes.io/topology-mode']).toBe('Enabled');
});

test('403: when the permission check already says no, the control is disabled with the reason before any click', async ({ page }) => {
  await denyInSimulator('patch', 'services');
  const service = new ServicePage(page);
  await service.goto('payments/notifier');
  await service.waitForToggle();
  await expect(service.toggle.getByText('not permitted', { exact: true })).toBeVisible();
  // The identity from the SelfSubjectReview, and the RBAC rule that grants the patch.
  await expect(service.toggle).toContainText('Not permitted: system:serviceaccount:zonescope:zonescope may not patch Services in "payments" in cluster zonescope-sim. The RBAC rule that grants it: apiGroups: [""], resources: ["services"], verbs: ["patch"].');
  await expect(service.enableButton).toBeDisabled();
  await expect(service.disableButton).toBeDisabled();
  await expect(service.disableButton).toHaveAccessibleDescription(/Not permitted: system:serviceaccount:zonescope:zonescope may not patch Services in "payments"/);
});

test('409: a concurrent change keeps the user\'s choice and shows the current value; confirming again applies it', async ({ page }) => {
  const service = new ServicePage(page);
  await service.goto('shop/storefront');
  await service.waitForToggle();
  await expect(service.currentValue).toContainText('no topology annotation');
  const loadedAt = (await getService('shop', 'storefront')).metadata.resourceVersion;

  // The user opens the confirm step; meanwhile another client sets the annotation.
  await service.enableButton.click();
  await expect(service.confirmGroup).toContainText(`only if the Service is still at resourceVersion ${loadedAt}`);
  await annotateService('shop', 'storefront', { 'service.kubernetes.io/topology-mode': 'Disabled' });
  const changedTo = (await getService('shop', 'storefront')).metadata.resourceVersion;
  expect(changedTo).not.toBe(loadedAt);

  await service.confirmButton.click();
  const conflict = service.toggle.getByRole('alert');
  await expect(conflict).toContainText('The Service changed since this page loaded (409 Conflict): nothing was written.');
  await expect(conflict).toContainText(`Current value on the server: service.kubernetes.io/topology-mode: "Disabled" (resourceVersion ${changedTo})`);
  await expect(conflict).toContainText('Your choice is kept');
  // Nothing was written over the other client's change.
  expect((await getService('shop', 'storefront')).metadata.annotations?.['service.kubernetes.io/topology-mode']).toBe('Disabled');

  // The choice (enable) is offered again, now against the current resourceVersion.
  await conflict.getByRole('button', { name: 'Review: enable topology mode' }).click();
  await expect(service.confirmGroup).toContainText('set service.kubernetes.io/topology-mode: Auto');
  await expect(service.confirmGroup).toContainText(`only if the Service is still at resourceVersion ${changedTo}`);
  await service.confirmButton.click();
  // Applied: storefront's 3 endpoints cannot meet the minimums, so the controller keeps hints off.
  await expect(service.toggle.getByRole('status').filter({ hasText: 'Topology mode is on, but the controller keeps hints off' })).toBeVisible({ timeout: 40_000 });
  expect((await getService('shop', 'storefront')).metadata.annotations?.['service.kubernetes.io/topology-mode']).toBe('Auto');
});

/**
 * axe scan of every view in light and dark mode: no serious or critical violations. Dark mode comes
 * from the OS preference (prefers-color-scheme), which the theme script applies before first paint.
 * The History panels holding data (after a real hints off/on change) are scanned by history.spec.ts.
 */
import type { Page } from '@playwright/test';
import { expectNoSeriousAxeViolations } from './axe';
import { expect, test } from './fixtures';
import { CURRENT_VALUE } from './pages/service-page';

const VIEWS = [
  { name: 'overview', path: '/', ready: (page: Page) => page.getByRole('region', { name: 'Zone map' }) },
  { name: 'services', path: '/services', ready: (page: Page) => page.getByRole('table').locator('tbody tr[aria-rowindex]').first() },
  { name: 'service', path: '/services/payments/ledger', ready: (page: Page) => page.getByRole('region', { name: 'Topology mode' }).getByText(CURRENT_VALUE) },
  { name: 'dataplane', path: '/dataplane', ready: (page: Page) => page.getByRole('region', { name: 'Rule counts per proxy mode' }).locator('.recharts-surface').first() },
  { name: 'service not found', path: '/services/shop/no-such-service', ready: (page: Page) => page.getByRole('heading', { name: 'Service not found' }) },
  { name: 'page not found', path: '/no-such-page', ready: (page: Page) => page.getByRole('heading', { name: 'Page not found' }) },
] as const;

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} mode`, () => {
    test.use({ colorScheme: scheme });
    for (const view of VIEWS) {
      test(`${view.name} has no serious or critical axe violations`, async ({ page }) => {
        await page.goto(view.path);
        await expect(view.ready(page)).toBeVisible();
        await expect(page.locator('html')).toHaveClass(scheme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/);
        // Interactive and settled (theme toggle hydrated) before scanning.
        await expect(page.getByRole('button', { name: /^Switch to (light|dark) theme$/ })).toBeVisible();
        await expectNoSeriousAxeViolations(page);
      });
    }
  });
}

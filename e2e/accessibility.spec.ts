/**
 * axe scan of every view in light and dark mode: no serious or critical violations. Dark mode comes
 * from the OS preference (prefers-color-scheme), which the theme script applies before first paint.
 * The History panels holding data (after a real hints off/on change) are scanned by history.spec.ts.
 */
import type { Page } from '@playwright/test';
import { axeResults, expectNoSeriousAxeViolations } from './axe';
import { expect, test } from './fixtures';
import { CURRENT_VALUE } from './pages/service-page';

const VIEWS = [
  { name: 'overview', path: '/', ready: (page: Page) => page.getByRole('region', { name: 'Zone map' }) },
  { name: 'services', path: '/services', ready: (page: Page) => page.getByRole('table').locator('tbody tr[aria-rowindex]').first() },
  { name: 'service', path: '/services/payments/ledger', ready: (page: Page) => page.getByRole('region', { name: 'Topology mode' }).getByText(CURRENT_VALUE) },
  { name: 'dataplane', path: '/dataplane', ready: (page: Page) => page.getByRole('region', { name: 'Rule counts per proxy mode' }).getByTestId('rule-comparison') },
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

// heading-order is a "moderate" rule, below the bar above: checked here on the pages with the most headings.
test('the Service and Dataplane pages never skip a heading level', async ({ page }) => {
  for (const view of VIEWS.filter((v) => v.name === 'service' || v.name === 'dataplane')) {
    await page.goto(view.path);
    await expect(view.ready(page)).toBeVisible();
    const levels = await page.getByRole('heading').evaluateAll((els) => els.map((el) => Number(el.tagName.slice(1))));
    expect(levels[0], `${view.name}: the first heading`).toBe(1);
    const results = await axeResults(page);
    expect(results.violations.filter((v) => v.id === 'heading-order').flatMap((v) => v.nodes.map((n) => n.target.join(' '))), view.name).toEqual([]);
  }
});

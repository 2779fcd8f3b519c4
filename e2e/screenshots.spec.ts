/**
 * Screenshots of each view for the README, taken from the real pages (production build, simulated
 * eks-demo cluster) at 1280×800. Light for every view, dark for the overview and the Service view.
 *
 * With `UPDATE_SCREENSHOTS=1` they are written to `docs/screenshots/*.png` (the README's images);
 * otherwise to `test-results/screenshots/`, so an ordinary e2e run still takes them (and fails if a
 * view cannot be captured) without rewriting the committed images.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';

const OUT = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(__dirname, '..', 'docs', 'screenshots') : path.join(__dirname, '..', 'test-results', 'screenshots');

const SHOTS = [
  { file: 'overview.png', path: '/', fullPage: true, ready: (page: Page) => page.getByRole('region', { name: 'Zone map' }).locator('svg').first() },
  { file: 'services.png', path: '/services', fullPage: false, ready: (page: Page) => page.getByRole('table').locator('tbody tr[aria-rowindex]').first() },
  {
    file: 'service-payments-ledger.png',
    path: '/services/payments/ledger',
    fullPage: true,
    ready: (page: Page) => page.getByRole('region', { name: 'Topology mode' }).getByText(/^Current:/),
  },
  { file: 'dataplane.png', path: '/dataplane', fullPage: true, ready: (page: Page) => page.getByRole('region', { name: 'Rule counts per proxy mode' }).locator('.recharts-surface').first() },
] as const;

const DARK = new Set(['overview.png', 'service-payments-ledger.png']);

async function capture(page: Page, shot: (typeof SHOTS)[number], file: string): Promise<void> {
  await page.goto(shot.path);
  await expect(shot.ready(page)).toBeVisible();
  await expect(page.getByRole('button', { name: /^Switch to (light|dark) theme$/ })).toBeVisible();
  await expect(page.locator('header').getByText('Live, synced')).toBeVisible();
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(OUT, file), fullPage: shot.fullPage, animations: 'disabled', caret: 'hide' });
}

test.describe('light', () => {
  test.use({ colorScheme: 'light', viewport: { width: 1280, height: 800 } });
  for (const shot of SHOTS) {
    test(shot.file, async ({ page }) => {
      await capture(page, shot, shot.file);
    });
  }
});

test.describe('dark', () => {
  test.use({ colorScheme: 'dark', viewport: { width: 1280, height: 800 } });
  for (const shot of SHOTS.filter((s) => DARK.has(s.file))) {
    const file = shot.file.replace(/\.png$/, '-dark.png');
    test(file, async ({ page }) => {
      await capture(page, shot, file);
    });
  }
});

/**
 * Phone (390 px), laptop (1280 px) and wide-screen (1920 px) variants of every view, light and dark, to look at
 * (not used by the README, so always written to test-results/screenshots/responsive/, never
 * committed). Each also checks that the page does not scroll sideways.
 */
const RESPONSIVE_OUT = path.join(__dirname, '..', 'test-results', 'screenshots', 'responsive');

for (const width of [390, 1280, 1920] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    test.describe(`${width} px, ${scheme}`, () => {
      test.use({ colorScheme: scheme, viewport: { width, height: width === 390 ? 844 : width === 1280 ? 800 : 1080 } });
      for (const shot of SHOTS) {
        const file = shot.file.replace(/\.png$/, `-${width}-${scheme}.png`);
        test(file, async ({ page }) => {
          await page.goto(shot.path);
          await expect(shot.ready(page)).toBeVisible();
          await expect(page.locator('header').getByText('Live, synced')).toBeVisible();
          await page.evaluate(() => document.fonts.ready);
          expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
          await page.screenshot({ path: path.join(RESPONSIVE_OUT, file), fullPage: true, animations: 'disabled', caret: 'hide' });
        });
      }
    });
  }
}

/**
 * Screenshots of each view for the README, taken from the real pages (production build, simulated
 * eks-demo cluster) at 1280×800. Light for every view, dark for the overview and the Service view.
 *
 * Only `npm run screenshots` runs this file (`UPDATE_SCREENSHOTS=1`; playwright.config.ts leaves
 * it out of an ordinary e2e run): the images are written to `docs/screenshots/*.png` (the
 * README's images). What they show is tested by the other specs (layout.spec.ts: no page scrolls
 * sideways; overview-traffic, service-traffic and history specs: the panels).
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON } from './prometheus';
import { CURRENT_VALUE } from './pages/service-page';

const OUT = path.join(__dirname, '..', 'docs', 'screenshots');

const SHOTS = [
  { file: 'overview.png', path: '/', fullPage: true, ready: (page: Page) => page.getByRole('region', { name: 'Zone map' }).locator('svg').first() },
  { file: 'services.png', path: '/services', fullPage: false, ready: (page: Page) => page.getByRole('table').locator('tbody tr[aria-rowindex]').first() },
  {
    file: 'service-payments-ledger.png',
    path: '/services/payments/ledger',
    fullPage: true,
    ready: (page: Page) => page.getByRole('region', { name: 'Topology mode' }).getByText(CURRENT_VALUE),
  },
  { file: 'dataplane.png', path: '/dataplane', fullPage: true, ready: (page: Page) => page.getByRole('region', { name: 'Rule counts per proxy mode' }).getByTestId('rule-comparison') },
] as const;

const DARK = new Set(['overview.png', 'service-payments-ledger.png']);

/** The History panel's Changes table: there once the panel has an answer with data. */
function historyChanges(page: Page) {
  return page.getByRole('region', { name: 'History', exact: true }).getByRole('table', { name: 'Changes' });
}

/**
 * The traffic panels, one element each (light and dark): the Overview's zone traffic, and on
 * shop/catalog (measured by the e2e Prometheus, keep-alive skewed in the simulator) measured vs
 * predicted and the "100 requests" experiment. They wait for measured figures, so the images show
 * what a user with Prometheus sees.
 */
const PANELS = [
  { file: 'overview-zone-traffic.png', path: '/', region: 'Zone traffic', ready: (page: Page) => page.getByRole('region', { name: 'Zone traffic', exact: true }).getByText(/measured with zone-resolved flows for \d+/) },
  { file: 'service-measured.png', path: '/services/shop/catalog', region: 'Measured vs predicted', ready: (page: Page) => page.getByTestId('measured-difference') },
  {
    file: 'service-request-sample.png',
    path: '/services/shop/catalog',
    region: 'Send 100 requests from a client in zone X',
    ready: (page: Page) => page.getByRole('region', { name: 'Send 100 requests from a client in zone X' }).getByTestId('sample-total'),
  },
  // The Service page's History panel at 1 h, read back from the e2e Prometheus scraping the
  // dashboard's /metrics (it shows the off/on transitions e2e/history.spec.ts caused, which runs
  // first; the Overview's History panel is in overview.png).
  { file: 'service-history.png', path: '/services/payments/ledger?history=1h', region: 'History', ready: (page: Page) => historyChanges(page) },
] as const;

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`panels, ${scheme}`, () => {
    test.use({ colorScheme: scheme, viewport: { width: 1280, height: 800 } });
    for (const shot of PANELS) {
      const file = scheme === 'dark' ? shot.file.replace(/\.png$/, '-dark.png') : shot.file;
      test(file, async ({ page }) => {
        test.skip(shot.region === 'History' && !PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON);
        // The e2e Prometheus needs a few scrapes before the figures are measured: reload until they are.
        await expect(async () => {
          await page.goto(shot.path);
          // The History panel fetches its answer (several range queries) after the page has rendered.
          await expect(shot.ready(page)).toBeVisible({ timeout: shot.region === 'History' ? 10_000 : 2_000 });
        }).toPass({ timeout: 60_000 });
        await expect(page.locator('header').getByText('Live, synced')).toBeVisible();
        await page.evaluate(() => document.fonts.ready);
        // The sticky site header would cover the top of a panel scrolled into view: keep it in the flow.
        await page
          .getByRole('region', { name: shot.region, exact: true })
          .screenshot({ path: path.join(OUT, file), animations: 'disabled', caret: 'hide', style: 'header { position: static !important; }' });
      });
    }
  });
}

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

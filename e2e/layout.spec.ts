/**
 * Phone (390 px) and wide (1920 px) screens: no page scrolls sideways (tables scroll inside their
 * own labelled region), wide screens use their width, and the Services table scrolls with the page
 * (no nested scroll box).
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { CURRENT_VALUE } from './pages/service-page';

const PAGES = [
  { name: 'Overview', path: '/', ready: (page: Page) => page.getByRole('region', { name: 'Zone map' }).locator('svg').first() },
  { name: 'Services', path: '/services', ready: (page: Page) => page.getByRole('table').locator('tbody tr[aria-rowindex]').first() },
  { name: 'Service payments/ledger', path: '/services/payments/ledger', ready: (page: Page) => page.getByRole('region', { name: 'Topology mode' }).getByText(CURRENT_VALUE) },
  { name: 'Dataplane', path: '/dataplane', ready: (page: Page) => page.getByRole('heading', { level: 1 }) },
  { name: 'not found', path: '/no-such-page', ready: (page: Page) => page.getByRole('heading', { level: 1, name: 'Page not found' }) },
] as const;

/** The page's width beyond the viewport, with the elements sticking out furthest (for the failure message). */
async function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; culprits: string[] }> {
  return page.evaluate(() => {
    const innerWidth = window.innerWidth;
    const culprits: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const rect = el.getBoundingClientRect();
      if (rect.right > innerWidth + 1 && rect.width > 0) {
        // Only the outermost element that sticks out and is not inside a scrolling region.
        let scrolled = false;
        for (let p = el.parentElement; p; p = p.parentElement) {
          const style = getComputedStyle(p);
          if ((style.overflowX === 'auto' || style.overflowX === 'scroll' || style.overflowX === 'hidden') && p.getBoundingClientRect().right <= innerWidth + 1) scrolled = true;
        }
        if (!scrolled) culprits.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${String(el.getAttribute('class') ?? '').slice(0, 60)} right=${Math.round(rect.right)}`);
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, culprits: culprits.slice(0, 8) };
  });
}

for (const width of [390, 1920]) {
  test.describe(`${width} px wide`, () => {
    test.use({ viewport: { width, height: width === 390 ? 844 : 1080 } });
    for (const view of PAGES) {
      test(`${view.name} does not scroll sideways`, async ({ page }) => {
        await page.goto(view.path);
        await expect(view.ready(page)).toBeVisible();
        const result = await overflow(page);
        expect(result.scrollWidth, `page wider than the ${width} px viewport: ${result.culprits.join('; ')}`).toBeLessThanOrEqual(result.innerWidth);
      });
    }
  });
}

test.describe('1920 px wide', () => {
  test.use({ viewport: { width: 1920, height: 1080 } });

  test('pages use the width of a wide screen', async ({ page }) => {
    await page.goto('/');
    const width = await page.locator('main').evaluate((el) => el.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(1700);
  });

  test('the Services table scrolls with the page: no scroll box of its own, header row stays in view', async ({ page }) => {
    await page.goto('/services');
    const table = page.getByRole('table');
    await expect(table.locator('tbody tr[aria-rowindex]').first()).toBeVisible();
    const nested = await table.evaluate((el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const style = getComputedStyle(p);
        if (/(auto|scroll)/.test(style.overflowY) && p.scrollHeight > p.clientHeight + 1) return p.outerHTML.slice(0, 120);
      }
      return null;
    });
    expect(nested).toBeNull();
    // Every one of the 13 rows is rendered in the page, none hidden behind an inner scroll.
    await expect(table.locator('tbody tr[aria-rowindex]')).toHaveCount(13);
  });
});

test.describe('390 px wide', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the Services table shows its priority columns and fits the screen; names are whole', async ({ page }) => {
    await page.goto('/services');
    const region = page.getByRole('region', { name: 'Services table' });
    await expect(region.locator('tbody tr[aria-rowindex]').first()).toBeVisible();
    // Service, hints, cross-zone share and cost: no sideways scrolling, inside the region or out.
    const headers = region.getByRole('columnheader');
    const shown = await headers.evaluateAll((ths) => ths.filter((th) => th.getBoundingClientRect().width > 0).map((th) => (th as HTMLElement).innerText.trim().toLowerCase()));
    expect(shown).toEqual(['service', 'hints now / exp.', 'cross-zone', '$/mo']);
    await expect(page.getByText('The table scrolls sideways')).toBeHidden();
    const { scrollWidth, clientWidth } = await region.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    // Every row shows its figures (no blank bands): a hints badge and a share in each.
    const rows = region.locator('tbody tr[aria-rowindex]');
    for (const row of await rows.all()) await expect(row.locator('td:visible')).toHaveCount(4);
    await expect(rows.first().locator('td:visible').nth(2)).toContainText(/\d+\.\d %/);
    // The region is a tab stop, so the keyboard scrolls it where it is wider than the screen (768–1024 px).
    await expect(region).toHaveAttribute('tabindex', '0');
    // Names are shown whole (wrapped), not cut to a prefix.
    const link = region.getByRole('link', { name: 'kube-system/kube-dns' });
    const fits = await link.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
    expect(fits).toBe(true);
  });
});

test.describe('390 px wide: the Service zone map', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('stacks its zones as cards: every zone on screen, no text under 12 px', async ({ page }) => {
    await page.goto('/services/payments/ledger#endpoint-map');
    const region = page.getByRole('region', { name: 'Endpoints by zone' });
    const cards = region.getByTestId('zone-map-list').locator(':scope > li');
    await expect(cards.first()).toBeVisible();
    // The drawing (columns side by side, scaled to the width) is not shown on a phone.
    await expect(region.getByRole('img')).toBeHidden();
    const zones = await cards.evaluateAll((els) => els.map((el) => el.getAttribute('data-zone')));
    expect(zones).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
    const problems = await region.getByTestId('zone-map-list').evaluate((list) => {
      const out: string[] = [];
      for (const el of Array.from(list.querySelectorAll('*'))) {
        const rect = el.getBoundingClientRect();
        if (rect.width === 0 || rect.height === 0) continue;
        if (rect.left < 0 || rect.right > window.innerWidth + 1) out.push(`${el.tagName} off screen: ${Math.round(rect.left)}–${Math.round(rect.right)}`);
        const ownText = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
        const size = Number.parseFloat(getComputedStyle(el).fontSize);
        if (ownText && size < 12) out.push(`${el.tagName} "${(el.textContent ?? '').slice(0, 20)}" at ${size} px`);
      }
      return out;
    });
    expect(problems).toEqual([]);
  });
});

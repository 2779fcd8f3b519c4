/**
 * The benchmark's browser phase: Debian's chromium (headless, driven by Playwright) against the
 * running production server.
 *
 * - Services page: DOM nodes once the table is rendered (`document.getElementsByTagName('*')`);
 *   sort (click a column's sort button) and filter (type into the search box) timed in the page,
 *   from the input event to the second animation frame after the table changed — what the user
 *   waits for, rendering included.
 * - Service view: largest contentful paint of a fresh load (PerformanceObserver, buffered).
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from '@playwright/test';
import { chromium } from '@playwright/test';

import { percentile } from './http';

export interface BrowserResult {
  /** Rows the Services page lists (its count line). */
  readonly servicesRows: number;
  readonly servicesDomNodes: number;
  /** Sort: each click's time, and the worst. */
  readonly sortMs: readonly number[];
  readonly sortMaxMs: number;
  /** Filter: each search's time, and the worst (`null` when there was no text to search for). */
  readonly filterMs: readonly number[];
  readonly filterMaxMs: number | null;
  /** Largest contentful paint of the Service view, per path. */
  readonly lcpMs: Readonly<Record<string, number>>;
}

const r1 = (value: number) => Math.round(value * 10) / 10;

/**
 * tsx compiles this file with esbuild's keepNames, which wraps inner functions in a `__name(…)`
 * helper; functions passed to `page.evaluate` run in the page, where the helper has to exist too.
 */
const PAGE_HELPERS = { content: 'globalThis.__name = (fn) => fn;' };

/** Clicks the sort button of the column named `label` in the page and times until the table shows the new order. */
async function timeSort(page: Page, label: string): Promise<number> {
  return page.evaluate(async (name) => {
    const header = [...document.querySelectorAll('th[aria-sort]')].find((th) => th.textContent?.includes(name));
    const button = header?.querySelector('button');
    if (!header || !button) throw new Error(`no sortable column "${name}"`);
    const before = header.getAttribute('aria-sort');
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    const started = performance.now();
    button.click();
    for (;;) {
      await frame();
      // aria-sort changes in the same React commit as the rows' new order (whose first row may be
      // the same one: numbers sort largest first, and the largest may also come first by name).
      if (header.getAttribute('aria-sort') !== before) break;
      if (performance.now() - started > 10_000) throw new Error('sorting did not finish within 10 s');
    }
    await frame();
    return performance.now() - started;
  }, label);
}

/** Types `text` into the search box (as one input event) and times until the count line shows the filtered result. */
async function timeFilter(page: Page, text: string): Promise<number> {
  return page.evaluate(async (value) => {
    const input = document.querySelector<HTMLInputElement>('input[type="search"]');
    if (!input) throw new Error('no search box');
    const count = () => [...document.querySelectorAll('[role="search"] *')].find((el) => el.children.length === 0 && /[\d,]+ (of [\d,]+ )?Services$/.test(el.textContent ?? ''))?.textContent ?? '';
    const countBefore = count();
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
    const started = performance.now();
    setter?.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    for (;;) {
      await frame();
      if (count() !== countBefore) break;
      if (performance.now() - started > 10_000) throw new Error('filtering did not finish within 10 s');
    }
    await frame();
    return performance.now() - started;
  }, text);
}

async function largestContentfulPaint(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(PAGE_HELPERS);
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(500);
    return await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let last = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) last = Math.max(last, entry.startTime);
          }).observe({ type: 'largest-contentful-paint', buffered: true });
          setTimeout(() => resolve(last), 100);
        }),
    );
  } finally {
    await context.close();
  }
}

/** Runs the browser phase; `null` when no chromium is installed. */
export async function browserPhase(options: { serverUrl: string; servicePaths: readonly string[]; filterTexts: readonly string[]; lcpLoads: number; log: (line: string) => void }): Promise<BrowserResult | null> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    options.log(`browser phase skipped: no chromium at ${executablePath}`);
    return null;
  }
  const browser = await chromium.launch({ executablePath, headless: true });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(PAGE_HELPERS);
    const page = await context.newPage();
    await page.goto(`${options.serverUrl}/services`, { waitUntil: 'load' });
    await page.locator('tbody tr[aria-rowindex]').first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(500);
    const countText = (await page.getByRole('search', { name: 'Filter Services' }).getByText(/[\d,]+ (of [\d,]+ )?Services$/).textContent()) ?? '';
    const servicesRows = Number(/(\d+) Services$/.exec(countText.replace(/,/g, ''))?.[1] ?? Number.NaN);
    const servicesDomNodes = await page.evaluate(() => document.getElementsByTagName('*').length);

    const sortMs: number[] = [];
    for (const label of ['Cross-zone share', 'Cross-zone share', 'Ready endpoints per zone', 'Service']) sortMs.push(r1(await timeSort(page, label)));
    const filterMs: number[] = [];
    // Each text changes the count line (scripts/bench/targets.ts picks them so); clearing restores it.
    for (const text of options.filterTexts.length > 0 ? [...options.filterTexts, ''] : []) filterMs.push(r1(await timeFilter(page, text)));
    const domNodesAfter = await page.evaluate(() => document.getElementsByTagName('*').length);
    await context.close();

    const lcpMs: Record<string, number> = {};
    // One page load's LCP swings with whatever else the server is doing (a Prometheus refresh, a
    // GC): the median of three loads, each in a fresh context, all three logged.
    const lcpRuns: Record<string, number[]> = {};
    for (const servicePath of options.servicePaths) {
      const runs: number[] = [];
      for (let i = 0; i < options.lcpLoads; i++) runs.push(r1(await largestContentfulPaint(browser, `${options.serverUrl}${servicePath}`)));
      lcpRuns[servicePath] = runs;
      lcpMs[servicePath] = percentile([...runs].sort((a, b) => a - b), 50);
    }
    const result: BrowserResult = {
      servicesRows,
      servicesDomNodes: Math.max(servicesDomNodes, domNodesAfter),
      sortMs,
      sortMaxMs: Math.max(...sortMs),
      filterMs,
      filterMaxMs: filterMs.length > 0 ? Math.max(...filterMs) : null,
      lcpMs,
    };
    options.log(`browser: /services ${servicesRows} rows, ${result.servicesDomNodes} DOM nodes; sort ${sortMs.join(', ')} ms; filter ${filterMs.join(', ')} ms; LCP (median of ${options.lcpLoads} loads) ${JSON.stringify(lcpMs)}, each ${JSON.stringify(lcpRuns)}`);
    return result;
  } finally {
    await browser.close();
  }
}

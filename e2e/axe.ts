/**
 * The suite's accessibility check: axe-core (its default rules: WCAG 2.0/2.1 A and AA and best
 * practices) run in the page as it is, failing on any serious or critical violation with the
 * first nodes of each named.
 *
 * axe-core itself, injected with `page.evaluate` (a DevTools evaluation, so the dashboard's
 * Content-Security-Policy does not stand in its way) and run with `axe.run`. The
 * `@axe-core/playwright` wrapper did the same and more (frames), but requires Node ≥ 22.12 and
 * made `npm ci` warn on the Node 20 the project supports; the dashboard has no frames.
 */
import type { Page } from '@playwright/test';
import axeCore from 'axe-core';
import type { AxeResults } from 'axe-core';
import { expect } from './fixtures';

/** The whole of axe-core as a script (its package exports it as `source`). */
const AXE_SOURCE: string = axeCore.source;

/** axe-core's results for the page (or the part `include` selects). */
export async function axeResults(page: Page, include?: string): Promise<AxeResults> {
  await page.evaluate(AXE_SOURCE);
  const results: unknown = await page.evaluate(async (selector: string | null) => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<unknown> } }).axe;
    return axe.run(selector === null ? document : { include: [selector] }, { resultTypes: ['violations'] });
  }, include ?? null);
  return results as AxeResults;
}

/** Fails on any serious or critical violation, naming each rule and its first five nodes (`what` prefixes the message). */
export async function expectNoSeriousAxeViolations(page: Page, include?: string, what?: string): Promise<void> {
  const results = await axeResults(page, include);
  const blocking = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')} — ${n.failureSummary ?? ''}`) }));
  expect(blocking, `${what !== undefined ? `${what}: ` : ''}${JSON.stringify(blocking, null, 2)}`).toEqual([]);
}

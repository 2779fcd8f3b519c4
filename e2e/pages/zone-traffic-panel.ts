import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';

/** The Overview's "Zone traffic" panel (components/overview/zone-traffic.tsx). */
export class ZoneTrafficPanel {
  readonly region: Locator;
  /** Price and where the volumes come from. */
  readonly sources: Locator;
  readonly scenarioSwitch: Locator;
  readonly matrix: Locator;
  readonly topByCost: Locator;
  readonly topBySaving: Locator;

  constructor(readonly page: Page) {
    this.region = page.getByRole('region', { name: 'Zone traffic', exact: true });
    this.sources = this.region.getByTestId('zone-traffic-sources');
    this.scenarioSwitch = this.region.getByRole('group', { name: 'Scenario of the flows' });
    this.matrix = this.region.getByRole('table');
    this.topByCost = this.region.getByRole('region', { name: 'Top Services by cross-zone $' });
    this.topBySaving = this.region.getByRole('region', { name: 'Top savings if fixed' });
  }

  /** The totals card of one scenario. */
  card(scenario: 'now' | 'expected' | 'best'): Locator {
    return this.region.locator(`[data-scenario="${scenario}"]`);
  }

  /** Waits until React handles the scenario switch. */
  async waitForInteractive(): Promise<void> {
    await expect(this.region.locator('fieldset[data-interactive="true"]')).toBeVisible();
  }

  async chooseScenario(label: 'Now' | 'After next sync' | 'Best achievable'): Promise<void> {
    await this.scenarioSwitch.getByRole('radio', { name: label }).check();
  }

  /** The matrix as numbers: client zone → endpoint zone → GB per month (as shown, rounded), and each row's cross-zone total. */
  async matrixFigures(): Promise<{ cells: Record<string, Record<string, number>>; crossZone: Record<string, number>; totalCrossZone: number }> {
    // innerText: what is rendered (a phone's short zone names are display:none on a wide screen).
    return this.matrix.evaluate((table) => {
      const text = (element: Element | null | undefined) => (element instanceof HTMLElement ? element.innerText : '').trim();
      const number = (value: string) => Number((/\d[\d,]*(\.\d+)?/.exec(value)?.[0] ?? 'NaN').replace(/,/g, ''));
      const zones = [...table.querySelectorAll('thead th')].slice(1, -1).map((th) => text(th).replace('→', '').trim());
      const cells: Record<string, Record<string, number>> = {};
      const crossZone: Record<string, number> = {};
      for (const row of table.querySelectorAll('tbody tr')) {
        const from = text(row.querySelector('th'));
        const tds = [...row.querySelectorAll('td')];
        cells[from] = Object.fromEntries(zones.map((zone, i) => [zone, number(text(tds[i]))]));
        crossZone[from] = number(text(tds.at(-1)));
      }
      return { cells, crossZone, totalCrossZone: number(text([...table.querySelectorAll('tfoot td')].at(-1))) };
    });
  }

  /** `namespace/name` of the entries of a top list, in order. */
  async topKeys(list: Locator): Promise<string[]> {
    return list.getByRole('listitem').getByRole('link').allTextContents();
  }
}

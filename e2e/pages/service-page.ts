import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { AppShell } from './app-shell';

/** The toggle's current value ("Current: …", or "Current in cluster X: …" naming the Service's cluster). */
export const CURRENT_VALUE = /^Current( in cluster [^:]+)?:/;

/** One Service `/services/{namespace}/{name}`. */
export class ServicePage extends AppShell {
  readonly verdict: Locator;
  readonly minimums: Locator;
  readonly minimumTable: Locator;
  readonly sumCheck: Locator;
  readonly hints: Locator;
  readonly events: Locator;
  readonly toggle: Locator;
  readonly enableButton: Locator;
  readonly disableButton: Locator;
  readonly confirmGroup: Locator;
  readonly confirmButton: Locator;
  readonly cancelButton: Locator;
  readonly currentValue: Locator;
  /** The "NN.N % cross-zone" badge beside the title. */
  readonly crossZone: Locator;
  readonly traffic: Locator;
  readonly gbInput: Locator;

  constructor(page: Page) {
    super(page);
    this.verdict = page.getByRole('region', { name: 'Verdict and smallest fix' });
    this.minimums = page.getByRole('region', { name: 'Endpoint distribution and per-zone minimums' });
    this.minimumTable = this.minimums.getByRole('table', { name: 'Per-zone minimum, desired and maximum endpoints' });
    this.sumCheck = this.minimums.getByText('Sum check').locator('..');
    this.hints = page.getByRole('region', { name: 'Observed vs expected hints' });
    this.events = page.getByRole('region', { name: 'Events' });
    this.toggle = page.getByRole('region', { name: 'Topology mode' });
    this.enableButton = this.toggle.getByRole('button', { name: /^Enable topology mode/ });
    this.disableButton = this.toggle.getByRole('button', { name: /^Disable/ });
    this.confirmGroup = this.toggle.getByRole('group', { name: 'Confirm the change' });
    this.confirmButton = this.confirmGroup.getByRole('button', { name: /^Yes, (enable|disable)$/ });
    this.cancelButton = this.confirmGroup.getByRole('button', { name: 'Cancel' });
    this.currentValue = this.toggle.getByText(CURRENT_VALUE);
    this.crossZone = this.heading.locator('xpath=..').getByText(/^\d+(\.\d)? % cross-zone$/);
    this.traffic = page.getByRole('region', { name: 'Traffic and cost' });
    this.gbInput = this.traffic.getByRole('spinbutton', { name: 'Traffic (GB / month)' });
  }

  async goto(key: string, query = ''): Promise<void> {
    await this.page.goto(`/services/${key}${query}`);
  }

  /** Waits until the toggle has read its state (permission, annotations, prediction). */
  async waitForToggle(): Promise<void> {
    await expect(this.toggle.getByText('Checking permission…')).toHaveCount(0);
    await expect(this.currentValue).toBeVisible();
  }

  /** "Hinted for zone now" of one zone in the observed-vs-expected table. */
  hintedNow(zone: string): Locator {
    return this.hints.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name: zone, exact: true }) }).getByRole('cell').nth(1);
  }

  /** "Expected after sync" of one zone in the observed-vs-expected table. */
  hintedExpected(zone: string): Locator {
    return this.hints.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name: zone, exact: true }) }).getByRole('cell').nth(2);
  }

  /** A row of the per-zone minimum table, by zone. */
  minimumRow(zone: string): Locator {
    return this.minimumTable.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name: zone, exact: true }) });
  }
}

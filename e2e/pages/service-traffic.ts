import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { ServicePage } from './service-page';

/** A Service page's traffic panels: volume and cost, measured vs predicted, and "Send 100 requests from a client in zone X". */
export class ServiceTrafficPage extends ServicePage {
  readonly volume: Locator;
  readonly measured: Locator;
  readonly measuredCrossZone: Locator;
  readonly predictedCrossZone: Locator;
  readonly difference: Locator;
  /** The list of known causes that fit (only when measured and predicted disagree). */
  readonly fittingCauses: Locator;
  readonly requests: Locator;
  readonly zoneSelect: Locator;
  readonly nodeSelect: Locator;
  readonly countInput: Locator;
  readonly selection: Locator;
  readonly sampleTable: Locator;
  readonly sampleTotal: Locator;
  readonly sampleMeasured: Locator;

  constructor(page: Page) {
    super(page);
    this.volume = this.traffic.getByTestId('service-volume');
    this.measured = page.getByRole('region', { name: 'Measured vs predicted' });
    this.measuredCrossZone = this.measured.getByTestId('measured-cross-zone');
    this.predictedCrossZone = this.measured.getByTestId('predicted-cross-zone');
    this.difference = this.measured.getByTestId('measured-difference');
    this.fittingCauses = this.measured.getByRole('list', { name: 'Known causes that fit this Service' });
    this.requests = page.getByRole('region', { name: 'Send 100 requests from a client in zone X' });
    this.zoneSelect = this.requests.getByRole('combobox', { name: 'Client zone' });
    this.nodeSelect = this.requests.getByRole('combobox', { name: 'Client node' });
    this.countInput = this.requests.getByRole('spinbutton', { name: /^Requests/ });
    this.selection = this.requests.getByTestId('sample-selection');
    this.sampleTable = this.requests.getByRole('table', { name: 'Answers per pod: sampled and expected' });
    this.sampleTotal = this.requests.getByTestId('sample-total');
    this.sampleMeasured = this.requests.getByTestId('sample-measured');
  }

  /** Picks a scenario of the request sample ("Now", "After next sync", "With topology mode Auto", "Without hints"). */
  async chooseSampleScenario(label: string): Promise<void> {
    await this.requests.getByRole('radio', { name: label, exact: true }).check({ force: true });
  }

  /** The sampled answers per listed pod, and whether each pod is in the client's zone. */
  async sampleRows(): Promise<{ readonly pod: string; readonly sampled: number; readonly sameZone: boolean }[]> {
    const rows = this.sampleTable.locator('tbody tr');
    const out: { pod: string; sampled: number; sameZone: boolean }[] = [];
    for (let i = 0; i < (await rows.count()); i++) {
      const row = rows.nth(i);
      out.push({
        pod: ((await row.getByRole('rowheader').textContent()) ?? '').trim(),
        sampled: Number(((await row.getByTestId('sample-count').textContent()) ?? '').replace(/,/g, '')),
        sameZone: (await row.getAttribute('data-same-zone')) === 'true',
      });
    }
    return out;
  }

  /** Waits until the request sample shows `text` as its selection summary. */
  async expectSelection(text: string | RegExp): Promise<void> {
    await expect(this.selection).toHaveText(text);
  }
}

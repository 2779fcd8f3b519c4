import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

/** The overview `/`. */
export class OverviewPage extends AppShell {
  readonly eligibility: Locator;
  readonly zoneMap: Locator;
  readonly attention: Locator;
  readonly dataplane: Locator;
  /** The verdict under the hint counts: in sync, or who waits for the controller. */
  readonly hintsVerdict: Locator;
  /** The sentences above the zone map. */
  readonly zoneMapVerdict: Locator;

  constructor(page: Page) {
    super(page);
    this.eligibility = page.getByRole('region', { name: 'Eligibility' });
    this.zoneMap = page.getByRole('region', { name: 'Zone map' });
    this.hintsVerdict = page.getByRole('region', { name: 'Services', exact: true }).getByTestId('hints-verdict');
    this.zoneMapVerdict = this.zoneMap.getByTestId('zone-map-verdict');
    this.attention = page.getByRole('region', { name: /^Services needing attention/ });
    this.dataplane = page.getByRole('region', { name: 'Dataplane' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/');
  }

  /** The entry of one Service in "Services needing attention". */
  attentionItem(key: string): Locator {
    return this.attention.getByRole('listitem').filter({ has: this.page.getByRole('link', { name: key, exact: true }) });
  }
}

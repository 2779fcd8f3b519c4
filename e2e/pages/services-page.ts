import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { AppShell } from './app-shell';

/** The Services table `/services`. */
export class ServicesPage extends AppShell {
  readonly search: Locator;
  readonly namespace: Locator;
  readonly attentionOnly: Locator;
  readonly count: Locator;
  readonly table: Locator;
  readonly rows: Locator;

  constructor(page: Page) {
    super(page);
    const filters = page.getByRole('search', { name: 'Filter Services' });
    this.search = filters.getByRole('searchbox', { name: 'Search' });
    this.namespace = filters.getByRole('combobox', { name: 'Namespace' });
    this.attentionOnly = filters.getByRole('checkbox', { name: 'Needs attention only' });
    this.count = filters.getByText(/\d+ (of \d+ )?Services$/);
    this.table = page.getByRole('table');
    this.rows = this.table.locator('tbody tr[aria-rowindex]');
  }

  async goto(query = ''): Promise<void> {
    await this.page.goto(`/services${query}`);
    await expect(this.table).toBeVisible();
  }

  /** `namespace/name` of every rendered row, in order. */
  async serviceKeys(): Promise<string[]> {
    return this.rows.locator('td:first-child a').evaluateAll((links) => links.map((a) => (a.getAttribute('title') ?? '').trim()));
  }

  columnHeader(label: RegExp | string): Locator {
    return this.table.getByRole('columnheader', { name: label });
  }

  /** The sort button in a column header. */
  sortButton(label: RegExp | string): Locator {
    return this.columnHeader(label).getByRole('button');
  }
}

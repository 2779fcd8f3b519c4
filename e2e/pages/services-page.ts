import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { AppShell } from './app-shell';

/** The Services table `/services`. */
export class ServicesPage extends AppShell {
  readonly search: Locator;
  readonly namespace: Locator;
  readonly attentionOnly: Locator;
  readonly mechanism: Locator;
  readonly reason: Locator;
  readonly type: Locator;
  /** The HPA scale-down filter. */
  readonly hpa: Locator;
  /** The measured-vs-predicted filter. */
  readonly measuredDiff: Locator;
  readonly exportCsv: Locator;
  readonly exportJson: Locator;
  readonly count: Locator;
  readonly table: Locator;
  readonly rows: Locator;

  constructor(page: Page) {
    super(page);
    const filters = page.getByRole('search', { name: 'Filter Services' });
    this.search = filters.getByRole('searchbox', { name: 'Search' });
    this.namespace = filters.getByRole('combobox', { name: 'Namespace' });
    this.attentionOnly = filters.getByRole('checkbox', { name: 'Needs attention only' });
    this.mechanism = filters.getByRole('combobox', { name: 'Mechanism' });
    this.reason = filters.getByRole('combobox', { name: 'Reason' });
    this.type = filters.getByRole('combobox', { name: 'Type' });
    this.hpa = filters.getByRole('combobox', { name: 'HPA scale-down' });
    this.measuredDiff = filters.getByRole('combobox', { name: 'Measured vs predicted' });
    this.exportCsv = filters.getByRole('link', { name: 'CSV' });
    this.exportJson = filters.getByRole('link', { name: 'JSON' });
    this.count = filters.getByText(/\d+ (of \d+ )?Services$/);
    // The Services table is the one with aria-rowcount (virtualised); while a link from the
    // Overview is still loading, the Overview's tables are on the page too.
    this.table = page.locator('table[aria-rowcount]');
    this.rows = this.table.locator('tbody tr[aria-rowindex]');
  }

  async goto(query = ''): Promise<void> {
    await this.page.goto(`/services${query}`);
    await expect(this.table).toBeVisible();
    // The filters are server-rendered: wait until React handles them, or a first selection is lost.
    await expect(this.page.locator('[role="search"][data-interactive="true"]')).toBeVisible();
  }

  /** `namespace/name` of every rendered row, in order. */
  async serviceKeys(): Promise<string[]> {
    return this.rows.locator('td:first-child a').evaluateAll((links) => links.map((a) => (a.getAttribute('title') ?? '').trim()));
  }

  /** The row of a Service (`namespace/name`). */
  row(key: string): Locator {
    return this.rows.filter({ has: this.page.locator(`a[data-row-link][title="${key}"]`) });
  }

  /** The cell of `column` (its header's text) in each rendered row, in order. */
  async columnTexts(column: RegExp): Promise<string[]> {
    // (textContent: the headers are shown in capitals)
    const headers = await this.table.getByRole('columnheader').allTextContents();
    const index = headers.findIndex((text) => column.test(text));
    if (index < 0) throw new Error(`no column ${column} among ${headers.join(' | ')}`);
    return this.rows.evaluateAll((rows, i) => rows.map((row) => (row.querySelectorAll('td')[i]?.textContent ?? '').trim()), index);
  }

  columnHeader(label: RegExp | string): Locator {
    return this.table.getByRole('columnheader', { name: label });
  }

  /** The sort button in a column header. */
  sortButton(label: RegExp | string): Locator {
    return this.columnHeader(label).getByRole('button');
  }
}

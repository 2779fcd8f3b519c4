import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { AppShell } from './app-shell';

/** The fleet page `/fleet`: one row per cluster of the kubeconfig. */
export class FleetPage extends AppShell {
  readonly table: Locator;
  readonly rows: Locator;

  constructor(page: Page) {
    super(page);
    this.table = page.getByRole('region', { name: 'Clusters table' }).getByRole('table');
    this.rows = this.table.locator('tbody tr');
  }

  async goto(): Promise<void> {
    await this.page.goto('/fleet');
    await expect(this.table).toBeVisible();
  }

  /** A cell of a cluster's row whose whole text is `text` (`1.31`, `ipvs`). */
  cell(displayName: string, text: string): Locator {
    return this.row(displayName).getByRole('cell', { name: text, exact: true });
  }

  /** A cluster's platform cell: platform and release, then the proxy (`EKS 1.31`, `iptables`). */
  platform(displayName: string): Locator {
    return this.row(displayName).getByRole('cell').nth(2);
  }

  /** A cluster's "why" cell: its costliest Service and the most common reason for attention. */
  why(displayName: string): Locator {
    return this.row(displayName).getByRole('cell').last();
  }

  /** The row of one cluster, by its display name (the row's link). */
  row(displayName: string): Locator {
    return this.rows.filter({ has: this.page.getByRole('link', { name: displayName, exact: true }) });
  }

  /** The link of a cluster's row into its Overview. */
  link(displayName: string): Locator {
    return this.row(displayName).getByRole('link', { name: displayName, exact: true });
  }

  columnHeader(label: RegExp | string, exact = false): Locator {
    return this.table.getByRole('columnheader', { name: label, exact });
  }

  /** The sort button in a column header. */
  sortButton(label: RegExp | string): Locator {
    return this.columnHeader(label).getByRole('button');
  }

  /** The display names of the rows, in the order shown. */
  async order(names: readonly string[]): Promise<string[]> {
    const texts = await this.rows.evaluateAll((rows) => rows.map((row) => row.textContent ?? ''));
    return texts.map((text) => names.find((name) => text.includes(name)) ?? '?');
  }
}

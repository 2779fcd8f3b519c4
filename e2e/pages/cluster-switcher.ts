import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';

/** The header's cluster switcher (components/layout/cluster-switcher.tsx): a button, then a searchable list. */
export class ClusterSwitcher {
  /** The button naming the current cluster. */
  readonly button: Locator;
  /** What the button opens. */
  readonly panel: Locator;
  readonly search: Locator;
  readonly options: Locator;
  readonly allClusters: Locator;

  constructor(readonly page: Page) {
    const header = page.locator('header');
    this.button = header.getByRole('button', { name: /^Switch cluster/ });
    this.panel = page.getByRole('dialog', { name: 'Switch cluster' });
    this.search = this.panel.getByRole('combobox');
    this.options = this.panel.getByRole('option');
    this.allClusters = this.panel.getByRole('link', { name: /All clusters/ });
  }

  /** The option of one cluster, by its display name. */
  option(displayName: string): Locator {
    return this.options.filter({ hasText: displayName });
  }

  /** Opens the list with the keyboard (focus the button, Enter): the search box gets the focus. */
  async openWithKeyboard(): Promise<void> {
    await this.button.focus();
    await this.page.keyboard.press('Enter');
    await expect(this.search).toBeFocused();
  }
}

import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

/** The dataplane view `/dataplane`. */
export class DataplanePage extends AppShell {
  readonly proxy: Locator;
  readonly rules: Locator;

  constructor(page: Page) {
    super(page);
    this.proxy = page.getByRole('region', { name: 'Service proxy' });
    this.rules = page.getByRole('region', { name: 'Rule counts per proxy mode' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/dataplane');
  }
}

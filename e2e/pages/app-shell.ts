import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';

/** What every page has: skip link, header (navigation, freshness, theme), the stale banner, main. */
export class AppShell {
  readonly skipLink: Locator;
  readonly main: Locator;
  readonly nav: Locator;
  readonly freshnessBadge: Locator;
  readonly staleBanner: Locator;
  readonly themeToggle: Locator;
  readonly heading: Locator;

  constructor(readonly page: Page) {
    this.skipLink = page.getByRole('link', { name: 'Skip to content' });
    this.main = page.locator('main#main');
    this.nav = page.getByRole('navigation', { name: 'Main' });
    this.freshnessBadge = page.locator('header').getByText(/^(Live, synced|Stale since|Syncing:)/);
    this.staleBanner = page.getByRole('status').filter({ hasText: /^Data is stale since/ });
    this.themeToggle = page.getByRole('button', { name: /theme/i });
    this.heading = page.getByRole('heading', { level: 1 });
  }

  /** Waits until the client components are interactive (the theme toggle knows the theme). */
  async waitForHydration(): Promise<void> {
    await expect(this.themeToggle).toHaveAttribute('aria-label', /^Switch to (light|dark) theme$/);
  }

  async expectLive(): Promise<void> {
    await expect(this.freshnessBadge).toHaveText('Live, synced');
    await expect(this.staleBanner).toHaveCount(0);
  }
}

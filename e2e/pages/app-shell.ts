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
  /** How old the page's data is ("updated N s ago", components/layout/live-status.tsx). */
  readonly dataAge: Locator;
  /** The header's Refresh control (a link: it reloads the page without JavaScript). */
  readonly refreshLink: Locator;
  /** The header's note about live updates (connection lost, update paused). */
  readonly liveNote: Locator;
  /** The badge that replaces the freshness badge while the dashboard server cannot be reached. */
  readonly connectionLost: Locator;

  constructor(readonly page: Page) {
    this.skipLink = page.getByRole('link', { name: 'Skip to content' });
    this.main = page.locator('main#main');
    this.nav = page.getByRole('navigation', { name: 'Main' });
    this.freshnessBadge = page.locator('header').getByText(/^(Live, synced|Stale since|Syncing:)/);
    this.staleBanner = page.getByRole('status').filter({ hasText: /^Data is stale since/ });
    this.themeToggle = page.getByRole('button', { name: /theme/i });
    this.heading = page.getByRole('heading', { level: 1 });
    const header = page.locator('header');
    this.dataAge = header.getByRole('timer', { name: /^Page data updated/ });
    this.refreshLink = header.getByRole('link', { name: 'Refresh' });
    this.liveNote = header.getByRole('status');
    this.connectionLost = header.getByText('Connection lost', { exact: true });
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

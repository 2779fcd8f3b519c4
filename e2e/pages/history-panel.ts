import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import type { HistoryRange } from '../../lib/shared/history-types';

/** One transition row of the "Changes" table, as a user reads it. */
export interface ChangeRow {
  /** The `<time dateTime>` of the "When (UTC)" cell, in ms since the epoch. */
  readonly at: number;
  /** Seconds the change may have happened before `at` (the cell's "changed up to N s earlier"; 0 when exact). */
  readonly precisionSeconds: number;
  /** The Change cell's text (`Hints off` … `on → off`). */
  readonly change: string;
  /** The Reason cell's text (the sentence, then the reason code). */
  readonly reason: string;
  /** The reason code under the sentence (the mono line), or `null`. */
  readonly reasonCode: string | null;
}

/** `changed up to 15 s earlier` / `2 min` / `1 h` → seconds (0 without a title: exact). */
function precisionOf(title: string | null): number {
  const match = /changed up to (\d+) (s|min|h) earlier/.exec(title ?? '');
  if (match === null) return 0;
  const n = Number(match[1]);
  return match[2] === 'h' ? n * 3600 : match[2] === 'min' ? n * 60 : n;
}

/**
 * The "History" section of the Service page and of the Overview (components/history/service-history-panel.tsx,
 * components/history/cluster-history.tsx): range buttons, the status message, the charts, the
 * "Changes" table and, on a Service, "Before and after the change".
 */
export class HistoryPanel {
  readonly region: Locator;
  /** The panel's message when history is not available (`role="status"`). */
  readonly status: Locator;
  readonly changes: Locator;
  readonly comparison: Locator;

  constructor(readonly page: Page) {
    this.region = page.getByRole('region', { name: 'History', exact: true });
    this.status = this.region.getByRole('status');
    this.changes = this.region.getByRole('table', { name: 'Changes' });
    // The block is a section named by its heading (its table's scroll region has the same name: take the outer one).
    this.comparison = this.region.getByRole('region', { name: 'Before and after the change' }).first();
  }

  /** A range button (`1h`, `6h`, `24h`, `7d`). */
  rangeButton(range: HistoryRange): Locator {
    return this.region.getByRole('button', { name: range, exact: true });
  }

  /** A chart of the panel, by its accessible name. */
  chart(name: string | RegExp): Locator {
    return this.region.getByRole('img', { name });
  }

  /**
   * Chooses a range and waits until the panel shows an answer for it (the button pressed, nothing
   * loading, the frame line "Last 1 h: …" of that range): for answers with data.
   */
  async chooseRange(range: HistoryRange): Promise<void> {
    await this.rangeButton(range).click();
    await expect(this.rangeButton(range)).toHaveAttribute('aria-pressed', 'true');
    await this.waitForAnswer(range);
  }

  /** Waits until the panel shows a loaded answer with data for `range`. */
  async waitForAnswer(range: HistoryRange): Promise<void> {
    const words = range === '7d' ? '7 days' : `${range.slice(0, -1)} h`;
    await expect(this.region.locator('[aria-busy="true"]')).toHaveCount(0);
    // The frame line ("Last 1 h: 2026-12-01 14:02 UTC to …"), not "No change in the last 1 h".
    await expect(this.region.getByText(new RegExp(`^Last ${words}: `))).toBeVisible();
  }

  /** The Changes table's rows (newest first), read from the DOM. */
  async changeRows(): Promise<ChangeRow[]> {
    const rows = this.changes.locator('tbody tr').filter({ has: this.page.locator('time') });
    const out: ChangeRow[] = [];
    for (const row of await rows.all()) {
      const time = row.locator('td').nth(0).locator('time');
      const dateTime = await time.getAttribute('datetime');
      const reasonCell = row.locator('td').nth(2);
      const code = reasonCell.locator('span.font-mono');
      out.push({
        at: Date.parse(dateTime ?? ''),
        precisionSeconds: precisionOf(await time.getAttribute('title')),
        change: (await row.locator('td').nth(1).innerText()).trim(),
        reason: (await reasonCell.innerText()).trim(),
        reasonCode: (await code.count()) > 0 ? (await code.innerText()).trim() : null,
      });
    }
    return out;
  }
}

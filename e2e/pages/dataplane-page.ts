import type { Locator, Page } from '@playwright/test';
import { AppShell } from './app-shell';

/** The dataplane view `/dataplane`. */
export class DataplanePage extends AppShell {
  /** The first box: the answer in a sentence, why, and the steps. */
  readonly answerPanel: Locator;
  readonly answer: Locator;
  readonly proxy: Locator;
  readonly rules: Locator;
  /** The per-node state of each mode, one row per kind. */
  readonly ruleComparison: Locator;
  /** Reference material, each piece behind its own disclosure. */
  readonly reference: Locator;

  constructor(page: Page) {
    super(page);
    this.answerPanel = page.getByRole('region', { name: 'Does this cluster honour hints, and should it switch proxy mode?' });
    this.answer = this.answerPanel.getByTestId('dataplane-answer');
    this.proxy = page.getByRole('region', { name: 'Service proxy' });
    this.rules = page.getByRole('region', { name: 'Rule counts per proxy mode' });
    this.ruleComparison = this.rules.getByTestId('rule-comparison');
    this.reference = page.getByRole('region', { name: 'Reference' });
  }

  async goto(hash = ''): Promise<void> {
    await this.page.goto(`/dataplane${hash}`);
  }

  /** The disclosure of a piece of reference material, by its content's id (`ipvs-schedulers`, `cni`, `annotation`). */
  referenceSection(id: string): { readonly summary: Locator; readonly content: Locator } {
    return { summary: this.reference.locator(`details:has(> #${id}) > summary`), content: this.reference.locator(`#${id}`) };
  }
}

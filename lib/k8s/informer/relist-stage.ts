/**
 * 6. An informer's part in a coordinated re-list, after the API server's history went backwards:
 * each re-list begun opens a new epoch; the list completed in it is staged — held back from
 * readers — until the coordinator commits every type at once. A list of an older epoch is of no
 * use (the history moved again) and a staged one not committed yet is discarded.
 */

/** A complete list held back from readers until the coordinator commits every type at once. */
export interface StagedList<Record> {
  readonly epoch: number;
  readonly cache: Map<string, Record>;
  readonly resourceVersion: string | null;
}

/** The re-list epochs of one informer and the list staged in the current one. */
export class RelistStage<Record> {
  /** Bumped by {@link begin}; a list started in an older epoch starts again. */
  epoch = 0;
  /** The epoch whose re-list is committed (equal to {@link epoch} when none is pending). */
  private committedEpoch = 0;
  private staged: StagedList<Record> | null = null;
  private commitWaiter: (() => void) | null = null;

  /** Whether a coordinated re-list is pending (listing, or listed and waiting for the other types). */
  get pending(): boolean {
    return this.epoch !== this.committedEpoch;
  }

  /** A new coordinated re-list: a new epoch, nothing staged. */
  begin(): void {
    this.epoch++;
    this.staged = null;
  }

  /** Holds a complete list of the current epoch back until {@link take}. */
  stage(cache: Map<string, Record>, resourceVersion: string | null): void {
    this.staged = { epoch: this.epoch, cache, resourceVersion };
  }

  /** Whether a list of the current epoch is staged. */
  hasStaged(): boolean {
    return this.staged !== null && this.staged.epoch === this.epoch;
  }

  /** The staged list of the current epoch, now committed (`null` when there is none). */
  take(): StagedList<Record> | null {
    const staged = this.staged;
    if (staged === null || staged.epoch !== this.epoch) return null;
    this.staged = null;
    this.committedEpoch = staged.epoch;
    return staged;
  }

  /**
   * Waits until the list staged in the current epoch is committed (`true`), or discarded or the
   * informer stopped (`false`). `announce` tells the coordinator the list is staged (it may commit
   * at once).
   */
  async waitForCommit(announce: () => void, running: () => boolean): Promise<boolean> {
    const epoch = this.epoch;
    const committed = new Promise<void>((resolve) => {
      this.commitWaiter = resolve;
    });
    announce();
    if (this.pending && this.epoch === epoch && running()) await committed;
    this.commitWaiter = null;
    return running() && this.committedEpoch === epoch;
  }

  /** Ends a {@link waitForCommit} now (a commit, a new re-list, a stop: it then looks again). */
  wakeWaiter(): void {
    this.commitWaiter?.();
  }
}

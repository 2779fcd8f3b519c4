/**
 * The simulated controllers' work queue: keys are de-duplicated, and processing runs on the next
 * macrotask (so a burst of changes is handled once), in sorted key order, in rounds until quiet
 * (work may enqueue more work; at most `maxRounds` rounds per flush).
 */
export class WorkQueue {
  private readonly pending = new Set<string>();
  private scheduled: ReturnType<typeof setImmediate> | null = null;
  private active = false;

  constructor(
    private readonly process: (key: string) => void,
    private readonly maxRounds = 5,
  ) {}

  /** Accepts work from now on (until {@link stop}). */
  start(): void {
    this.active = true;
  }

  /** Queues a key and schedules processing. */
  add(key: string): void {
    this.pending.add(key);
    if (this.scheduled === null && this.active) this.scheduled = setImmediate(() => this.flush());
  }

  /** Processes everything queued now (tests and the scenario builder use it to settle). */
  flush(): void {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    for (let round = 0; round < this.maxRounds && this.pending.size > 0; round++) {
      const keys = [...this.pending].sort();
      this.pending.clear();
      for (const key of keys) this.process(key);
    }
  }

  /** Drops queued work and stops scheduling. */
  stop(): void {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.pending.clear();
    this.active = false;
  }
}

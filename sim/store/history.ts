/**
 * The store's bounded event history per kind: the last N committed changes, which watch resume
 * and consistent paged lists (a continue token's point in time) read back, and the newest
 * resourceVersion history no longer covers (asking from before it is a 410 Expired).
 */

/** Thrown by {@link EventHistory.since} when history no longer covers a version. */
export class HistoryExpiredError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
    this.name = 'HistoryExpiredError';
  }
}

/** A fixed-capacity ring buffer. */
class Ring<T> {
  private readonly buffer: (T | undefined)[];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.buffer = new Array<T | undefined>(capacity);
  }

  get length(): number {
    return this.count;
  }

  /** Appends; returns the evicted oldest element when full. */
  push(value: T): T | undefined {
    if (this.count < this.capacity) {
      this.buffer[(this.start + this.count) % this.capacity] = value;
      this.count++;
      return undefined;
    }
    const evicted = this.buffer[this.start];
    this.buffer[this.start] = value;
    this.start = (this.start + 1) % this.capacity;
    return evicted;
  }

  at(index: number): T {
    const value = this.buffer[(this.start + index) % this.capacity];
    if (value === undefined) throw new RangeError(`ring index ${index} out of range`);
    return value;
  }
}

/** The last `capacity` events of one kind, oldest first. */
export class EventHistory<E extends { readonly resourceVersion: number }> {
  private readonly ring: Ring<E>;

  constructor(
    capacity: number,
    /** Newest resourceVersion no longer in history: events after it are all kept. */
    public compactedRV: number,
  ) {
    this.ring = new Ring(capacity);
  }

  /** Appends a committed event, dropping the oldest when full. */
  record(event: E): void {
    const evicted = this.ring.push(event);
    if (evicted !== undefined) this.compactedRV = evicted.resourceVersion;
  }

  /**
   * Events with resourceVersion greater than `since`, oldest first.
   * @throws HistoryExpiredError when events after `since` were already dropped (`current`: the
   * store's resourceVersion, named as the oldest when nothing is kept).
   */
  since(since: number, current: number): E[] {
    const history = this.ring;
    if (since < this.compactedRV) {
      const oldest = history.length > 0 ? history.at(0).resourceVersion : current;
      throw new HistoryExpiredError(since, oldest);
    }
    let lo = 0;
    let hi = history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (history.at(mid).resourceVersion <= since) lo = mid + 1;
      else hi = mid;
    }
    const events: E[] = [];
    for (let i = lo; i < history.length; i++) events.push(history.at(i));
    return events;
  }
}

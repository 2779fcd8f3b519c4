/**
 * The store's change notifications: listeners per kind (or `'*'` for all), called synchronously
 * after each write, in resourceVersion order — writes a listener makes are queued and delivered
 * once the current event has reached every listener. A listener that throws is reported and does
 * not stop the others.
 */
import type { ResourceKey } from '../resources';
import type { StoreEvent, StoreListener } from '../store';

/** Ordered delivery of committed events to subscribers. */
export class ChangeFeed {
  private readonly listeners = new Map<ResourceKey | '*', Set<StoreListener>>();
  private readonly queue: StoreEvent[] = [];
  private dispatching = false;

  constructor(private readonly onListenerError: (error: unknown, event: StoreEvent) => void) {}

  /** Delivers `event` to its kind's listeners and the `'*'` ones (after the events already queued). */
  publish(event: StoreEvent): void {
    this.queue.push(event);
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      // Writes made by listeners are queued and delivered after the current event reached
      // every listener, so all listeners see events in resourceVersion order.
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        const targets = [...(this.listeners.get(next.resource) ?? []), ...(this.listeners.get('*') ?? [])];
        for (const listener of targets) {
          try {
            listener(next);
          } catch (error) {
            this.onListenerError(error, next);
          }
        }
      }
    } finally {
      this.dispatching = false;
    }
  }

  /** Subscribes to committed changes of one kind (or `'*'` for all). Returns the unsubscribe function. */
  subscribe(resource: ResourceKey | '*', listener: StoreListener): () => void {
    let set = this.listeners.get(resource);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(resource, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }
}

/**
 * Request statistics that tests and benchmarks read: requests per resource and verb, responses
 * per status code, open watches and watch events sent per resource.
 *
 * Resources are keyed by plural name, with `/subresource` for subresources
 * (`deployments/scale`); both Event APIs count as `events`.
 */

/** A JSON-ready copy of the statistics. */
export interface StatsSnapshot {
  /** `requests[resource][verb]` = count. */
  requests: Record<string, Record<string, number>>;
  /** Responses per HTTP status code (watches count once, when they start). */
  responses: Record<string, number>;
  /** Currently open watch streams per resource. */
  openWatches: Record<string, number>;
  /** Watch events (ADDED/MODIFIED/DELETED/BOOKMARK/ERROR) written per resource. */
  watchEvents: Record<string, number>;
  /** Discovery and other non-resource requests (`/api`, `/apis/...`, `/version`, ...). */
  discovery: number;
  /** All API requests (resource and non-resource, excluding `/__sim/`). */
  total: number;
}

function increment(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** Mutable statistics, shared by the router and the watch hub. */
export class SimStats {
  private readonly requests = new Map<string, Map<string, number>>();
  private readonly responses = new Map<string, number>();
  private readonly open = new Map<string, number>();
  private readonly events = new Map<string, number>();
  private discovery = 0;
  private total = 0;

  /** Counts a resource request. */
  recordRequest(verb: string, resource: string): void {
    let verbs = this.requests.get(resource);
    if (verbs === undefined) {
      verbs = new Map();
      this.requests.set(resource, verbs);
    }
    increment(verbs, verb);
    this.total++;
  }

  /** Counts a non-resource request. */
  recordDiscovery(): void {
    this.discovery++;
    this.total++;
  }

  /** Counts a response status code. */
  recordResponse(code: number): void {
    increment(this.responses, String(code));
  }

  /** A watch stream opened. */
  watchOpened(resource: string): void {
    increment(this.open, resource);
  }

  /** A watch stream closed. */
  watchClosed(resource: string): void {
    const now = (this.open.get(resource) ?? 0) - 1;
    if (now > 0) this.open.set(resource, now);
    else this.open.delete(resource);
  }

  /** Watch events written. */
  watchEventsSent(resource: string, count = 1): void {
    increment(this.events, resource, count);
  }

  /** Requests counted for a verb and resource. */
  count(verb: string, resource: string): number {
    return this.requests.get(resource)?.get(verb) ?? 0;
  }

  /** Open watches on a resource, or on all resources. */
  openWatches(resource?: string): number {
    if (resource !== undefined) return this.open.get(resource) ?? 0;
    let sum = 0;
    for (const n of this.open.values()) sum += n;
    return sum;
  }

  /** Responses counted with a status code. */
  responsesWith(code: number): number {
    return this.responses.get(String(code)) ?? 0;
  }

  /** A JSON-ready copy. */
  snapshot(): StatsSnapshot {
    const requests: Record<string, Record<string, number>> = {};
    for (const [resource, verbs] of this.requests) requests[resource] = Object.fromEntries(verbs);
    return {
      requests,
      responses: Object.fromEntries(this.responses),
      openWatches: Object.fromEntries(this.open),
      watchEvents: Object.fromEntries(this.events),
      discovery: this.discovery,
      total: this.total,
    };
  }

  /** Zeroes the counters (open watches stay: they are still open). */
  reset(): void {
    this.requests.clear();
    this.responses.clear();
    this.events.clear();
    this.discovery = 0;
    this.total = 0;
  }
}

/**
 * Request statistics that tests and benchmarks read: requests per resource and verb, lists started
 * per resource (first pages, so "listed once in 301 pages" can be told from "listed twice"),
 * responses per status code, open watches and watch events sent per resource, and TCP connections
 * accepted (so tests and the link benchmark can see whether clients keep connections alive).
 *
 * Resources are keyed by plural name, with `/subresource` for subresources
 * (`deployments/scale`); both Event APIs count as `events`.
 */

/** A JSON-ready copy of the statistics. */
export interface StatsSnapshot {
  /** `requests[resource][verb]` = count. */
  requests: Record<string, Record<string, number>>;
  /**
   * `lists[resource]` = lists started: list requests without a `continue` token (a list of 301
   * pages counts 1 here and 301 in `requests[resource].list`).
   */
  lists: Record<string, number>;
  /**
   * `resumeChecks[resource]` = one-item lists at a resourceVersion with `resourceVersionMatch:
   * NotOlderThan` (`limit=1`): what zonescope's informer asks before it resumes a watch, to learn
   * whether the version is still served. Counted here, not in {@link lists}: they read no
   * collection.
   */
  resumeChecks: Record<string, number>;
  /**
   * TCP connections accepted (plain or TLS, API and `/__sim/` alike): one per connection a client
   * opened, however many requests it carried.
   */
  connections: number;
  /**
   * Bytes on the wire (TCP payload: TLS records with TLS, compressed bodies when gzipped) received
   * from and sent to clients over those connections, and over connections still open from before.
   */
  wireBytes: { received: number; sent: number };
  /** Responses per HTTP status code (watches count once, when they start). */
  responses: Record<string, number>;
  /** Currently open watch streams per resource. */
  openWatches: Record<string, number>;
  /** Watch events (ADDED/MODIFIED/DELETED/BOOKMARK/ERROR) written per resource. */
  watchEvents: Record<string, number>;
  /** Discovery and other non-resource requests (`/api`, `/apis/...`, `/version`, ...). */
  discovery: number;
  /** Health checks (`/healthz`, `/livez`, `/readyz`): a client's liveness probe, not a read of the cluster. */
  health: number;
  /** All API requests (resource and non-resource, excluding `/__sim/`). */
  total: number;
}

/** A TCP connection as the statistics see it (a `net.Socket`). */
export interface CountedSocket {
  readonly bytesRead: number;
  readonly bytesWritten: number;
  once(event: 'close', listener: () => void): unknown;
}

function increment(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** Mutable statistics, shared by the router and the watch hub. */
export class SimStats {
  private readonly requests = new Map<string, Map<string, number>>();
  private readonly lists = new Map<string, number>();
  private readonly resumeChecks = new Map<string, number>();
  private readonly responses = new Map<string, number>();
  private acceptedConnections = 0;
  /** Open connections, with what they had carried at the last reset. */
  private readonly live = new Map<CountedSocket, { read: number; written: number }>();
  /** Bytes of connections closed since the last reset (after their baseline). */
  private closedRead = 0;
  private closedWritten = 0;
  private readonly open = new Map<string, number>();
  private readonly events = new Map<string, number>();
  private discovery = 0;
  private health = 0;
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

  /** Counts a list that starts (a list request without a `continue` token). */
  recordListStart(resource: string): void {
    increment(this.lists, resource);
  }

  /** Counts a resume check (see {@link StatsSnapshot.resumeChecks}). */
  recordResumeCheck(resource: string): void {
    increment(this.resumeChecks, resource);
  }

  /** Counts a TCP connection the server accepted, and the bytes it carries until it closes. */
  recordConnection(socket?: CountedSocket): void {
    this.acceptedConnections++;
    if (socket === undefined) return;
    this.live.set(socket, { read: 0, written: 0 });
    socket.once('close', () => {
      const base = this.live.get(socket);
      if (base === undefined) return;
      this.live.delete(socket);
      this.closedRead += socket.bytesRead - base.read;
      this.closedWritten += socket.bytesWritten - base.written;
    });
  }

  /** Bytes received from and sent to clients since the last reset. */
  wireBytes(): { received: number; sent: number } {
    let received = this.closedRead;
    let sent = this.closedWritten;
    for (const [socket, base] of this.live) {
      received += socket.bytesRead - base.read;
      sent += socket.bytesWritten - base.written;
    }
    return { received, sent };
  }

  /** TCP connections accepted since the last reset. */
  connections(): number {
    return this.acceptedConnections;
  }

  /** Lists started on a resource since the last reset. */
  listsStarted(resource: string): number {
    return this.lists.get(resource) ?? 0;
  }

  /** Counts a non-resource request. */
  recordDiscovery(): void {
    this.discovery++;
    this.total++;
  }

  /** Counts a health check (`/healthz`, `/livez`, `/readyz`). */
  recordHealth(): void {
    this.health++;
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
      lists: Object.fromEntries(this.lists),
      resumeChecks: Object.fromEntries(this.resumeChecks),
      connections: this.acceptedConnections,
      wireBytes: this.wireBytes(),
      responses: Object.fromEntries(this.responses),
      openWatches: Object.fromEntries(this.open),
      watchEvents: Object.fromEntries(this.events),
      discovery: this.discovery,
      health: this.health,
      total: this.total,
    };
  }

  /** Zeroes the counters (open watches stay: they are still open; so do open connections, uncounted). */
  reset(): void {
    this.requests.clear();
    this.lists.clear();
    this.resumeChecks.clear();
    this.acceptedConnections = 0;
    this.closedRead = 0;
    this.closedWritten = 0;
    for (const socket of this.live.keys()) this.live.set(socket, { read: socket.bytesRead, written: socket.bytesWritten });
    this.responses.clear();
    this.events.clear();
    this.discovery = 0;
    this.health = 0;
    this.total = 0;
  }
}

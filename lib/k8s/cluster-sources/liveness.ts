/**
 * Whether the API server of one connection still answers: a `GET /readyz` every 15 s with a 5 s
 * time limit, through the connection every watch uses (its proxy, TLS and credentials), unless a
 * watch delivered an event or a bookmark within those 15 s (on a busy cluster, no probe at all). Any HTTP
 * answer counts, whatever its status. A probe without one (a timeout, a connection that cannot
 * be made or is cut) is followed by the next at once (at most one per time limit); two in a row
 * mean the server has gone silent — a frozen process, a dead load balancer that keeps connections
 * open — which the watches alone notice only when their 90 s watchdog fires. The live source then
 * shows every synced type as stale with the reason, until the server answers again.
 *
 * `/readyz` (like `/livez`, `/healthz` and `/version`) is readable by every user, authenticated or
 * not, on a cluster with RBAC's default roles: the `system:public-info-viewer` ClusterRole grants
 * `get` on those paths to the `system:authenticated` and `system:unauthenticated` groups
 * (kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go). A cluster
 * that forbids it still answers (403): that is an answer too.
 */
import type { KubeConnection } from '../connection';
import type { KubeError } from '../errors';
import { errorFromException, isPermanent } from '../errors';

/** How the probe runs. */
export interface LivenessOptions {
  /** Time between the starts of two probes (default 15 s). */
  readonly intervalMs: number;
  /** Time limit of one probe (default 5 s). */
  readonly timeoutMs: number;
  /** Probes in a row without an answer before the server counts as silent (default 2). */
  readonly failures: number;
}

/**
 * The defaults: a server silent from just after an answer is noticed 25 s later (the next probe
 * 15 s on, 5 s without an answer, a second probe at once, 5 s more); at best after 10 s.
 */
export const DEFAULT_LIVENESS: LivenessOptions = { intervalMs: 15_000, timeoutMs: 5_000, failures: 2 };

/** The API server has gone silent: since when (its last answer, ISO) and the error to show. */
export interface Silence {
  readonly since: string;
  readonly error: KubeError;
}

/** The words for a silence of `ms` milliseconds. */
export function silenceMessage(ms: number): string {
  return `The API server has not answered for ${Math.max(1, Math.round(ms / 1000))} s.`;
}

/** One connection's liveness probe (see the module comment). */
export class LivenessProbe {
  private readonly options: LivenessOptions;
  private running = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private abort: AbortController | null = null;
  private failures = 0;
  private lastAnswerAt = Date.now();
  private silent: Silence | null = null;

  constructor(
    private readonly connection: KubeConnection,
    options: Partial<LivenessOptions> = {},
    /** Called when the server goes silent (`silence` set) or answers again (`null`). */
    private readonly onChange: (silence: Silence | null, lastError: KubeError | null) => void = () => undefined,
    /**
     * When a watch of this connection last delivered something (an event or a bookmark; ms since
     * the epoch, `null` for never): that is an answer too, so while the server answers no probe is
     * needed (no request while pages are read: the read path makes none).
     */
    private readonly lastHeardAt: () => number | null = () => null,
  ) {
    this.options = { ...DEFAULT_LIVENESS, ...options };
  }

  /** The current silence, `null` while the server answers. */
  silence(): Silence | null {
    return this.silent;
  }

  /** Starts probing (idempotent); the first probe is one interval from now. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastAnswerAt = Date.now();
    this.schedule(this.options.intervalMs);
  }

  /** Stops probing and cancels a probe in flight. */
  stop(): void {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.abort?.abort();
    this.abort = null;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.probe(), Math.max(0, delayMs));
  }

  private async probe(): Promise<void> {
    this.timer = null;
    if (!this.running) return;
    const startedAt = Date.now();
    // A watch delivered something within the interval: the server answers; look again one
    // interval after that (only while no probe has failed: a silence ends with a probe's answer).
    const heard = this.failures === 0 ? this.lastHeardAt() : null;
    if (heard !== null && startedAt - heard < this.options.intervalMs) {
      this.lastAnswerAt = Math.max(this.lastAnswerAt, heard);
      this.schedule(heard + this.options.intervalMs - startedAt);
      return;
    }
    const abort = new AbortController();
    this.abort = abort;
    let error: KubeError | null = null;
    try {
      await this.connection.request({ path: '/readyz', timeoutMs: this.options.timeoutMs, signal: abort.signal, maxResponseBytes: 64 * 1024 });
    } catch (thrown) {
      error = errorFromException(thrown);
    }
    if (!this.running || abort.signal.aborted) return;
    this.abort = null;
    // Only silence counts: a failure of ours (a credential plugin, a TLS mismatch) says nothing of
    // whether the server answers, and the watches report it themselves.
    if (error !== null && (isPermanent(error) || (error.kind !== 'timeout' && error.kind !== 'unavailable'))) error = null;
    if (error === null) {
      this.failures = 0;
      this.lastAnswerAt = Date.now();
      if (this.silent !== null) {
        this.silent = null;
        this.onChange(null, null);
      }
    } else if (++this.failures >= this.options.failures && this.silent === null) {
      const silentFor = Date.now() - this.lastAnswerAt;
      this.silent = {
        since: new Date(this.lastAnswerAt).toISOString(),
        error: { kind: 'timeout', message: silenceMessage(silentFor) },
      };
      this.onChange(this.silent, error);
    }
    // While the server does not answer, the next probe starts as soon as the time limit allows.
    const every = this.failures > 0 ? this.options.timeoutMs : this.options.intervalMs;
    this.schedule(every - (Date.now() - startedAt));
  }
}

/**
 * What an informer is given: its tuning ({@link InformerOptions}, every field optional, resolved
 * once by {@link resolveInformerOptions}), the sink of its log lines, and the
 * {@link RelistCoordinator} that swaps every type's re-list in at once after the API server's
 * history went backwards (the live ClusterSource).
 */
import type { BackoffPolicy } from '../backoff';
import type { ResourceId } from '../resources';

/**
 * Coordinates the atomic re-list of every type after the API server's history went backwards
 * (implemented by the live ClusterSource).
 */
export interface RelistCoordinator {
  /** An informer saw the history go backwards (`reason` is safe to show and log). */
  historyWentBackwards(id: ResourceId, reason: string): void;
  /** A re-list asked by `ResourceInformer.beginRelist` (./informer) is staged (or the type is forbidden): commit when all are. */
  staged(id: ResourceId): void;
  /**
   * The newest resourceVersion any other type has seen (resourceVersions are one counter across
   * types: etcd's revision). A list started after it was seen cannot be older, unless the history
   * went backwards — which is how a type listed for the first time notices it. `null` for types
   * that may live in another etcd (Events: `--etcd-servers-overrides`), whose counter differs.
   */
  newestSeen(id: ResourceId): string | null;
  /**
   * Before a type swaps in a re-list (after 410, a forbidden or cut watch): whether the same
   * cluster still answers. `false` means it is another one; the coordinator has then begun a
   * coordinated re-list, which this list joins.
   */
  confirmSameServer(): Promise<boolean>;
}

/** Backoff parameters (see ../backoff): `factor` is given, and a healthy watch resets the count. */
export interface BackoffOptions extends BackoffPolicy {
  readonly factor: number;
  /** A watch open at least this long resets the failure count. */
  readonly resetAfterMs: number;
}

/** Default backoff: 0.5 s doubling to 30 s, reset after 60 s of healthy watching. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, factor: 2, resetAfterMs: 60_000 };

/** A log event (messages are safe). */
export interface InformerLogEvent {
  readonly resource: ResourceId;
  readonly level: 'info' | 'warn';
  readonly message: string;
}

/** Tuning of an informer. Every field is optional. */
export interface InformerOptions {
  /** LIST page size (default 500). */
  readonly pageSize?: number;
  /**
   * Ask for the next LIST page before parsing the current one (default `false`). It hides the
   * server's time and the round trip behind our parsing, at the cost of one more page body in
   * memory (at most `MAX_PAGES_AHEAD` per process, ./pages-ahead); measured at realistic-L on a loaded
   * two-core machine it raised the cold sync's peak RSS by ~80–100 MiB without a wall-time gain
   * that could be told from the noise, so it is off until measured on a remote server.
   */
  readonly pagesAhead?: boolean;
  /** Timeout of one LIST page (default: the connection's request timeout). */
  readonly listTimeoutMs?: number;
  /** Server-side watch lifetime, chosen uniformly in this range (default 300–600 s). */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** A watch silent (no event, no bookmark) for longer than this is restarted (default 90 s). */
  readonly watchdogMs?: number;
  readonly backoff?: Partial<BackoffOptions>;
  /** Minimum wait before retrying a forbidden resource (default 30 s). */
  readonly forbiddenRetryMs?: number;
  /** Attempts per LIST page before the list is given up (default 3). */
  readonly pageAttempts?: number;
  /** Random source for jitter (tests). */
  readonly random?: () => number;
  /** Longest watch event accepted, in bytes (default `MAX_WATCH_LINE_BYTES`, 8 MiB). */
  readonly maxWatchLineBytes?: number;
  /** Largest list page accepted, in bytes (default `MAX_RESPONSE_BYTES`, 32 MiB). */
  readonly maxListResponseBytes?: number;
  /** Log sink; messages pass `redact` (../redact) once more before they reach it. */
  readonly log?: (event: InformerLogEvent) => void;
  /** The coordinator of atomic re-lists across types (the ClusterSource sets it; alone, each type re-lists by itself). */
  readonly coordinator?: RelistCoordinator;
}

/** {@link InformerOptions} with the defaults filled in (the connection's request timeout for lists). */
export interface ResolvedInformerOptions {
  readonly pageSize: number;
  readonly pagesAhead: boolean;
  readonly listTimeoutMs: number;
  readonly watchTimeoutSeconds: readonly [number, number];
  readonly watchdogMs: number;
  readonly backoff: BackoffOptions;
  readonly forbiddenRetryMs: number;
  readonly pageAttempts: number;
  readonly random: () => number;
  readonly maxWatchLineBytes: number | undefined;
  readonly maxListResponseBytes: number | undefined;
}

/** The tuning of an informer whose connection times requests out after `requestTimeoutMs`. */
export function resolveInformerOptions(options: InformerOptions, requestTimeoutMs: number): ResolvedInformerOptions {
  return {
    pageSize: options.pageSize ?? 500,
    pagesAhead: options.pagesAhead ?? false,
    listTimeoutMs: options.listTimeoutMs ?? requestTimeoutMs,
    watchTimeoutSeconds: options.watchTimeoutSeconds ?? [300, 600],
    watchdogMs: options.watchdogMs ?? 90_000,
    backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
    forbiddenRetryMs: options.forbiddenRetryMs ?? 30_000,
    pageAttempts: options.pageAttempts ?? 3,
    random: options.random ?? Math.random,
    maxWatchLineBytes: options.maxWatchLineBytes,
    maxListResponseBytes: options.maxListResponseBytes,
  };
}

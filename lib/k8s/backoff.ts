/**
 * Exponential backoff: how long to wait before the next attempt after a run of failures. The one
 * formula behind every retry loop of lib/k8s — an informer's lists and watches
 * (./informer/informer), the `/version` probe of a live source (./cluster-sources/live-source) and a
 * failing credential plugin (./exec-credential/provider). Pure: the caller counts its failures and
 * hands in its random source, so tests can make the jitter deterministic.
 */

/** How delays grow. */
export interface BackoffPolicy {
  /** Delay of the first retry, before jitter. */
  readonly initialMs: number;
  /** Longest delay, before jitter. */
  readonly maxMs: number;
  /** Growth per failure (default 2: the delay doubles). */
  readonly factor?: number;
}

/**
 * The delay before retry number `retry` (0: the first retry after a failure; negative counts as
 * 0): `initialMs × factor^retry`, at most `maxMs`. With `random` (a source of numbers in [0, 1),
 * such as `Math.random`) the delay is jittered ("equal jitter"): half of it fixed, the other half
 * scaled by `random()`, so clients that failed together do not all come back at the same moment.
 */
export function backoffDelay(policy: BackoffPolicy, retry: number, random?: () => number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * (policy.factor ?? 2) ** Math.max(0, retry));
  return random === undefined ? base : base / 2 + random() * (base / 2);
}

/**
 * Reading resourceVersions: their order (etcd revisions, one counter across types) and the API
 * server's answer that the version asked for is newer than its history — both signs that the
 * history went backwards (an etcd restored from an older backup, another cluster at the address).
 */
import type { KubeError } from '../errors';
import { isJsonObject, obj } from '../wire-to-record/json';

/**
 * Whether an error is the API server's "Too large resource version" (504 Timeout with cause
 * `ResourceVersionTooLarge`, `storage.NewTooLargeResourceVersionError` upstream): the version we
 * sent is newer than its history. `body` is the raw response or the watch event's Status.
 */
export function isResourceVersionTooLarge(error: KubeError, body?: unknown): boolean {
  if (error.kind !== 'timeout' || (error.status !== undefined && error.status !== 504)) return false;
  const status = typeof body === 'string' ? safeJson(body) : body;
  if (isJsonObject(status)) {
    const causes = obj(status.details).causes;
    if (Array.isArray(causes) && causes.some((cause) => isJsonObject(cause) && cause.reason === 'ResourceVersionTooLarge')) return true;
  }
  return /too large resource version/i.test(error.message);
}

/** -1, 0, 1 when both resourceVersions are decimal (etcd revisions, as every API server sends); `null` when they cannot be ordered. */
export function compareResourceVersions(a: string | null, b: string | null): number | null {
  if (a === null || b === null || !/^\d{1,30}$/.test(a) || !/^\d{1,30}$/.test(b)) return null;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `text` parsed as JSON, `undefined` when it is not JSON. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

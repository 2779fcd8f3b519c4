/**
 * 1. One complete paged LIST of a resource type into a fresh map of slim records (the informer
 * swaps it in, or stages it during a coordinated re-list).
 *
 * Pages of `limit` objects follow `continue`. An expired continue token (410) restarts the list
 * from the first page; so does a list cut between pages by a lost connection or a "too large
 * resource version" (the server behind the next page may not be the one that served the first),
 * and pages that disagree on the resourceVersion — at most three restarts. A failing page is
 * retried a few times before the list is given up; a page over the response limit is fetched
 * again with half the page size, down to one object. With `pagesAhead` the next page is asked for
 * before the current one is parsed (1a, ./pages-ahead). A 404 on the first page moves to the
 * type's older API path (autoscaling/v1 without v2).
 */
import type { KubeConnection, KubeHttpResponse } from '../connection';
import type { KubeError } from '../errors';
import { errorFromException, errorFromResponse, isRetryable, ResponseTooLargeError } from '../errors';
import type { RecordById, ResourceDescriptor, ResourceId } from '../resources';
import { cacheKey } from '../resources';
import type { Json } from '../wire-to-record/json';
import { isJsonObject, obj, str } from '../wire-to-record/json';
import type { InformerLogEvent } from './options';
import type { PageAhead } from './pages-ahead';
import { leadingContinueToken, mayAskAhead, requestAhead } from './pages-ahead';
import { isResourceVersionTooLarge, safeJson } from './resource-versions';
import { sameRecord } from './same-record';

/** What a list is tuned with (the informer's resolved options). */
export interface ListSettings {
  readonly pageSize: number;
  readonly pageAttempts: number;
  readonly pagesAhead: boolean;
  readonly listTimeoutMs: number;
  readonly maxListResponseBytes: number | undefined;
  /** The wait before a page is tried again, times the attempt (the backoff's initial delay). */
  readonly retryMs: number;
}

/** What a list needs of its informer. */
export interface ListHost<Id extends ResourceId> {
  readonly connection: KubeConnection;
  readonly descriptor: ResourceDescriptor<Id>;
  readonly settings: ListSettings;
  /** Whether the informer still runs (a stopped one ends the list). */
  running(): boolean;
  /** The informer's stop signal (cancels requests in flight). */
  stopSignal(): AbortSignal;
  /** The re-list epoch: a list started in an older one starts again. */
  epoch(): number;
  /** The newest resourceVersion seen so far (a new list cannot be older). */
  newestSeen(): string | null;
  /** The API path listed now. */
  path(): string;
  /** Moves to the type's next (older) API path; `false` when there is none. */
  olderPath(): boolean;
  /** The record the cache holds under `key`. */
  known(key: string): RecordById[Id] | undefined;
  /** Objects received by this list so far (shown while listing). */
  listed(count: number): void;
  /** A page was read: the status changed. */
  progressed(): void;
  /** Waits (cut short by a stop or a coordinated re-list). */
  sleep(ms: number): Promise<void>;
  log(level: InformerLogEvent['level'], message: string): void;
}

/** How a list ended. */
export type PagedList<Record> =
  | {
      readonly type: 'listed';
      readonly cache: Map<string, Record>;
      readonly resourceVersion: string | null;
      /** The re-list epoch the list (or its last restart) began in. */
      readonly epoch: number;
      /** The newest resourceVersion seen when the list (or its last restart) began. */
      readonly floor: string | null;
    }
  | { readonly type: 'failed'; readonly error: KubeError }
  | { readonly type: 'stopped' };

/** Errors of a lost connection (no HTTP answer): the server behind the next request may be another. */
function connectionLost(error: KubeError): boolean {
  return error.status === undefined && (error.kind === 'unavailable' || error.kind === 'timeout' || error.kind === 'unknown');
}

/** One LIST page. */
function requestPage<Id extends ResourceId>(host: ListHost<Id>, path: string, limit: number, continueToken: string | undefined, signal: AbortSignal): Promise<KubeHttpResponse> {
  const { listTimeoutMs, maxListResponseBytes } = host.settings;
  return host.connection.request({
    path,
    query: { limit, continue: continueToken, fieldSelector: host.descriptor.fieldSelector },
    timeoutMs: listTimeoutMs,
    signal,
    ...(maxListResponseBytes !== undefined ? { maxResponseBytes: maxListResponseBytes } : {}),
  });
}

/** Lists every object of the type, page by page, into a fresh map (see the module comment). */
export async function listPages<Id extends ResourceId>(host: ListHost<Id>): Promise<PagedList<RecordById[Id]>> {
  const { pageSize, pageAttempts, retryMs } = host.settings;
  let fresh = new Map<string, RecordById[Id]>();
  let continueToken: string | undefined;
  let listResourceVersion: string | null = null;
  let listed = 0;
  let restarts = 0;
  let attempt = 0;
  let epoch = host.epoch();
  // The newest resourceVersion seen before this list began: the list cannot be older.
  let floor = host.newestSeen();
  // Halved when a page is over the response limit (a continue token accepts any limit).
  let limit = pageSize;
  /** The next page, asked for while the current one is parsed (see 1a). */
  let ahead: PageAhead | null = null;
  const dropAhead = (): void => {
    ahead?.abort();
    ahead = null;
  };
  /** Starts the list again from the first page (what was read so far is dropped). */
  const restart = (why: string | null): void => {
    if (why !== null) host.log('warn', `list ${why}; restarting it from the first page`);
    fresh = new Map();
    continueToken = undefined;
    listResourceVersion = null;
    listed = 0;
    host.listed(0);
    epoch = host.epoch();
    floor = host.newestSeen();
  };
  try {
    while (host.running()) {
      if (epoch !== host.epoch()) restart(null); // a coordinated re-list began: list the new history
      let error: KubeError | null = null;
      let errorBody: unknown;
      let tooLarge = false;
      let body: Json | null = null;
      try {
        const path = host.path();
        // The page asked for ahead of time (below) when it is this one; otherwise it is of no use.
        let pending: Promise<KubeHttpResponse>;
        if (ahead !== null && ahead.path === path && ahead.limit === limit && ahead.continueToken === continueToken) {
          pending = ahead.response;
          ahead.release();
          ahead = null;
        } else {
          dropAhead();
          pending = requestPage(host, path, limit, continueToken, host.stopSignal());
        }
        const response = await pending;
        if (response.status >= 200 && response.status < 300) {
          // 1a. With `pagesAhead`, the next page is asked for before this one is parsed, so the
          // server computes it while we parse and project (the continue token leads the metadata).
          // At most MAX_PAGES_AHEAD across the process: each holds one more page body in memory.
          const nextToken = host.settings.pagesAhead && mayAskAhead() ? leadingContinueToken(response.body) : null;
          if (nextToken !== null && host.running()) {
            const pageLimit = limit;
            ahead = requestAhead(path, pageLimit, nextToken, host.stopSignal(), (signal) => requestPage(host, path, pageLimit, nextToken, signal));
          }
          const parsed = safeJson(response.body);
          if (isJsonObject(parsed) && Array.isArray(parsed.items)) body = parsed;
          else error = { kind: 'unknown', status: response.status, message: 'The API server sent a list that is not a JSON list.' };
        } else {
          error = errorFromResponse(response.status, response.body, response.headers);
          errorBody = response.body;
        }
      } catch (thrown) {
        error = errorFromException(thrown);
        tooLarge = thrown instanceof ResponseTooLargeError;
      }
      if (!host.running()) return { type: 'stopped' };
      if (error !== null) {
        if (tooLarge) {
          if (limit > 1) {
            limit = Math.max(1, Math.floor(limit / 2));
            host.log('info', `list page over the size limit; retrying with ${limit} per page`);
            continue;
          }
          return { type: 'failed', error: { ...error, message: `${error.message} Even one object per page is too large.` } };
        }
        if (error.kind === 'not-found' && continueToken === undefined && host.olderPath()) continue; // an older API version (autoscaling/v1 without v2)
        if (continueToken !== undefined && restarts < 3) {
          if (error.kind === 'gone') {
            // Expired continue token (or one the server does not know): start the list again from scratch.
            restarts++;
            restart(null);
            continue;
          }
          if (isResourceVersionTooLarge(error, errorBody) || connectionLost(error)) {
            // The server behind the next page may not be the one that served the first (it
            // restarted, maybe on another state): continuing could mix two histories.
            restarts++;
            restart(`interrupted between pages (${error.message})`);
            await host.sleep(retryMs * restarts);
            continue;
          }
        }
        if (isRetryable(error) && ++attempt < pageAttempts) {
          await host.sleep(Math.max(error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0, retryMs * attempt));
          continue;
        }
        return { type: 'failed', error };
      }
      attempt = 0;
      const page = body ?? {};
      const metadata = obj(page.metadata);
      const pageResourceVersion = str(metadata.resourceVersion);
      if (continueToken !== undefined && restarts < 3 && pageResourceVersion !== listResourceVersion) {
        // Every page of one list is served at its first page's resourceVersion: this one is not.
        restarts++;
        restart(`pages disagree on the resourceVersion (${listResourceVersion ?? 'none'}, then ${pageResourceVersion ?? 'none'})`);
        continue;
      }
      listResourceVersion ??= pageResourceVersion;
      for (const item of page.items as unknown[]) {
        if (!isJsonObject(item)) continue;
        const record = host.descriptor.project(item);
        if (record !== null) {
          const key = cacheKey(item);
          // An unchanged object keeps its record, so a re-list does not look like a change to everything.
          const known = host.known(key);
          fresh.set(key, known !== undefined && sameRecord(known, record) ? known : record);
        }
        listed++;
      }
      host.listed(listed);
      host.progressed();
      const next = str(metadata.continue);
      if (next === null || next === '') {
        if (epoch !== host.epoch()) continue; // the history moved while listing: list again
        break;
      }
      continueToken = next;
    }
    if (!host.running()) return { type: 'stopped' };
    return { type: 'listed', cache: fresh, resourceVersion: listResourceVersion, epoch, floor };
  } finally {
    dropAhead();
  }
}

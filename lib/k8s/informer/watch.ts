/**
 * 2. One WATCH of a resource type from the informer's resourceVersion, with bookmarks, until it
 * ends, fails, expires (410 Gone, as an answer or an `ERROR` event: 3.) or goes silent (a watchdog
 * cuts a watch that delivered nothing, not even a bookmark, for longer than a bound). Events are
 * handed to the informer, which applies them to its cache; a 504 "too large resource version"
 * says the API server's history went backwards (6.). A line over the line limit ends the watch
 * with an error that asks for a re-list (5.: the cut event is unknown).
 *
 * 6a. Before a watch resumes from a resourceVersion an earlier watch reached ({@link checkResume}),
 * one list of at most one object asks the server whether its history reaches that version
 * (`resourceVersion=R&resourceVersionMatch=NotOlderThan&limit=1`, which kube-apiserver reads from
 * etcd and answers 504 `ResourceVersionTooLarge` at once when R is ahead). The watch itself cannot
 * tell: kube-apiserver accepts a watch from a version it has not reached and sends nothing, not
 * even bookmarks, until it gets there — after a restart on an older state (an etcd restore,
 * another cluster at the address) that is never, and the old objects would stay shown as synced.
 */
import type { KubeConnection, KubeLineStream, OpenStreamResult } from '../connection';
import type { KubeError } from '../errors';
import { errorFromException, errorFromResponse, errorFromWatchStatus, ResponseTooLargeError } from '../errors';
import type { ResourceDescriptor, ResourceId } from '../resources';
import type { Json } from '../wire-to-record/json';
import { isJsonObject } from '../wire-to-record/json';
import { isResourceVersionTooLarge, safeJson } from './resource-versions';

/** How a watch ended. */
export type WatchOutcome =
  | { readonly type: 'ended'; readonly durationMs: number; readonly events: number }
  | { readonly type: 'expired' }
  | { readonly type: 'silent' }
  | { readonly type: 'too-large'; readonly error: KubeError }
  | { readonly type: 'error'; readonly error: KubeError; readonly opened: boolean; readonly durationMs: number; readonly relist?: boolean };

/** The events that change the cache or only move the resourceVersion on. */
export type CacheEvent = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** What a watch is tuned with (the informer's resolved options). */
export interface WatchSettings {
  /** Server-side watch lifetime, chosen uniformly in this range. */
  readonly watchTimeoutSeconds: readonly [number, number];
  readonly watchdogMs: number;
  readonly random: () => number;
  readonly maxWatchLineBytes: number | undefined;
}

/** What a watch needs of its informer. */
export interface WatchHost {
  readonly connection: KubeConnection;
  readonly descriptor: ResourceDescriptor<ResourceId>;
  readonly settings: WatchSettings;
  /** The API path watched. */
  path(): string;
  /** Where the watch starts (`null`: the server's current state). */
  resourceVersion(): string | null;
  /** The informer's stop signal. */
  stopSignal(): AbortSignal;
  /** The re-list epoch: a watch opened while a coordinated re-list began closes itself. */
  epoch(): number;
  /** Something arrived (an event or a bookmark) at `at` (ms since the epoch). */
  activity(at: number): void;
  /** Applies one event to the cache and moves the resourceVersion on. */
  apply(type: CacheEvent, object: Json): void;
  /** The watch's stream is open (closing it ends the watch). */
  streamOpened(stream: KubeLineStream): void;
  /** The watch counts as open; `synced` when nothing ended it yet (the type is in sync again). */
  watchStarted(synced: boolean): void;
  /** The watch's stream ended. */
  streamClosed(): void;
}

/** The outcome of an `ERROR` event (its object is a `Status`). */
function errorEventOutcome(object: Json): WatchOutcome {
  const error = errorFromWatchStatus(object);
  if (error.kind === 'gone') return { type: 'expired' };
  if (isResourceVersionTooLarge(error, object)) return { type: 'too-large', error };
  return { type: 'error', error, opened: true, durationMs: 0 };
}

/**
 * 6a. Whether the server's history reaches the version a watch is about to resume from (see the
 * module comment): `null` when it does (or the server does not say), else the outcome the watch
 * would have had — `too-large` when the history went backwards, `error` when the check failed.
 */
export async function checkResume(host: WatchHost): Promise<WatchOutcome | null> {
  const resourceVersion = host.resourceVersion();
  if (resourceVersion === null || resourceVersion === '') return null;
  let response;
  try {
    response = await host.connection.request({
      path: host.path(),
      // No field selector: the answer's resourceVersion is the store's, whatever is selected, and
      // the server need not scan for a matching object.
      query: { limit: 1, resourceVersion, resourceVersionMatch: 'NotOlderThan' },
      signal: host.stopSignal(),
    });
  } catch (thrown) {
    return { type: 'error', error: errorFromException(thrown), opened: false, durationMs: 0 };
  }
  if (response.status >= 200 && response.status < 300) return null;
  const error = errorFromResponse(response.status, response.body, response.headers);
  if (isResourceVersionTooLarge(error, response.body)) return { type: 'too-large', error };
  // An old server that does not know resourceVersionMatch, or a 410 from one that compacted
  // (NotOlderThan never asks for an old version): the watch will tell what it has to.
  if (error.kind === 'bad-request' || error.kind === 'gone') return null;
  return { type: 'error', error, opened: false, durationMs: 0 };
}

/** One WATCH from the host's resourceVersion until it ends, fails, expires or goes silent. */
export async function watchOnce(host: WatchHost): Promise<WatchOutcome> {
  const { watchTimeoutSeconds, watchdogMs, random, maxWatchLineBytes } = host.settings;
  const [minTimeout, maxTimeout] = watchTimeoutSeconds;
  const timeoutSeconds = Math.round(minTimeout + random() * Math.max(0, maxTimeout - minTimeout));
  let outcome: WatchOutcome | null = null;
  let lastActivity = Date.now();
  let events = 0;
  const startedAt = Date.now();
  let close: () => void = () => undefined;
  const settle = (value: WatchOutcome): void => {
    outcome ??= value;
    close();
  };
  const onLine = (line: string): void => {
    if (outcome !== null) return;
    lastActivity = Date.now();
    host.activity(lastActivity);
    const event = safeJson(line);
    if (!isJsonObject(event) || typeof event.type !== 'string' || !isJsonObject(event.object)) {
      // A line we cannot read may have been a real event: resume from the last good version.
      settle({ type: 'error', error: { kind: 'unknown', message: 'The API server sent a malformed watch event.' }, opened: true, durationMs: Date.now() - startedAt });
      return;
    }
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
      case 'BOOKMARK':
        host.apply(event.type, event.object);
        break;
      case 'ERROR':
        settle(errorEventOutcome(event.object));
        break;
      default:
        settle({ type: 'error', error: { kind: 'unknown', message: `The API server sent an unknown watch event type.` }, opened: true, durationMs: 0 });
        break;
    }
    events++;
  };
  // A coordinated re-list that begins while the watch is being opened finds no stream to close:
  // the watch closes itself once open (below), so the type takes part in the re-list.
  const epoch = host.epoch();
  let opened: OpenStreamResult;
  try {
    opened = await host.connection.openStream(
      {
        path: host.path(),
        query: {
          watch: 1,
          resourceVersion: host.resourceVersion() ?? undefined,
          allowWatchBookmarks: true,
          timeoutSeconds,
          fieldSelector: host.descriptor.fieldSelector,
        },
        signal: host.stopSignal(),
        // The wait for the watch's response headers is the watchdog's silence, not the request
        // timeout: a proxy that buffers responses (nginx's default) holds the headers until the
        // first byte, which on a quiet type is the API server's first bookmark — sent about once
        // a minute (the watch cache's bookmark frequency, kubernetes/kubernetes
        // staging/src/k8s.io/apiserver/pkg/storage/cacher). A 30 s request timeout turned every
        // quiet type stale 30 s after the sync behind such a proxy.
        timeoutMs: Math.max(watchdogMs, host.connection.requestTimeoutMs),
        ...(maxWatchLineBytes !== undefined ? { maxLineBytes: maxWatchLineBytes } : {}),
      },
      onLine,
    );
  } catch (thrown) {
    return { type: 'error', error: errorFromException(thrown), opened: false, durationMs: 0 };
  }
  if (!opened.ok) {
    const error = errorFromResponse(opened.response.status, opened.response.body, opened.response.headers);
    if (error.kind === 'gone') return { type: 'expired' };
    if (isResourceVersionTooLarge(error, opened.response.body)) return { type: 'too-large', error };
    return { type: 'error', error, opened: false, durationMs: 0 };
  }
  const stream = opened.stream;
  close = () => stream.close();
  host.streamOpened(stream);
  if (epoch !== host.epoch()) stream.close();
  host.watchStarted(outcome === null);
  const watchdog = setInterval(
    () => {
      if (Date.now() - lastActivity > watchdogMs) settle({ type: 'silent' });
    },
    Math.max(10, Math.min(5000, Math.floor(watchdogMs / 4))),
  );
  if (outcome !== null) stream.close();
  const ended = await stream.done;
  clearInterval(watchdog);
  host.streamClosed();
  if (outcome !== null) return outcome;
  const durationMs = Date.now() - startedAt;
  if (ended instanceof ResponseTooLargeError) return { type: 'error', error: errorFromException(ended), opened: true, durationMs, relist: true };
  if (ended !== null) return { type: 'error', error: errorFromException(ended), opened: true, durationMs };
  return { type: 'ended', durationMs, events };
}

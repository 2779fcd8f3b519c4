/**
 * Live pages: the pure rules shared by the header's client leaf (components/layout/live-status.tsx),
 * the server that renders it (lib/views/header.ts) and `GET /api/v1/cluster/generation`.
 *
 * How a page follows the watch: the server renders the page with the cluster generation it read
 * (the first read of the request, so never newer than what the page shows) and the per-type
 * health. The leaf polls the tiny generation endpoint (O(1): no analysis, no API server call) and,
 * when the server is ahead of the page, re-renders the server components (`router.refresh()`,
 * which keeps client state, focus and the scroll position) — at most once per
 * {@link MIN_REFRESH_INTERVAL_MS}, never while the tab is hidden, while a refresh is in flight, while
 * a field is being edited, or while a hold is open (see {@link HOLD_SELECTOR}).
 *
 * Why polling and not server-sent events: a 2-second GET of ~300 bytes survives every proxy, load
 * balancer and `kubectl port-forward` unchanged (no buffering, no idle timeouts, no sticky
 * connections), does not use up one of the browser's six HTTP/1.1 connections per origin per tab,
 * and costs 10 browsers 5 small requests a second whatever the cluster size.
 *
 * No DOM and no server imports: unit-tested in live-refresh.test.ts.
 */
import { formatRelativeTime } from './relative-time';

/** How often an open, visible page asks for the generation. */
export const POLL_INTERVAL_MS = 2_000;
/** An unanswered poll counts as failed after this long. */
export const POLL_TIMEOUT_MS = 5_000;
/** At most one automatic refresh per this interval (bursts of changes are coalesced). */
export const MIN_REFRESH_INTERVAL_MS = 2_000;
/** This many failed polls in a row (or the browser saying it is offline) is a lost connection. */
export const LOST_AFTER_FAILURES = 2;

/**
 * The documented hold: while any element in the document carries this attribute (any value), the
 * page is not refreshed automatically — put it on a confirmation step or dialog whose content must
 * not change under the user (the topology-mode toggle's confirm step does). `<dialog open>` and
 * `aria-modal="true"` elements hold too.
 */
export const HOLD_ATTRIBUTE = 'data-live-refresh-hold';
/** Elements that hold automatic refreshes while present (see {@link HOLD_ATTRIBUTE}). */
export const HOLD_SELECTOR = `[${HOLD_ATTRIBUTE}], dialog[open], [aria-modal="true"]`;

/** One resource type's health as the generation endpoint reports it. */
export interface ResourceHealthEntry {
  readonly resource: string;
  readonly health: string;
}

/** What a page was rendered from, or what the server has now. */
export interface LiveMark {
  /** `ClusterSource.generation`: increases on every change of the cached records. */
  readonly generation: number;
  /** {@link healthKey} of the per-type health: changes when a watch goes stale, recovers, or is forbidden. */
  readonly health: string;
  /** Whether every type finished its first sync. */
  readonly synced: boolean;
}

/** A compact, order-preserving key of the per-type health (and whether the first sync is done). */
export function healthKey(synced: boolean, resources: readonly ResourceHealthEntry[]): string {
  return `${synced ? 'synced' : 'syncing'}|${resources.map((r) => `${r.resource}:${r.health}`).join(',')}`;
}

/**
 * Whether the server is ahead of the page: the health changed, or (once synced) the generation.
 * Before the first sync the header's own auto-refresh re-renders the page every few seconds, so
 * generation moves alone do not count then.
 */
export function isBehind(rendered: LiveMark, latest: LiveMark): boolean {
  if (rendered.health !== latest.health) return true;
  return latest.synced && rendered.generation !== latest.generation;
}

/** Why an automatic refresh is held back by the user. */
export type UserHold = 'dialog' | 'editing';

/** Inputs of {@link decideRefresh}. */
export interface RefreshInput {
  /** {@link isBehind} of the page against the last answer. */
  readonly behind: boolean;
  /** A hold by the user (open confirmation, field being edited), or `null`. */
  readonly hold: UserHold | null;
  readonly hidden: boolean;
  /** A refresh is in flight. */
  readonly refreshing: boolean;
  readonly now: number;
  /** When the last refresh (automatic or asked for) started, `null` if never. */
  readonly lastRefreshAt: number | null;
  readonly minIntervalMs?: number;
}

/** What to do now. */
export type RefreshDecision =
  | { readonly kind: 'idle' }
  | { readonly kind: 'refresh' }
  | { readonly kind: 'wait'; readonly reason: UserHold | 'hidden' | 'refreshing' | 'cooldown'; readonly retryInMs: number | null };

/** Whether to refresh the page now, and if it is behind but not yet, why (and when to look again). */
export function decideRefresh(input: RefreshInput): RefreshDecision {
  if (!input.behind) return { kind: 'idle' };
  if (input.refreshing) return { kind: 'wait', reason: 'refreshing', retryInMs: null };
  if (input.hold !== null) return { kind: 'wait', reason: input.hold, retryInMs: null };
  if (input.hidden) return { kind: 'wait', reason: 'hidden', retryInMs: null };
  const gap = input.minIntervalMs ?? MIN_REFRESH_INTERVAL_MS;
  if (input.lastRefreshAt !== null) {
    const since = input.now - input.lastRefreshAt;
    if (since >= 0 && since < gap) return { kind: 'wait', reason: 'cooldown', retryInMs: gap - since };
  }
  return { kind: 'refresh' };
}

/** Whether the dashboard server answers: lost after {@link LOST_AFTER_FAILURES} failed polls in a row, or at once when the browser is offline. */
export function connectionLost(consecutiveFailures: number, offline: boolean): boolean {
  return offline || consecutiveFailures >= LOST_AFTER_FAILURES;
}

/** The element that has the focus, as far as {@link isTextEntry} needs it. */
export interface FocusedElement {
  readonly tagName: string;
  readonly type?: string;
  readonly isContentEditable?: boolean;
  readonly readOnly?: boolean;
  readonly disabled?: boolean;
}

const NOT_TEXT_INPUTS = new Set(['button', 'checkbox', 'color', 'file', 'hidden', 'image', 'radio', 'range', 'reset', 'submit']);

/** Whether the element takes typed input (text-like `<input>`, `<textarea>`, `<select>`, contenteditable). */
export function isTextEntry(element: FocusedElement | null | undefined): boolean {
  if (!element) return false;
  if (element.isContentEditable === true) return true;
  if (element.readOnly === true || element.disabled === true) return false;
  const tag = element.tagName.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  return !NOT_TEXT_INPUTS.has((element.type ?? 'text').toLowerCase());
}

/** "updated 5s ago" and its spoken form "Page data updated 5 seconds ago" (hours at most: the page refreshes long before days). */
export function formatAge(ms: number): { readonly text: string; readonly label: string } {
  const ago = -Math.max(0, Math.floor(ms / 1000));
  return {
    text: `updated ${formatRelativeTime(ago, { largestUnit: 'hour' })}`,
    label: `Page data updated ${formatRelativeTime(ago, { style: 'long', largestUnit: 'hour' })}`,
  };
}

/** The render time without JavaScript: "updated at 12:34:56 UTC" (same text on server and client). */
export function formatRenderedAt(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? 'updated at an unknown time' : `updated at ${date.toISOString().slice(11, 19)} UTC`;
}

/** The header's note for a lost connection or a held update (empty when there is nothing to say). */
export function liveNote(lost: boolean, waiting: UserHold | null): string {
  if (lost) return 'Connection to the dashboard server lost: this page is not updating (retrying).';
  if (waiting === 'dialog') return 'Newer data is waiting: the page updates when the confirmation is closed.';
  if (waiting === 'editing') return 'Newer data is waiting: the page updates when you leave the field.';
  return '';
}

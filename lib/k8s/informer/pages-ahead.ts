/**
 * Pages asked for ahead (`InformerOptions.pagesAhead`): the next LIST page is requested as soon as
 * the current one's head shows its continue token, before the current one is parsed, so the
 * server works while zonescope parses — at most {@link MAX_PAGES_AHEAD} at once in the process.
 */
import type { KubeHttpResponse } from '../connection';

/** A LIST page asked for before the previous one was parsed. */
export interface PageAhead {
  readonly path: string;
  readonly limit: number;
  readonly continueToken: string;
  readonly response: Promise<KubeHttpResponse>;
  /** It is taken up as the current page: it no longer counts as a page ahead. */
  readonly release: () => void;
  /** It is not needed: cancel it. */
  readonly abort: () => void;
}

/**
 * The `metadata.continue` of a list page from its first bytes, without parsing it: API servers
 * write `kind`, `apiVersion`, then `metadata` (resourceVersion, continue) before `items`. `null`
 * when the page does not start that way or has no continue token (the list then goes on one page
 * at a time, from the parsed page).
 */
export function leadingContinueToken(body: string): string | null {
  const head = LIST_HEAD.exec(body.length > 4096 ? body.slice(0, 4096) : body);
  if (head === null) return null;
  const token = CONTINUE_FIELD.exec(head[1] ?? '');
  return token === null || token[1] === '' ? null : (token[1] ?? null);
}

/**
 * Pages asked for ahead at once (`InformerOptions.pagesAhead`), across every informer of the
 * process. Each one is a page body (~3 MB at 500 realistic pods) received while another is
 * parsed; the long lists (pods) are the ones that gain, and the short ones end early and leave
 * them the places.
 */
export const MAX_PAGES_AHEAD = 2;
let pagesAheadInFlight = 0;

const LIST_HEAD = /^\s*\{\s*(?:"(?:kind|apiVersion)"\s*:\s*"[^"\\]*"\s*,\s*)*"metadata"\s*:\s*\{([^{}]*)\}/;
const CONTINUE_FIELD = /(?:^|,)\s*"continue"\s*:\s*"([A-Za-z0-9_\-=+/.]*)"\s*(?:,|$)/;

/** Whether another page may be asked for ahead now (see {@link MAX_PAGES_AHEAD}). */
export function mayAskAhead(): boolean {
  return pagesAheadInFlight < MAX_PAGES_AHEAD;
}

/**
 * Asks for the page of `continueToken` ahead of time through `request`: abortable on its own (when
 * it turns out not to be needed) and with `stop` (the informer's stop).
 */
export function requestAhead(path: string, limit: number, continueToken: string, stop: AbortSignal, request: (signal: AbortSignal) => Promise<KubeHttpResponse>): PageAhead {
  const controller = new AbortController();
  const onStop = (): void => controller.abort();
  stop.addEventListener('abort', onStop, { once: true });
  const response = request(controller.signal);
  // Answered or failed: the informer's stop has nothing left to cancel. (An abandoned page's
  // failure is nobody's: it must not surface as an unhandled rejection.)
  const settled = (): void => stop.removeEventListener('abort', onStop);
  response.then(settled, settled);
  pagesAheadInFlight++;
  let held = true;
  const release = (): void => {
    if (held) pagesAheadInFlight--;
    held = false;
  };
  return {
    path,
    limit,
    continueToken,
    response,
    release,
    abort: () => {
      release();
      controller.abort();
    },
  };
}

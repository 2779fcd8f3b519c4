/**
 * The body of `GET /api/v1/services/{namespace}/{name}` as UTF-8 JSON, without serialising and
 * encoding the analysis detail on every request: each detail is serialised once (a few kept, most
 * recently used), the per-request fields on each request, and while they too are unchanged the same
 * bytes are sent again.
 */
import 'server-only';

import type { AnalysisOptions } from '../../topology/model/analysis-options';
import type { ServiceDetail } from '../../topology/report/analysis-schema';
import type { JsonPiece } from '../../server/spread-json';
import { jsonPieces, spreadJson } from '../../server/spread-json';
import type { ClusterScope } from '../../server/clusters';
import { detailViewParts } from './detail';

/** Result of {@link getServiceDetailBody}: the body of {@link getServiceDetailView} as UTF-8 JSON. */
export type ServiceDetailBodyResult =
  | { readonly ok: true; readonly body: Uint8Array<ArrayBuffer>; readonly resourceVersion: string }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'bad-request' | 'syncing'; readonly message: string } };

/** A detail serialised once, and the last body sent with it (with the per-request fields it was sent with, as JSON). */
interface SerialisedDetail {
  readonly pieces: readonly JsonPiece[];
  last: { readonly overrides: string; readonly body: Uint8Array<ArrayBuffer> } | null;
}

/** Serialised details, most recently used last (a Map keeps insertion order). */
const SERIALISED = new Map<ServiceDetail, SerialisedDetail>();
/** Details kept serialised (a 5,000-endpoint Service's body is ~4.6 MB). */
export const DETAIL_JSON_CACHE_SIZE = 16;

function serialised(detail: ServiceDetail): SerialisedDetail {
  let entry = SERIALISED.get(detail);
  if (entry) SERIALISED.delete(detail);
  else entry = { pieces: jsonPieces(detail), last: null };
  SERIALISED.set(detail, entry);
  for (const stale of SERIALISED.keys()) {
    if (SERIALISED.size <= DETAIL_JSON_CACHE_SIZE) break;
    SERIALISED.delete(stale);
  }
  return entry;
}

/**
 * {@link getServiceDetailView}'s value as `JSON.stringify` writes it, in UTF-8, without
 * serialising and encoding the analysis detail on every request: the detail (the per-Service cache
 * hands out the same object until the Service's inputs change) is serialised once, the
 * per-request fields (traffic at the current volume and price, resourceVersion, release,
 * read-only, measured vs predicted) on each request, and while they too are unchanged the same
 * bytes are sent again.
 */
export function getServiceDetailBody(scope: ClusterScope, namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetailBodyResult {
  const parts = detailViewParts(scope, namespace, name, options);
  if (!parts.ok) return parts;
  const resourceVersion = parts.overrides.resourceVersion;
  // What-if options give a detail of their own, not kept by the per-Service cache: serialise it directly.
  if (Object.values(options).some((value) => value !== undefined && value !== null)) {
    return { ok: true, body: Buffer.from(JSON.stringify({ ...parts.detail, ...parts.overrides })), resourceVersion };
  }
  const entry = serialised(parts.detail);
  const overrides = JSON.stringify(parts.overrides);
  if (entry.last?.overrides !== overrides) entry.last = { overrides, body: Buffer.from(spreadJson(entry.pieces, parts.overrides)) };
  return { ok: true, body: entry.last.body, resourceVersion };
}

/**
 * `GET /openapi/v3` and `GET /openapi/v3/<group-version>` as kube-openapi's handler3 answers
 * them: JSON only (a protobuf-only `Accept` gets 406), an `ETag` of the content's hash, and for a
 * URL with `?hash=`: the matching document with `Cache-Control: public, immutable`, or a 301 to
 * the current hash when it is stale.
 */
import { ApiError } from '../status';
import { openApiDocuments } from './documents';

/** What the router writes back. */
export interface OpenApiAnswer {
  readonly code: number;
  /** JSON text, or `undefined` for a redirect. */
  readonly body: string | undefined;
  readonly headers: Record<string, string>;
}

function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const media = (range.split(';')[0] ?? '').trim().toLowerCase();
    return media === 'application/json' || media === 'application/*' || media === '*/*';
  });
}

/**
 * Answers an OpenAPI v3 request. `rest` is the path after `/openapi/v3` (empty for discovery).
 * @throws ApiError 404 for a group/version not served, 406 for a non-JSON Accept.
 */
export function answerOpenApiV3(rest: readonly string[], query: URLSearchParams, accept: string | undefined): OpenApiAnswer {
  const { discovery, groupVersions } = openApiDocuments();
  if (!acceptsJson(accept)) {
    throw new ApiError(406, 'NotAcceptable', 'only the following media types are accepted: application/json');
  }
  if (rest.length === 0) {
    return { code: 200, body: discovery.body, headers: { ETag: `"${discovery.hash}"`, Vary: 'Accept' } };
  }
  const key = rest.join('/');
  const doc = groupVersions.get(key);
  if (doc === undefined) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  const headers: Record<string, string> = { ETag: `"${doc.hash}"`, Vary: 'Accept' };
  const hash = query.get('hash');
  if (hash !== null && hash !== '') {
    if (hash !== doc.hash) return { code: 301, body: undefined, headers: { Location: `/openapi/v3/${key}?hash=${doc.hash}` } };
    headers['Cache-Control'] = 'public, immutable';
    headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
  }
  return { code: 200, body: doc.body, headers };
}

/**
 * The continue tokens of paged lists: opaque (base64url JSON) and carrying what the next page
 * needs — the first page's resourceVersion (every page shows the store as of it), the last key
 * returned, the page number and the storage kind — as kube-apiserver's tokens do.
 */
import type { ResourceKey } from '../resources';
import { RESOURCE_KEYS } from '../resources';
import { badRequest } from '../status';
import { numberField, stringField } from '../types';

const TOKEN_VERSION = 'meta.k8s.io/v1';

/** The state a continue token carries. */
export interface ContinueToken {
  /** resourceVersion of the list's first page: every page shows the store as of it. */
  rv: number;
  /** Last key returned (exclusive start of the next page). */
  start: string;
  /** Page number of the page this token fetches (2 for the first continue). */
  page: number;
  /** Storage kind the token belongs to. */
  resource: ResourceKey;
}

/** Encodes an opaque continue token. */
export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv: token.rv, start: token.start, p: token.page, r: token.resource })).toString('base64url');
}

/**
 * Decodes a continue token.
 * @throws ApiError 400 when it is not one of ours.
 */
export function decodeContinue(raw: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data');
  }
  const rv = numberField(parsed, 'rv');
  const start = stringField(parsed, 'start');
  const page = numberField(parsed, 'p');
  const resource = stringField(parsed, 'r');
  if (stringField(parsed, 'v') !== TOKEN_VERSION || rv === undefined || start === undefined || page === undefined || resource === undefined) {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  const key = RESOURCE_KEYS.find((k) => k === resource);
  if (key === undefined) throw badRequest('continue key is not valid: unknown resource');
  return { rv, start, page, resource: key };
}

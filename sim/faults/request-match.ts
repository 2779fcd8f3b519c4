/**
 * Which requests a fault or RBAC rule names: verbs, resources, namespaces and names, each absent
 * (all) or a list. Resources are plural names (`services`), `name/subresource`
 * (`deployments/scale`), `name/*` (a resource and its subresources) or `*`; verbs are the
 * Kubernetes verbs (`get list watch create update patch delete deletecollection`). Rules arrive as JSON with singular or plural fields (`verb` or `verbs`, a string or a list).
 */
import { z } from 'zod';
import type { AuthzAttributes } from '../status';

/** What a fault or RBAC rule is matched against. */
export interface RequestInfo extends AuthzAttributes {
  /** Page number of a paged list (1 for the first page, 2 for the first continue, ...). */
  page?: number;
  /** The bearer token the request carried (for `error` faults with `echoToken`). */
  token?: string;
}

/** Which requests a rule applies to (absent lists match all). */
export interface RequestMatch {
  verbs?: string[];
  resources?: string[];
  namespaces?: string[];
  names?: string[];
}

/** A match field as JSON: one string or a list. */
export const stringOrList = z.union([z.string(), z.array(z.string())]).optional();

/** The singular and plural spellings of a match, as the rule schemas accept them. */
export interface MatchInput {
  readonly verb?: string | string[] | undefined;
  readonly verbs?: string | string[] | undefined;
  readonly resource?: string | string[] | undefined;
  readonly resources?: string | string[] | undefined;
  readonly namespace?: string | string[] | undefined;
  readonly namespaces?: string | string[] | undefined;
  readonly name?: string | string[] | undefined;
  readonly names?: string | string[] | undefined;
}

/** The values of the spellings of one field, in order; `undefined` when none is given. */
export function list(...values: (string | string[] | undefined)[]): string[] | undefined {
  const out: string[] = [];
  let any = false;
  for (const value of values) {
    if (value === undefined) continue;
    any = true;
    if (Array.isArray(value)) out.push(...value);
    else out.push(value);
  }
  return any ? out : undefined;
}

/** The {@link RequestMatch} of a rule's JSON. */
export function normaliseMatch(input: MatchInput): RequestMatch {
  const match: RequestMatch = {};
  const verbs = list(input.verb, input.verbs);
  const resources = list(input.resource, input.resources);
  const namespaces = list(input.namespace, input.namespaces);
  const names = list(input.name, input.names);
  if (verbs) match.verbs = verbs;
  if (resources) match.resources = resources;
  if (namespaces) match.namespaces = namespaces;
  if (names) match.names = names;
  return match;
}

/** Whether `value` is one of `patterns` (`*` matches anything; absent patterns match all). */
export function matchesList(patterns: readonly string[] | undefined, value: string | undefined): boolean {
  if (patterns === undefined) return true;
  return patterns.some((p) => p === '*' || p === (value ?? ''));
}

/** Whether a resource and subresource match `patterns` (see the file header). */
export function matchesResource(patterns: readonly string[] | undefined, resource: string, subresource: string | undefined): boolean {
  if (patterns === undefined) return true;
  const full = subresource ? `${resource}/${subresource}` : resource;
  return patterns.some(
    (p) => p === '*' || p === full || p === `${resource}/*` || (subresource !== undefined && p === `*/${subresource}`),
  );
}

/** Whether a request matches a rule's verbs, resources, namespaces and names. */
export function requestMatches(match: RequestMatch, request: RequestInfo): boolean {
  return (
    matchesList(match.verbs, request.verb) &&
    matchesResource(match.resources, request.resource, request.subresource) &&
    matchesList(match.namespaces, request.namespace) &&
    matchesList(match.names, request.name)
  );
}

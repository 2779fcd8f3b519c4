/**
 * The simulator's RBAC: a configuration of deny rules and, for least-privilege setups, allow
 * rules (`POST /__sim/rbac`, validated by the schemas here), and the decision for a request or a
 * SelfSubjectAccessReview. Everything is allowed unless a deny rule matches; with `allow`, only
 * what one of its rules matches, plus the self-reviews upstream grants every user.
 */
import { z } from 'zod';
import type { AuthzAttributes } from '../status';
import { list, matchesList, matchesResource, normaliseMatch, stringOrList } from './request-match';

/** An RBAC rule: the verbs on the resources it names. */
export interface RbacRule {
  verbs: string[];
  resources: string[];
  apiGroups?: string[];
  namespaces?: string[];
  names?: string[];
}

/**
 * RBAC configuration: everything is allowed unless a `deny` rule matches; when `allow` is set,
 * only requests matching one of its rules are allowed (least-privilege setups), plus creating
 * SelfSubjectAccessReviews and SelfSubjectReviews, which upstream grants every user.
 */
export interface RbacConfig {
  /** User named in Forbidden messages and SelfSubjectAccessReviews. */
  user: string;
  deny: RbacRule[];
  allow?: RbacRule[];
}

/** The default user: a service account, as the dashboard runs in-cluster. */
export const DEFAULT_USER = 'system:serviceaccount:zonescope:zonescope';

const rbacRuleSchema = z.object({
  verb: stringOrList, verbs: stringOrList,
  resource: stringOrList, resources: stringOrList,
  apiGroup: stringOrList, apiGroups: stringOrList,
  namespace: stringOrList, namespaces: stringOrList,
  name: stringOrList, names: stringOrList,
});

/** A rule as accepted by `SimFaults.setRbac` and `POST /__sim/rbac`. */
export type RbacRuleInput = z.input<typeof rbacRuleSchema>;

/** Body of `POST /__sim/rbac` (replaces the configuration). */
export const rbacRequestSchema = z.object({
  user: z.string().min(1).optional(),
  deny: z.array(rbacRuleSchema).default([]),
  allow: z.array(rbacRuleSchema).optional(),
});

/** RBAC configuration as accepted by `SimFaults.setRbac`. */
export type RbacConfigInput = z.input<typeof rbacRequestSchema>;

/** Result of an authorization check. */
export interface AuthzDecision {
  allowed: boolean;
  reason: string;
}

function normaliseRbacRule(input: z.infer<typeof rbacRuleSchema>): RbacRule {
  const match = normaliseMatch(input);
  const rule: RbacRule = { verbs: match.verbs ?? ['*'], resources: match.resources ?? ['*'] };
  const apiGroups = list(input.apiGroup, input.apiGroups);
  if (apiGroups) rule.apiGroups = apiGroups;
  if (match.namespaces) rule.namespaces = match.namespaces;
  if (match.names) rule.names = match.names;
  return rule;
}

/**
 * The configuration of `input` (user defaulted to {@link DEFAULT_USER}).
 * @throws ZodError when it is malformed.
 */
export function parseRbac(input: RbacConfigInput): RbacConfig {
  const parsed = rbacRequestSchema.parse(input);
  const config: RbacConfig = { user: parsed.user ?? DEFAULT_USER, deny: parsed.deny.map(normaliseRbacRule) };
  if (parsed.allow !== undefined) config.allow = parsed.allow.map(normaliseRbacRule);
  return config;
}

/**
 * One deny rule of `input`.
 * @throws ZodError when it is malformed.
 */
export function parseRbacRule(input: RbacRuleInput): RbacRule {
  return normaliseRbacRule(rbacRuleSchema.parse(input));
}

function rbacRuleMatches(rule: RbacRule, request: AuthzAttributes): boolean {
  return (
    matchesList(rule.verbs, request.verb) &&
    matchesResource(rule.resources, request.resource, request.subresource) &&
    matchesList(rule.apiGroups, request.group) &&
    matchesList(rule.namespaces, request.namespace) &&
    matchesList(rule.names, request.name)
  );
}

/** Whether `config` allows a request (used for requests and SelfSubjectAccessReviews). */
export function authorize(config: RbacConfig, attrs: AuthzAttributes): AuthzDecision {
  const { allow, deny } = config;
  const denied = deny.find((rule) => rbacRuleMatches(rule, attrs));
  if (denied !== undefined) {
    return { allowed: false, reason: `denied by simulator RBAC rule ${JSON.stringify(denied)}` };
  }
  // Like upstream's system:basic-user role, every user may review its own access.
  const basicUser = attrs.verb === 'create' &&
    ((attrs.group === 'authorization.k8s.io' && (attrs.resource === 'selfsubjectaccessreviews' || attrs.resource === 'selfsubjectrulesreviews')) ||
      (attrs.group === 'authentication.k8s.io' && attrs.resource === 'selfsubjectreviews'));
  if (allow !== undefined && !basicUser && !allow.some((rule) => rbacRuleMatches(rule, attrs))) {
    return { allowed: false, reason: 'no simulator RBAC allow rule matches' };
  }
  return { allowed: true, reason: 'allowed by the simulator RBAC configuration' };
}

/**
 * Fault injection and RBAC for the simulator, changeable at runtime (programmatically or through
 * the `/__sim/` control endpoints, whose JSON bodies the zod schemas here validate).
 *
 * Matching: a rule's `resources` are plural names (`services`), `name/subresource`
 * (`deployments/scale`), `name/*` (a resource and its subresources) or `*`; absent lists match
 * everything. Verbs are the Kubernetes verbs (`get list watch create update patch delete
 * deletecollection`).
 */
import { createSeededRandom } from '../lib/topology/analyses/seeded-random';
import { z } from 'zod';
import type { AuthzAttributes, StatusReason } from './status';
import { ApiError, errorForCode, STATUS_REASONS } from './status';

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

/** Fault behaviours. */
export type FaultAction =
  | { type: 'latency'; ms: number; jitterMs?: number }
  | {
      type: 'error'; code: number; reason?: StatusReason; message?: string; retryAfterSeconds?: number;
      /**
       * Echo the request's bearer token in the message, as a careless authenticator would:
       * `{token}`, `{token:base64}` and `{token:url}` in `message` are replaced by it (raw,
       * base64, URL-encoded); without a message it is `Unauthorized: token {token} is invalid`.
       */
      echoToken?: boolean;
    }
  /**
   * Answer a list or watch with `bytes` bytes of valid JSON: a list with a padding field, or
   * one watch event (a Service `oversized` with a padding annotation) whose newline comes only
   * after all of them. For testing client-side size limits; the stream stops when the client goes.
   */
  | { type: 'oversized'; bytes: number }
  /** Accept and never answer (with `page`: only that page of a paged list, e.g. to stop a list between pages). */
  | { type: 'hang'; page?: number }
  | { type: 'failPage'; page: number; code: number; message?: string }
  /**
   * Destroy the connection instead of answering. With `afterApply` the verb runs first (a write
   * lands and its watch event goes out) and only its answer is lost: the client cannot tell which.
   * With `page`, only that page of a paged list (the server going away in the middle of a list).
   */
  | { type: 'reset'; afterApply: boolean; page?: number }
  /** Run the verb, then answer with this error instead of its result (only when the verb succeeded). */
  | { type: 'errorAfterApply'; code: number; reason?: StatusReason; message?: string };

/** An installed fault rule. */
export type FaultRule = FaultAction &
  RequestMatch & {
    id: string;
    /** Fire at most this many more times (absent: unlimited). The rule is removed at 0. */
    count?: number;
    /** Fire with this probability (seeded PRNG; absent: always). */
    probability?: number;
  };

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

/** What the router must do with a request before handling it. */
export interface FaultDecision {
  /** Delay before answering. */
  latencyMs: number;
  /** Accept and never answer. */
  hang: boolean;
  /** Answer with this error instead of handling. */
  error: ApiError | undefined;
  /** Destroy the connection without handling the request (`reset` fault). */
  reset?: boolean;
  /**
   * Handle the request, then, if it succeeded and was answered at once (not a watch), destroy the
   * connection (`'reset'`) or send this error instead of the result (`reset` with `afterApply`,
   * `errorAfterApply`).
   */
  afterApply?: 'reset' | ApiError;
  /** Answer (a list or watch) with an oversized body of this many bytes instead of handling. */
  oversizedBytes?: number;
}

const stringOrList = z.union([z.string(), z.array(z.string())]).optional();

const matchShape = {
  verb: stringOrList, verbs: stringOrList,
  resource: stringOrList, resources: stringOrList,
  namespace: stringOrList, namespaces: stringOrList,
  name: stringOrList, names: stringOrList,
  count: z.number().int().positive().optional(),
  probability: z.number().min(0).max(1).optional(),
};

const statusCode = z.number().int().min(400).max(599);

/** JSON of one fault rule as the control endpoint accepts it (singular or plural match fields). */
export const faultRuleInputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('latency'), ms: z.number().min(0).max(600_000), jitterMs: z.number().min(0).optional(), ...matchShape }),
  z.object({
    type: z.literal('error'), code: statusCode, reason: z.enum(STATUS_REASONS).optional(), message: z.string().optional(),
    retryAfterSeconds: z.number().int().min(0).optional(), echoToken: z.boolean().optional(), ...matchShape,
  }),
  z.object({ type: z.literal('oversized'), bytes: z.number().int().min(1).max(2 ** 31), ...matchShape }),
  z.object({ type: z.literal('hang'), page: z.number().int().min(1).optional(), ...matchShape }),
  z.object({ type: z.literal('reset'), afterApply: z.boolean().default(false), page: z.number().int().min(1).optional(), ...matchShape }),
  z.object({ type: z.literal('errorAfterApply'), code: statusCode, reason: z.enum(STATUS_REASONS).optional(), message: z.string().optional(), ...matchShape }),
  z.object({
    type: z.literal('failPage'), page: z.number().int().min(1).default(2), code: statusCode.default(500),
    message: z.string().optional(), ...matchShape,
  }),
]);

/** A fault rule as accepted by {@link SimFaults.add} and `POST /__sim/faults`. */
export type FaultRuleInput = z.input<typeof faultRuleInputSchema>;

/** Body of `POST /__sim/faults`. */
export const faultsRequestSchema = z.object({
  rules: z.array(faultRuleInputSchema).default([]),
  /** Replace the installed rules instead of adding to them. */
  replace: z.boolean().default(false),
  /** Reseed the PRNG used by `probability`. */
  seed: z.number().int().optional(),
});

const rbacRuleSchema = z.object({
  verb: stringOrList, verbs: stringOrList,
  resource: stringOrList, resources: stringOrList,
  apiGroup: stringOrList, apiGroups: stringOrList,
  namespace: stringOrList, namespaces: stringOrList,
  name: stringOrList, names: stringOrList,
});

/** A rule as accepted by {@link SimFaults.setRbac} and `POST /__sim/rbac`. */
export type RbacRuleInput = z.input<typeof rbacRuleSchema>;

/** Body of `POST /__sim/rbac` (replaces the configuration). */
export const rbacRequestSchema = z.object({
  user: z.string().min(1).optional(),
  deny: z.array(rbacRuleSchema).default([]),
  allow: z.array(rbacRuleSchema).optional(),
});

/** RBAC configuration as accepted by {@link SimFaults.setRbac}. */
export type RbacConfigInput = z.input<typeof rbacRequestSchema>;

/** Body of `POST /__sim/watches/drop`. */
export const dropWatchesRequestSchema = z.object({
  resource: z.string().optional(),
  /** Destroy the sockets instead of ending the streams cleanly. */
  abrupt: z.boolean().default(false),
});

function list(...values: (string | string[] | undefined)[]): string[] | undefined {
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

function normaliseMatch(input: z.infer<typeof rbacRuleSchema> | z.infer<typeof faultRuleInputSchema>): RequestMatch {
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

function matchesList(patterns: readonly string[] | undefined, value: string | undefined): boolean {
  if (patterns === undefined) return true;
  return patterns.some((p) => p === '*' || p === (value ?? ''));
}

function matchesResource(patterns: readonly string[] | undefined, resource: string, subresource: string | undefined): boolean {
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

function rbacRuleMatches(rule: RbacRule, request: AuthzAttributes): boolean {
  return (
    matchesList(rule.verbs, request.verb) &&
    matchesResource(rule.resources, request.resource, request.subresource) &&
    matchesList(rule.apiGroups, request.group) &&
    matchesList(rule.namespaces, request.namespace) &&
    matchesList(rule.names, request.name)
  );
}

/** mulberry32: a small seeded PRNG returning floats in [0, 1) (shared with the analyses). */
export const seededRandom: (seed: number) => () => number = createSeededRandom;

function normaliseRbacRule(input: z.infer<typeof rbacRuleSchema>): RbacRule {
  const match = normaliseMatch(input);
  const rule: RbacRule = { verbs: match.verbs ?? ['*'], resources: match.resources ?? ['*'] };
  const apiGroups = list(input.apiGroup, input.apiGroups);
  if (apiGroups) rule.apiGroups = apiGroups;
  if (match.namespaces) rule.namespaces = match.namespaces;
  if (match.names) rule.names = match.names;
  return rule;
}

/** `message` with `{token}`, `{token:base64}` and `{token:url}` replaced by `token` in that form. */
function echoToken(message: string, token: string): string {
  return message
    .replaceAll('{token}', token)
    .replaceAll('{token:base64}', Buffer.from(token).toString('base64'))
    .replaceAll('{token:url}', encodeURIComponent(token));
}

/** Result of an authorization check. */
export interface AuthzDecision {
  allowed: boolean;
  reason: string;
}

/** Runtime-changeable faults and RBAC. */
export class SimFaults {
  private rules: FaultRule[] = [];
  private nextId = 1;
  private random: () => number;
  private seed: number;
  private rbacConfig: RbacConfig;
  private readonly initialRbac: RbacConfig;
  private dropper: ((resource: string | undefined, abrupt: boolean) => number) | undefined;

  constructor(options: { seed?: number; rbac?: RbacConfigInput; faults?: FaultRuleInput[] } = {}) {
    this.seed = options.seed ?? 1;
    this.random = seededRandom(this.seed);
    this.rbacConfig = SimFaults.parseRbac(options.rbac ?? {});
    this.initialRbac = this.rbacConfig;
    for (const rule of options.faults ?? []) this.add(rule);
  }

  private static parseRbac(input: RbacConfigInput): RbacConfig {
    const parsed = rbacRequestSchema.parse(input);
    const config: RbacConfig = { user: parsed.user ?? DEFAULT_USER, deny: parsed.deny.map(normaliseRbacRule) };
    if (parsed.allow !== undefined) config.allow = parsed.allow.map(normaliseRbacRule);
    return config;
  }

  /**
   * Installs a fault rule and returns its id.
   * @throws ZodError when the rule is malformed.
   */
  add(input: FaultRuleInput): string {
    const parsed = faultRuleInputSchema.parse(input);
    const id = `fault-${this.nextId++}`;
    const match = normaliseMatch(parsed);
    let action: FaultAction;
    switch (parsed.type) {
      case 'latency':
        action = { type: 'latency', ms: parsed.ms, ...(parsed.jitterMs !== undefined ? { jitterMs: parsed.jitterMs } : {}) };
        break;
      case 'error': {
        const error: FaultAction = { type: 'error', code: parsed.code };
        if (parsed.reason !== undefined) error.reason = parsed.reason;
        if (parsed.message !== undefined) error.message = parsed.message;
        if (parsed.retryAfterSeconds !== undefined) error.retryAfterSeconds = parsed.retryAfterSeconds;
        else if (parsed.code === 429) error.retryAfterSeconds = 1;
        if (parsed.echoToken === true) error.echoToken = true;
        action = error;
        break;
      }
      case 'hang':
        action = { type: 'hang', ...(parsed.page !== undefined ? { page: parsed.page } : {}) };
        break;
      case 'failPage':
        action = { type: 'failPage', page: parsed.page, code: parsed.code, ...(parsed.message !== undefined ? { message: parsed.message } : {}) };
        break;
      case 'reset':
        action = { type: 'reset', afterApply: parsed.afterApply, ...(parsed.page !== undefined ? { page: parsed.page } : {}) };
        break;
      case 'errorAfterApply': {
        const error: FaultAction = { type: 'errorAfterApply', code: parsed.code };
        if (parsed.reason !== undefined) error.reason = parsed.reason;
        if (parsed.message !== undefined) error.message = parsed.message;
        action = error;
        break;
      }
      case 'oversized':
        action = { type: 'oversized', bytes: parsed.bytes };
        break;
    }
    const rule: FaultRule = { ...action, ...match, id };
    if (parsed.count !== undefined) rule.count = parsed.count;
    if (parsed.probability !== undefined) rule.probability = parsed.probability;
    this.rules.push(rule);
    return id;
  }

  /** Removes one rule; returns whether it existed. */
  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length !== before;
  }

  /** Removes every fault rule. */
  clear(): void {
    this.rules = [];
  }

  /** Reseeds the PRNG used for `probability`. */
  setSeed(seed: number): void {
    this.seed = seed;
    this.random = seededRandom(seed);
  }

  /** Installed rules (with remaining counts). */
  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  /** Current PRNG seed. */
  get currentSeed(): number {
    return this.seed;
  }

  private fires(rule: FaultRule): boolean {
    if (rule.probability !== undefined && !(this.random() < rule.probability)) return false;
    if (rule.count !== undefined) {
      rule.count--;
      if (rule.count <= 0) this.remove(rule.id);
    }
    return true;
  }

  /** Decides what faults apply to a request (consuming counts of rules that fire). */
  evaluate(request: RequestInfo): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0, hang: false, error: undefined };
    for (const rule of [...this.rules]) {
      if (!requestMatches(rule, request)) continue;
      // `hang` and `reset` limited to one page of a list.
      if ((rule.type === 'hang' || rule.type === 'reset') && rule.page !== undefined && (request.verb !== 'list' || request.page !== rule.page)) continue;
      if (rule.type === 'latency') {
        if (this.fires(rule)) decision.latencyMs += rule.ms + (rule.jitterMs ? this.random() * rule.jitterMs : 0);
      } else if (rule.type === 'hang') {
        if (!decision.hang && decision.error === undefined && this.fires(rule)) decision.hang = true;
      } else if (rule.type === 'error') {
        if (!decision.hang && decision.error === undefined && this.fires(rule)) {
          const message = rule.echoToken === true ? echoToken(rule.message ?? 'Unauthorized: token {token} is invalid', request.token ?? '') : rule.message;
          const error = errorForCode(rule.code, message, rule.retryAfterSeconds);
          decision.error = rule.reason !== undefined
            ? new ApiError(error.code, rule.reason, error.message, error.details, error.headers)
            : error;
        }
      } else if (rule.type === 'oversized') {
        const streams = request.verb === 'list' || request.verb === 'watch';
        if (streams && !decision.hang && decision.error === undefined && decision.oversizedBytes === undefined && this.fires(rule)) decision.oversizedBytes = rule.bytes;
      } else if (rule.type === 'reset' || rule.type === 'errorAfterApply') {
        const open = !decision.hang && decision.error === undefined && decision.reset !== true && decision.afterApply === undefined;
        if (open && this.fires(rule)) {
          if (rule.type === 'reset' && !rule.afterApply) decision.reset = true;
          else if (rule.type === 'reset') decision.afterApply = 'reset';
          else {
            const error = errorForCode(rule.code, rule.message);
            decision.afterApply = rule.reason !== undefined ? new ApiError(error.code, rule.reason, error.message, error.details, error.headers) : error;
          }
        }
      } else if (request.verb === 'list' && request.page === rule.page) {
        if (!decision.hang && decision.error === undefined && this.fires(rule)) {
          decision.error = errorForCode(rule.code, rule.message ?? `injected failure of list page ${rule.page}`);
        }
      }
    }
    return decision;
  }

  /**
   * Replaces the RBAC configuration.
   * @throws ZodError when it is malformed.
   */
  setRbac(input: RbacConfigInput): void {
    this.rbacConfig = SimFaults.parseRbac(input);
  }

  /** Adds one deny rule, keeping the rest of the configuration. */
  deny(rule: RbacRuleInput): void {
    this.rbacConfig = { ...this.rbacConfig, deny: [...this.rbacConfig.deny, normaliseRbacRule(rbacRuleSchema.parse(rule))] };
  }

  /** Back to the configuration given at start (allow everything by default). */
  resetRbac(): void {
    this.rbacConfig = this.initialRbac;
  }

  /** The current RBAC configuration. */
  get rbac(): RbacConfig {
    return this.rbacConfig;
  }

  /** Whether the RBAC configuration allows a request (used for requests and SelfSubjectAccessReviews). */
  authorize(attrs: AuthzAttributes): AuthzDecision {
    const { allow, deny } = this.rbacConfig;
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

  /** Registers the function that drops watches (the server's watch hub). */
  attachWatchDropper(dropper: (resource: string | undefined, abrupt: boolean) => number): void {
    this.dropper = dropper;
  }

  /**
   * Closes every open watch (of one resource when given) now. Clean by default (the stream
   * ends); `abrupt` destroys the connections. Returns how many watches were dropped.
   */
  dropWatches(resource?: string, abrupt = false): number {
    return this.dropper ? this.dropper(resource, abrupt) : 0;
  }
}

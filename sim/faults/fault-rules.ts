/**
 * Fault injection rules (`POST /__sim/faults`, validated by the schemas here): latency, errors,
 * hangs, failed or reset list pages, connection resets and errors after a write has landed,
 * oversized answers; each limited to the requests it names, optionally to a number of firings or
 * a seeded probability. {@link decideFaults} turns the installed rules into what the router does
 * with one request.
 */
import { z } from 'zod';
import type { StatusReason } from '../status';
import { ApiError, errorForCode, STATUS_REASONS } from '../status';
import type { RequestInfo, RequestMatch } from './request-match';
import { normaliseMatch, requestMatches, stringOrList } from './request-match';

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

/** A fault rule as accepted by `SimFaults.add` and `POST /__sim/faults`. */
export type FaultRuleInput = z.input<typeof faultRuleInputSchema>;

/** Body of `POST /__sim/faults`. */
export const faultsRequestSchema = z.object({
  rules: z.array(faultRuleInputSchema).default([]),
  /** Replace the installed rules instead of adding to them. */
  replace: z.boolean().default(false),
  /** Reseed the PRNG used by `probability`. */
  seed: z.number().int().optional(),
});

/**
 * The installed form of a rule, with the id it gets.
 * @throws ZodError when the rule is malformed.
 */
export function faultRuleOf(input: FaultRuleInput, id: string): FaultRule {
  const parsed = faultRuleInputSchema.parse(input);
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
  return rule;
}

/** `message` with `{token}`, `{token:base64}` and `{token:url}` replaced by `token` in that form. */
function echoToken(message: string, token: string): string {
  return message
    .replaceAll('{token}', token)
    .replaceAll('{token:base64}', Buffer.from(token).toString('base64'))
    .replaceAll('{token:url}', encodeURIComponent(token));
}

/**
 * What the rules do to `request`, in installation order: latencies add up; the first hang, error,
 * oversized answer, reset or after-apply fault that fires wins its part. `fires` is asked only
 * for rules that apply (it consumes their counts and rolls their probabilities); `random` draws
 * latency jitter.
 */
export function decideFaults(rules: readonly FaultRule[], request: RequestInfo, fires: (rule: FaultRule) => boolean, random: () => number): FaultDecision {
  const decision: FaultDecision = { latencyMs: 0, hang: false, error: undefined };
  for (const rule of [...rules]) {
    if (!requestMatches(rule, request)) continue;
    // `hang` and `reset` limited to one page of a list.
    if ((rule.type === 'hang' || rule.type === 'reset') && rule.page !== undefined && (request.verb !== 'list' || request.page !== rule.page)) continue;
    if (rule.type === 'latency') {
      if (fires(rule)) decision.latencyMs += rule.ms + (rule.jitterMs ? random() * rule.jitterMs : 0);
    } else if (rule.type === 'hang') {
      if (!decision.hang && decision.error === undefined && fires(rule)) decision.hang = true;
    } else if (rule.type === 'error') {
      if (!decision.hang && decision.error === undefined && fires(rule)) {
        const message = rule.echoToken === true ? echoToken(rule.message ?? 'Unauthorized: token {token} is invalid', request.token ?? '') : rule.message;
        const error = errorForCode(rule.code, message, rule.retryAfterSeconds);
        decision.error = rule.reason !== undefined
          ? new ApiError(error.code, rule.reason, error.message, error.details, error.headers)
          : error;
      }
    } else if (rule.type === 'oversized') {
      const streams = request.verb === 'list' || request.verb === 'watch';
      if (streams && !decision.hang && decision.error === undefined && decision.oversizedBytes === undefined && fires(rule)) decision.oversizedBytes = rule.bytes;
    } else if (rule.type === 'reset' || rule.type === 'errorAfterApply') {
      const open = !decision.hang && decision.error === undefined && decision.reset !== true && decision.afterApply === undefined;
      if (open && fires(rule)) {
        if (rule.type === 'reset' && !rule.afterApply) decision.reset = true;
        else if (rule.type === 'reset') decision.afterApply = 'reset';
        else {
          const error = errorForCode(rule.code, rule.message);
          decision.afterApply = rule.reason !== undefined ? new ApiError(error.code, rule.reason, error.message, error.details, error.headers) : error;
        }
      }
    } else if (request.verb === 'list' && request.page === rule.page) {
      if (!decision.hang && decision.error === undefined && fires(rule)) {
        decision.error = errorForCode(rule.code, rule.message ?? `injected failure of list page ${rule.page}`);
      }
    }
  }
  return decision;
}

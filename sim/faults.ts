/**
 * Fault injection and RBAC for the simulator, changeable at runtime (programmatically or through
 * the `/__sim/` control endpoints): the state the router consults for every request — the
 * installed fault rules with their remaining counts and the seeded PRNG of their probabilities,
 * the RBAC configuration, and the hook that drops open watches.
 *
 * What the rules are and decide: sim/faults/fault-rules.ts (faults), sim/faults/rbac.ts (RBAC),
 * sim/faults/request-match.ts (which requests a rule names).
 */
import { z } from 'zod';
import { createSeededRandom } from '../lib/topology/analyses/seeded-random';
import type { AuthzAttributes } from './status';
import type { FaultDecision, FaultRule, FaultRuleInput } from './faults/fault-rules';
import { decideFaults, faultRuleOf } from './faults/fault-rules';
import type { AuthzDecision, RbacConfig, RbacConfigInput, RbacRuleInput } from './faults/rbac';
import { authorize, parseRbac, parseRbacRule } from './faults/rbac';
import type { RequestInfo } from './faults/request-match';

/** Body of `POST /__sim/watches/drop`. */
export const dropWatchesRequestSchema = z.object({
  resource: z.string().optional(),
  /** Destroy the sockets instead of ending the streams cleanly. */
  abrupt: z.boolean().default(false),
});

/** mulberry32: a small seeded PRNG returning floats in [0, 1) (shared with the analyses). */
export const seededRandom: (seed: number) => () => number = createSeededRandom;

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
    this.rbacConfig = parseRbac(options.rbac ?? {});
    this.initialRbac = this.rbacConfig;
    for (const rule of options.faults ?? []) this.add(rule);
  }

  /**
   * Installs a fault rule and returns its id.
   * @throws ZodError when the rule is malformed.
   */
  add(input: FaultRuleInput): string {
    // The id is taken only when the rule is valid.
    const rule = faultRuleOf(input, `fault-${this.nextId}`);
    this.nextId++;
    this.rules.push(rule);
    return rule.id;
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
    return decideFaults(this.rules, request, (rule) => this.fires(rule), () => this.random());
  }

  /**
   * Replaces the RBAC configuration.
   * @throws ZodError when it is malformed.
   */
  setRbac(input: RbacConfigInput): void {
    this.rbacConfig = parseRbac(input);
  }

  /** Adds one deny rule, keeping the rest of the configuration. */
  deny(rule: RbacRuleInput): void {
    this.rbacConfig = { ...this.rbacConfig, deny: [...this.rbacConfig.deny, parseRbacRule(rule)] };
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
    return authorize(this.rbacConfig, attrs);
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

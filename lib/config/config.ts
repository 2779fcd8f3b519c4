/**
 * The configuration schema: one zod object with a field per variable of ./variables.ts, each
 * reading its text with its kind (./kinds.ts). {@link parseConfig} reads an environment into a
 * typed {@link Config} or lists every value it cannot use, each message naming the variable and
 * what it accepts. Pure: the environment is a parameter (./process-config.ts reads the process').
 */
import { z } from 'zod';

import type { Config, VariableName } from './variables';
import { VARIABLE_NAMES, VARIABLES } from './variables';


/** An environment: `process.env`, or a test's. */
export type Env = Readonly<Record<string, string | undefined>>;

/** One value that cannot be used. */
export interface ConfigIssue {
  readonly variable: VariableName;
  /** One sentence naming the variable and what it accepts. */
  readonly message: string;
}

/** What {@link parseConfig} finds. */
export type ConfigResult =
  | { readonly ok: true; readonly config: Config; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly errors: readonly ConfigIssue[]; readonly warnings: readonly string[] };

function field(name: VariableName): z.ZodType<unknown, string | undefined> {
  const kind = VARIABLES[name].kind as { read: (text: string | undefined, name: string) => { ok: true; value: unknown } | { ok: false; message: string } };
  return z
    .string({ error: `${name} must be text.` })
    .optional()
    .transform((raw, ctx) => {
      const read = kind.read(raw === undefined || raw.trim() === '' ? undefined : raw, name);
      if (read.ok) return read.value;
      ctx.issues.push({ code: 'custom', message: read.message, input: raw });
      return z.NEVER;
    });
}

/** The schema: a field per variable, reading its text (`undefined` or blank: unset). */
export const configSchema = z.object(Object.fromEntries(VARIABLE_NAMES.map((name) => [name, field(name)]))) as unknown as z.ZodType<Config, Partial<Record<VariableName, string>>>;

/** Settings that are fine alone but not together. */
function conflicts(config: Config): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (config.ZONESCOPE_PRICE_PER_GB !== undefined && config.ZONESCOPE_CROSS_ZONE_PRICE !== null) {
    out.push({
      variable: 'ZONESCOPE_PRICE_PER_GB',
      message: 'ZONESCOPE_PRICE_PER_GB and ZONESCOPE_CROSS_ZONE_PRICE are both set: set only ZONESCOPE_CROSS_ZONE_PRICE (ZONESCOPE_PRICE_PER_GB=N is ZONESCOPE_CROSS_ZONE_PRICE=N/GB x2).',
    });
  }
  if (config.ZONESCOPE_AUTH_PROXY && config.ZONESCOPE_AUTH_PROXY_SECRET_FILE === undefined) {
    out.push({
      variable: 'ZONESCOPE_AUTH_PROXY_SECRET_FILE',
      message:
        'ZONESCOPE_AUTH_PROXY is on but ZONESCOPE_AUTH_PROXY_SECRET_FILE is not set: anyone who reaches the server directly could send a user header. ' +
        'Put a random secret in a file (`openssl rand -hex 32`, from a Kubernetes Secret volume), set ZONESCOPE_AUTH_PROXY_SECRET_FILE to it, ' +
        'and have the proxy send it in the X-Zonescope-Proxy-Secret header (docs/security.md).',
    });
  }
  return out;
}

const KNOWN = new Set<string>(VARIABLE_NAMES);

/** The closest known name to a misspelt `ZONESCOPE_*` variable, when one is close. */
function suggestion(name: string): string | null {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let previous = row[0] ?? 0;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const here = row[j] ?? 0;
        row[j] = Math.min(here + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
        previous = here;
      }
    }
    return row[b.length] ?? Infinity;
  };
  let best: string | null = null;
  let bestDistance = 4;
  for (const known of VARIABLE_NAMES) {
    const d = distance(name, known);
    if (d < bestDistance) [best, bestDistance] = [known, d];
  }
  return best;
}

/** One warning per `ZONESCOPE_*` variable that zonescope does not know (a typo is otherwise silently ignored). */
function unknownVariables(env: Env): string[] {
  const out: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('ZONESCOPE_') || KNOWN.has(name) || env[name] === undefined) continue;
    const near = suggestion(name);
    out.push(`${name} is not a zonescope setting and is ignored${near !== null ? ` (did you mean ${near}?)` : ''}; docs/configuration.md lists them.`);
  }
  return out;
}

/**
 * Reads `env` into a {@link Config}: every variable of the table, blank counting as unset, defaults
 * applied. Fails with every value it cannot use (and conflicting settings); warns of unknown
 * `ZONESCOPE_*` names. Never throws.
 */
export function parseConfig(env: Env): ConfigResult {
  const input: Record<string, string | undefined> = {};
  for (const name of VARIABLE_NAMES) input[name] = env[name];
  const warnings = unknownVariables(env);
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue): ConfigIssue => ({ variable: String(issue.path[0]) as VariableName, message: issue.message }));
    return { ok: false, errors, warnings };
  }
  const clashes = conflicts(parsed.data);
  return clashes.length > 0 ? { ok: false, errors: clashes, warnings } : { ok: true, config: parsed.data, warnings };
}

/** The configuration cannot be used: its message lists every problem, one per line. */
export class ConfigError extends Error {
  constructor(readonly issues: readonly ConfigIssue[]) {
    super(formatConfigErrors(issues));
    this.name = 'ConfigError';
  }
}

/** What to print when the configuration cannot be used: a heading and one line per problem. */
export function formatConfigErrors(issues: readonly ConfigIssue[]): string {
  const lines = issues.map((issue) => `  - ${issue.message}`);
  return [`zonescope cannot start: ${issues.length === 1 ? 'an environment variable has a value' : `${issues.length} environment variables have values`} it cannot use (docs/configuration.md lists them all):`, ...lines].join('\n');
}

/** {@link parseConfig}, throwing a {@link ConfigError} when a value cannot be used (tests; an environment built in code). */
export function configFromEnv(env: Env): Config {
  const result = parseConfig(env);
  if (!result.ok) throw new ConfigError(result.errors);
  return result.config;
}

/** The configuration of an empty environment: every default. */
export function defaultConfig(): Config {
  return configFromEnv({});
}

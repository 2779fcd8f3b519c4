/**
 * The process' configuration: `process.env` read with the schema (./config.ts). The entry points
 * check it before anything starts — the dashboard server in `instrumentation.ts`, `npm start`,
 * `npm run demo`, `npm run analyze` — and stop with {@link formatConfigErrors}'s message when a
 * value cannot be used; everything else asks {@link getConfig}.
 *
 * Read once and kept (on `globalThis`, shared by every bundle of the server). Under vitest only
 * (`VITEST` set when this module loads), it is read again when one of the variables changed, so a
 * test can set a variable and start a server in-process; a running dashboard never re-reads it.
 *
 * Server side only: it reads `process.env`. A `'use client'` module never imports it (a client
 * component gets the values it shows as props from its server component).
 */
import type { Config } from './variables';
import type { ConfigResult } from './config';
import { ConfigError, parseConfig } from './config';
import { VARIABLE_NAMES } from './variables';

const KEY = Symbol.for('zonescope.config');

/** Tests change variables between cases; nothing else does. */
const UNDER_TEST = process.env.VITEST !== undefined;

interface Held {
  readonly fingerprint: string;
  readonly result: ConfigResult;
}

type Holder = { [KEY]?: Held };

/** The raw values of every known variable, joined: equal as long as none changed. */
function fingerprint(env: NodeJS.ProcessEnv): string {
  let out = '';
  for (const name of VARIABLE_NAMES) out += `${env[name] ?? '\u0000'}\u0001`;
  return out;
}

/** {@link parseConfig} of `process.env`, kept while it does not change. */
export function processConfigResult(): ConfigResult {
  const holder = globalThis as unknown as Holder;
  let held = holder[KEY];
  if (held !== undefined && !UNDER_TEST) return held.result;
  const now = fingerprint(process.env);
  if (held === undefined || held.fingerprint !== now) {
    held = { fingerprint: now, result: parseConfig(process.env) };
    holder[KEY] = held;
  }
  return held.result;
}

/**
 * The process' configuration. Throws a {@link ConfigError} (every problem, one per line) when a
 * value cannot be used — which a started server never meets: its start stopped on it.
 */
export function getConfig(): Config {
  const result = processConfigResult();
  if (!result.ok) throw new ConfigError(result.errors);
  return result.config;
}

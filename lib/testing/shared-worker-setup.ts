/**
 * Runs before each unit and integration test file. Both tiers run files without isolation
 * (vitest.config.ts: `isolate: false`), so the files one worker runs share one module graph and
 * one `globalThis`: importing the project once per worker instead of once per file (unit 58 → 23 s,
 * integration 177 → 113 s on 2 cores). Each file still starts from what a fresh process would
 * give it:
 * - the environment as the worker started with it (a file that set a variable and failed before
 *   putting it back does not leak it);
 * - no process-wide holder (`globalThis[Symbol.for('zonescope.…')]`: the cluster sources, the
 *   configuration, caches of the server and the views): each file builds its own on first use;
 * - empty intern tables (lib/k8s/intern.ts counts what it holds), and no remembered credential
 *   (lib/k8s/redact.ts);
 * - real timers, no stubbed global or environment variable, no spy left from an earlier file.
 * Runs of both tiers in shuffled file orders (`--sequence.shuffle.files --sequence.seed N`) pass;
 * run them that way after adding process-wide state.
 */
import { beforeAll, vi } from 'vitest';
import { resetInternTables } from '../k8s/intern';
import { forgetSecrets } from '../k8s/redact';

const STARTING_ENV: Readonly<Record<string, string | undefined>> = { ...process.env };

beforeAll(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  for (const key of Object.keys(process.env)) if (!(key in STARTING_ENV)) Reflect.deleteProperty(process.env, key);
  for (const [key, value] of Object.entries(STARTING_ENV)) if (value !== undefined) process.env[key] = value;
  for (const symbol of Object.getOwnPropertySymbols(globalThis)) {
    if (Symbol.keyFor(symbol)?.startsWith('zonescope.')) Reflect.deleteProperty(globalThis, symbol);
  }
  resetInternTables();
  forgetSecrets();
});

/**
 * `npm start` as a user runs it (`MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} node --max-semi-space-size=32 scripts/start.mjs`, package.json),
 * for the failures that stop it before a server is loaded: a bad command line exits 2, a missing
 * build exits 1, each with one clear line on stderr and nothing on stdout. Starting a real build
 * is the e2e suite's: playwright.config.ts runs the dashboard the same way, and e2e/start.spec.ts
 * reads its ready line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { serverEnv, serverEnvPrefix } from './node-flags';

const ROOT = path.resolve(__dirname, '..');
const empty = mkdtempSync(path.join(tmpdir(), 'zonescope-start-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

/** `npm start`'s command line, from package.json (so this runs what users run). */
function startCommand(): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  // The environment prefix (two malloc arenas) goes into the child's environment below.
  const [prefix, node, ...args] = (scripts.start ?? '').split(' ');
  expect(prefix).toBe(serverEnvPrefix());
  expect(node).toBe('node');
  return args;
}

function start(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...startCommand(), ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...serverEnv(env), ...env } as unknown as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm start, stopping before the server', () => {
  it('exits 2 on an unknown argument or a bad port, saying what it takes', async () => {
    expect(await start(['--turbo'], {})).toEqual({ code: 2, stdout: '', stderr: 'npm start: unknown argument "--turbo" (npm start takes -p/--port and -H/--hostname)\n' });
    expect(await start([], { PORT: 'http' })).toEqual({ code: 2, stdout: '', stderr: 'npm start: PORT must be a port number (1–65535), not "http"\n' });
  });

  it('exits 1 without a production build, saying to build first', async () => {
    const dist = path.join(empty, 'no-build');
    expect(await start([], { ZONESCOPE_DIST_DIR: dist })).toEqual({ code: 1, stdout: '', stderr: `npm start: there is no production build in ${path.relative(ROOT, dist)} (no standalone/server.js): run npm run build first\n` });
  });
});

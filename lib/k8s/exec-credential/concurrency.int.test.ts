/**
 * Many clusters opened together (the Fleet page, `analyze --all-contexts`) must not start every
 * cluster's credential plugin at once: at most MAX_CONCURRENT_PLUGINS run, the rest wait.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_CONCURRENT_PLUGINS, runPlugin } from './run-plugin';
import type { Run } from './run-plugin';

const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-plugins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('credential plugins of many clusters', () => {
  it(`run at most ${MAX_CONCURRENT_PLUGINS} at a time, and every one answers`, async () => {
    const marks = path.join(dir, 'running');
    const plugin = path.join(dir, 'slow-plugin.mjs');
    // Marks itself running (a file per process), counts the marks, answers after 300 ms.
    writeFileSync(
      plugin,
      [
        `import { readdirSync, mkdirSync, writeFileSync, rmSync, appendFileSync } from 'node:fs';`,
        `const marks = ${JSON.stringify(marks)};`,
        `mkdirSync(marks, { recursive: true });`,
        `const me = marks + '/' + process.pid;`,
        `writeFileSync(me, '');`,
        `appendFileSync(${JSON.stringify(path.join(dir, 'seen'))}, readdirSync(marks).length + '\\n');`,
        `setTimeout(() => {`,
        `  rmSync(me);`,
        `  process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'token-' + process.pid } }));`,
        `}, 300);`,
      ].join('\n'),
    );
    const exec = { command: process.execPath, args: [plugin], env: [], apiVersion: 'client.authentication.k8s.io/v1', installHint: null, interactiveMode: 'Never', provideClusterInfo: false } as const;
    const run = (): Run => ({ done: Promise.resolve() as never, prompt: null, promptListeners: new Set(), startedAt: Date.now() });
    const credentials = await Promise.all(
      Array.from({ length: 10 }, (_, i) => runPlugin({ exec, userName: `cluster-${i}`, command: 'slow-plugin', timeoutMs: 30_000, env: process.env, cluster: null }, run())),
    );
    expect(credentials.every((c) => c.token?.startsWith('token-'))).toBe(true);
    const seen = readFileSync(path.join(dir, 'seen'), 'utf8').trim().split('\n').map(Number);
    expect(seen).toHaveLength(10);
    expect(Math.max(...seen)).toBeLessThanOrEqual(MAX_CONCURRENT_PLUGINS);
    expect(readdirSync(marks)).toEqual([]);
  }, 30_000);
});

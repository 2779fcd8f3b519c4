/**
 * A credential plugin runs in its own process group (so a time-out stops whatever it started),
 * which also means it does not die with zonescope. When the process exits while a plugin is still
 * running (a login waiting, a hung helper), the plugin's group is killed, not left orphaned.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForAsync } from '../../../sim/test-support';

const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-orphans-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a credential plugin still running when zonescope exits', () => {
  it('is killed with its process group, not orphaned', async () => {
    const pidFile = path.join(dir, 'plugin.pid');
    const plugin = path.join(dir, 'hung-plugin.mjs');
    // A plugin that never answers (a login nobody completes). Its pid file appears whole (written
    // aside, then renamed): the driver exits as soon as the file exists, and an empty file read as
    // pid 0 made the wait below watch the test's own process group.
    writeFileSync(
      plugin,
      `import { renameSync, writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(`${pidFile}.tmp`)}, String(process.pid));\nrenameSync(${JSON.stringify(`${pidFile}.tmp`)}, ${JSON.stringify(pidFile)});\nsetInterval(() => undefined, 1000);\n`,
    );
    const driver = path.join(dir, 'driver.ts');
    const runPluginModule = path.resolve(import.meta.dirname, 'run-plugin.ts');
    writeFileSync(
      driver,
      [
        `import { existsSync } from 'node:fs';`,
        `import { runPlugin } from ${JSON.stringify(runPluginModule)};`,
        `const exec = { command: process.execPath, args: [${JSON.stringify(plugin)}], env: [], apiVersion: 'client.authentication.k8s.io/v1', installHint: null, interactiveMode: 'Never', provideClusterInfo: false } as const;`,
        `const run = { done: Promise.resolve() as never, prompt: null, promptListeners: new Set<() => void>(), startedAt: Date.now() };`,
        `runPlugin({ exec, userName: 'u', command: 'hung-plugin', timeoutMs: 60_000, env: process.env, cluster: null }, run).catch(() => undefined);`,
        // Exits (as the CLI does when it is done) once the plugin is running.
        `const timer = setInterval(() => { if (existsSync(${JSON.stringify(pidFile)})) { clearInterval(timer); process.exit(0); } }, 20);`,
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', driver], { cwd: path.resolve(import.meta.dirname, '../../..'), stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(existsSync(pidFile)).toBe(true);
    const pluginPid = Number(readFileSync(pidFile, 'utf8'));
    expect(pluginPid).toBeGreaterThan(0);
    await waitForAsync(async () => !alive(pluginPid), 5000, `the plugin (pid ${pluginPid}) to be gone`);
  }, 30_000);
});

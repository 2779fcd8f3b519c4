/**
 * `npm start` as the suite runs the dashboard (playwright.config.ts: scripts/start.mjs on the
 * production build): one Node process serves it, with no wrapper or child process around it, and
 * it says when it is ready, on the address to open. (Next.js renames the process `next-server`:
 * it is found by the port it listens on.)
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from './fixtures';
import { APP_PORT, DASHBOARD_LOG } from './clusters';

/** The socket inode listening on 127.0.0.1:`port` (`/proc/net/tcp`), `null` when none. */
function listeningInode(port: number): string | null {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local_address rem_address st (0A = LISTEN) … inode
    if (fields[1] === local && fields[3] === '0A') return fields[9] ?? null;
  }
  return null;
}

/** The processes holding socket `inode` open. */
function holders(inode: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readdirSync(`/proc/${pid}/fd`).some((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`);
      } catch {
        return false; // gone, or not ours to read
      }
    });
}

/** Processes whose parent is `pid`. */
function children(pid: string): string[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter((c) => c.trim() !== ''));
}

function parentOf(pid: string): string {
  return /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
}

function commandLine(pid: string): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
}

test('npm start serves the dashboard from one Node process and prints its ready line', async ({ request }) => {
  test.skip(process.platform !== 'linux', 'reads /proc');
  const log = path.join(__dirname, '..', DASHBOARD_LOG);
  await expect.poll(() => readFileSync(log, 'utf8').split('\n')).toContain(`zonescope is ready on http://127.0.0.1:${APP_PORT}`);
  const live = await request.get('/api/health/live');
  expect(live.status()).toBe(200);
  // Idle connections are kept 65 s (KEEP_ALIVE_TIMEOUT), not Node's 5 s: longer than a load balancer's 60.
  expect(live.headers()['keep-alive']).toBe('timeout=65');

  const inode = listeningInode(APP_PORT);
  expect(inode, `a socket listening on 127.0.0.1:${APP_PORT}`).not.toBeNull();
  const servers = holders(inode ?? '');
  expect(servers, 'one process listens').toHaveLength(1);
  const [server] = servers as [string];
  expect(path.basename(readlinkSync(`/proc/${server}/exe`))).toBe('node');
  expect(children(server), 'the server starts no child process').toEqual([]);
  // Nothing of npm start's in front of it (no tsx, no start script waiting on it).
  expect(commandLine(parentOf(server))).not.toMatch(/scripts\/start|tsx/);
});

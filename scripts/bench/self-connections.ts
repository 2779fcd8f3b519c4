/**
 * TCP connections a process holds to its own listening port, read from /proc: how a server that
 * answers some requests by sending them to itself over HTTP shows from outside (issue 29: `/c/{id}`
 * was served that way whenever the dashboard listened on loopback; docs/fleet.md). A request
 * served in the process opens none. Linux only: `null` where /proc cannot be read.
 *
 * Used by the cluster-routing benchmark (scripts/bench/cluster-routing.ts, which knows its server's
 * pid), by e2e/cluster-routing.spec.ts (which finds the dashboard by its listening socket), and by
 * the fleet benchmark ({@link establishedTo}: connections to a simulator).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** One row of `/proc/net/tcp` or `tcp6`. */
interface TcpRow {
  readonly localPort: number;
  readonly remotePort: number;
  /** The kernel's state code: `01` established, `0A` listening. */
  readonly state: string;
  readonly inode: string;
}

const ESTABLISHED = '01';
const LISTEN = '0A';

/** Every IPv4 and IPv6 TCP socket of this network namespace, `null` when neither table can be read. */
function tcpRows(): TcpRow[] | null {
  const rows: TcpRow[] = [];
  let readAny = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    readAny = true;
    for (const line of text.split('\n').slice(1)) {
      // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode"
      const fields = line.trim().split(/\s+/);
      const [, local, remote, state, , , , , , inode] = fields;
      if (local === undefined || remote === undefined || state === undefined || inode === undefined) continue;
      const port = (address: string) => Number.parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
      rows.push({ localPort: port(local), remotePort: port(remote), state, inode });
    }
  }
  return readAny ? rows : null;
}

/** The socket inodes among a process's open files; `null` when its fd folder cannot be read. */
function socketInodes(pid: number): Set<string> | null {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  const inodes = new Set<string>();
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // Closed meanwhile.
    }
  }
  return inodes;
}

/** Established TCP connections from this machine to `port` (any process), `null` off Linux. */
export function establishedTo(port: number): number | null {
  const rows = tcpRows();
  return rows === null ? null : rows.filter((row) => row.state === ESTABLISHED && row.remotePort === port).length;
}

/**
 * Established connections that process `pid` opened to `port` — for a server listening on `port`,
 * the connections it made to itself (the ones it accepted have `port` as their local port and are
 * not counted). `null` off Linux or when the process cannot be inspected.
 */
export function selfConnections(pid: number, port: number): number | null {
  const inodes = socketInodes(pid);
  const rows = tcpRows();
  if (inodes === null || rows === null) return null;
  return rows.filter((row) => row.state === ESTABLISHED && row.remotePort === port && inodes.has(row.inode)).length;
}

/** The process listening on TCP `port` (one of this user's), `null` when none is found. */
export function listeningPid(port: number): number | null {
  const listening = new Set((tcpRows() ?? []).filter((row) => row.state === LISTEN && row.localPort === port).map((row) => row.inode));
  if (listening.size === 0) return null;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  for (const pid of pids) {
    const inodes = socketInodes(Number(pid));
    if (inodes !== null && [...listening].some((inode) => inodes.has(inode))) return Number(pid);
  }
  return null;
}

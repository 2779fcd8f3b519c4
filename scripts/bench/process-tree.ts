/**
 * What /proc says of a process and everything it spawned (the production server is `next start`
 * with its workers): the process tree, resident memory now (VmRSS) and at its peak (VmHWM), and
 * CPU time. Linux only; a process gone meanwhile counts 0.
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The fields of `/proc/PID/stat` after the parenthesised command name (which may contain spaces):
 * index 0 is field 3 (state), 1 is field 4 (ppid), 11 and 12 are fields 14 and 15 (utime, stime),
 * 17 is field 20 (threads). `null` when the process is gone or /proc is not readable.
 */
export function statFields(pid: number | string): string[] | null {
  return processStat(pid)?.fields ?? null;
}

/** `/proc/PID/stat` read once: the command name (between the parentheses) and {@link statFields}' fields. */
function processStat(pid: number | string): { readonly name: string; readonly fields: string[] } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/** User + system CPU (every thread) of {@link statFields}' fields, in ms. */
function cpuMsOf(fields: readonly string[]): number {
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/** `pid` and all its descendants (from /proc). */
export function processTree(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // `null`: the process ended while we looked.
    const fields = statFields(entry);
    if (fields !== null) parentOf.set(Number(entry), Number(fields[1]));
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parentOf) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** A `/proc/PID/status` field in KiB (0 when the process is gone). */
function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** VmRSS of one process in KiB (0 when it is gone). */
export function rssKiB(pid: number): number {
  return statusKiB(pid, 'VmRSS');
}

/** VmHWM (peak resident set since the process started) of one process in KiB (0 when it is gone). */
export function hwmKiB(pid: number): number {
  return statusKiB(pid, 'VmHWM');
}

/**
 * Peak resident memory of `pid` and its descendants, in MiB: the sum of each process's VmHWM
 * (an upper bound of the tree's peak: the processes need not have peaked at the same moment).
 */
export function treeHwmMiB(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + hwmKiB(p), 0) / 1024;
}

/** Resident memory of `pid` and its descendants, in MiB. */
export function treeRssMiB(pid: number): { total: number; processes: number } {
  const tree = processTree(pid);
  const kib = tree.reduce((sum, p) => sum + rssKiB(p), 0);
  return { total: kib / 1024, processes: tree.length };
}

/** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** CPU time (user + system, every thread: zlib runs on the thread pool) of `pid` and its descendants in ms; 0 where /proc is not readable. */
export function treeCpuMs(pid: number): number {
  let ms = 0;
  for (const p of processTree(pid)) {
    // Gone meanwhile: nothing to add.
    const fields = statFields(p);
    if (fields !== null) ms += cpuMsOf(fields);
  }
  return ms;
}

/** What {@link processCpuTimes} holds per process: its command name (as /proc/PID/stat spells it) and CPU time so far. */
export interface ProcessCpu {
  readonly name: string;
  /** User + system CPU of every thread, in ms. */
  readonly cpuMs: number;
}

/** CPU time so far of every process /proc lists now (kernel threads included), by PID; empty where /proc is not readable. */
export function processCpuTimes(): Map<number, ProcessCpu> {
  const times = new Map<number, ProcessCpu>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return times;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    // `null`: the process ended while we looked.
    const stat = processStat(entry);
    if (stat !== null) times.set(Number(entry), { name: stat.name, cpuMs: cpuMsOf(stat.fields) });
  }
  return times;
}

/** A process and the CPU it used between two {@link processCpuTimes} samples. */
export interface BusyProcess {
  readonly pid: number;
  readonly name: string;
  readonly cpuMs: number;
}

/**
 * The `count` processes other than `self` that used the most CPU between `before` and `after`
 * (a process started meanwhile counts all its time; one that ended is not in `after` and is
 * missed), most first, those that used none left out: who else had the cores while a phase was timed.
 */
export function busiestBetween(before: ReadonlyMap<number, ProcessCpu>, after: ReadonlyMap<number, ProcessCpu>, self: number, count = 3): BusyProcess[] {
  const busy: BusyProcess[] = [];
  for (const [pid, now] of after) {
    if (pid === self) continue;
    const then = before.get(pid);
    // A PID reused by another command is a new process.
    const used = now.cpuMs - (then !== undefined && then.name === now.name ? then.cpuMs : 0);
    if (used > 0) busy.push({ pid, name: now.name, cpuMs: used });
  }
  return busy.sort((a, b) => b.cpuMs - a.cpuMs || a.pid - b.pid).slice(0, count);
}

/**
 * Runs `work` with the process tree of `pid` stopped (SIGSTOP), resumed (SIGCONT) afterwards,
 * whatever `work` does: a phase that times the engine alone keeps the dashboard's own timers and
 * collections off the cores. Processes gone meanwhile are skipped.
 */
export async function whileStopped<T>(pid: number, work: () => Promise<T>): Promise<T> {
  const tree = processTree(pid);
  signalEach(tree, 'SIGSTOP');
  try {
    return await work();
  } finally {
    signalEach(tree, 'SIGCONT');
  }
}

/**
 * Resumes (SIGCONT) the process tree of `pid`: after a child that stopped it with
 * {@link whileStopped} ended, however it ended (a child killed on its timeout resumes nothing).
 * A tree that was not stopped is left as it was.
 */
export function resumeTree(pid: number): void {
  signalEach(processTree(pid), 'SIGCONT');
}

function signalEach(pids: readonly number[], name: 'SIGSTOP' | 'SIGCONT'): void {
  for (const member of pids) {
    try {
      process.kill(member, name);
    } catch {
      // Gone already.
    }
  }
}

/**
 * The whole machine's CPU time so far from /proc/stat's first line, in ms summed over every core:
 * `busyMs` everything but idle and I/O wait (steal excluded), `stealMs` what the hypervisor gave
 * to other guests while this one wanted to run. `null` where /proc/stat is not readable.
 */
export function machineCpuMs(): { readonly busyMs: number; readonly stealMs: number } | null {
  let line: string;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  } catch {
    return null;
  }
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user).
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (ticks.length < 8 || ticks.some(Number.isNaN)) return null;
  const [user, nice, system, , , irq, softirq, steal] = ticks as [number, number, number, number, number, number, number, number];
  return { busyMs: ((user + nice + system + irq + softirq) * 1000) / USER_HZ, stealMs: (steal * 1000) / USER_HZ };
}

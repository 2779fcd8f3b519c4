/**
 * One run of a credential plugin: the command started non-interactively — its own process group and
 * session (no terminal to prompt on), `KUBERNETES_EXEC_INFO` saying `interactive: false` — within a
 * time limit, its stdout bounded and read as an ExecCredential. A login prompt it prints (a URL, a
 * device code) is told to the waiting callers; every failure is an error that says what to run.
 */
import { spawn } from 'node:child_process';
import type { Cluster } from '@kubernetes/client-node';
import type { KubeRequestError } from '../errors';
import { redact, rememberSecret } from '../redact';
import type { ExecCredential } from './credential';
import { parseExecCredential } from './credential';
import type { ExecConfig } from './exec-config';
import { credentialError, excerpt, execHint, loginPrompt, sentence } from './messages';

/** Most stdout (the ExecCredential JSON) read from a plugin. */
const MAX_STDOUT_BYTES = 1 << 20;
/** Most stderr kept from a plugin (for its message and login prompts). */
const MAX_STDERR_CHARS = 64 * 1024;
/** A login prompt counts once the plugin is still running this long after printing it (a URL in a warning of a plugin that then exits is not one). */
const PROMPT_GRACE_MS = 500;

/**
 * The process groups of plugins still running. A plugin runs in its own process group (see
 * {@link runPlugin}), so it does not die with zonescope: when the process exits (the CLI done, the
 * server stopped) while one is still running — a login waiting, a hung helper — the exit hook
 * kills its group rather than leaving it orphaned.
 */
const runningGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pid: number): void {
  runningGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const group of runningGroups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });
}

/** One run of the plugin, shared by every caller waiting for it. */
export interface Run {
  /** Settles with the credential or the error (a catch handler is always attached). */
  done: Promise<ExecCredential>;
  /** The login prompt the plugin printed, once it did. */
  prompt: string | null;
  /** Called once when a prompt is seen. */
  readonly promptListeners: Set<() => void>;
  readonly startedAt: number;
}

/** What a run needs to know. */
export interface PluginSpec {
  readonly exec: ExecConfig;
  /** The kubeconfig user the plugin serves (for messages). */
  readonly userName: string;
  /** The command line for messages (see `describeCommand`). */
  readonly command: string;
  /** Time limit of the run in ms. */
  readonly timeoutMs: number;
  /** Environment the plugin inherits. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The cluster, for `provideClusterInfo`. */
  readonly cluster: Cluster | null;
}

/**
 * Plugins run at once in this process, at most. Opening many clusters together (the Fleet page,
 * `analyze --all-contexts`) would otherwise start every cluster's plugin in the same second — 20
 * `aws eks get-token` processes within a second at a limit of 30 open clusters, each a Python
 * interpreter and an STS call. The rest wait their turn; each run's time limit starts when it starts.
 */
export const MAX_CONCURRENT_PLUGINS = 4;
let runningPlugins = 0;
const waitingForSlot: (() => void)[] = [];

function pluginSlot(): Promise<void> {
  if (runningPlugins < MAX_CONCURRENT_PLUGINS) {
    runningPlugins++;
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    waitingForSlot.push(() => {
      runningPlugins++;
      resolve();
    });
  });
}

function releasePluginSlot(): void {
  runningPlugins--;
  waitingForSlot.shift()?.();
}

/**
 * Runs the plugin once (when one of the {@link MAX_CONCURRENT_PLUGINS} slots is free); resolves
 * with its credential (remembered by the redactor) or rejects with a `KubeRequestError` saying
 * what failed and what to run. Sets `run.prompt` (and calls its listeners) once the plugin waits
 * for a login.
 */
export async function runPlugin(spec: PluginSpec, run: Run): Promise<ExecCredential> {
  await pluginSlot();
  try {
    return await runPluginNow(spec, run);
  } finally {
    releasePluginSlot();
  }
}

function runPluginNow(spec: PluginSpec, run: Run): Promise<ExecCredential> {
  const exec = spec.exec;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec.env)) if (value !== undefined) env[key] = value;
  for (const entry of exec.env) env[entry.name] = entry.value;
  env.KUBERNETES_EXEC_INFO = JSON.stringify(execInfo(exec, spec.cluster));
  return new Promise<ExecCredential>((resolve, reject) => {
    let stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let timedOut = false;
    let tooLarge = false;
    let settled = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    let exitTimer: ReturnType<typeof setTimeout> | undefined;
    let promptTimer: ReturnType<typeof setTimeout> | undefined;
    // Its own process group and session (no controlling terminal: it cannot prompt on /dev/tty),
    // so that a time-out stops it together with whatever it started.
    const group = process.platform !== 'win32';
    const child = spawn(exec.command, [...exec.args], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, detached: group });
    const pid = child.pid;
    if (group && pid !== undefined) trackGroup(pid);
    const finish = (outcome: { credential: ExecCredential } | { error: KubeRequestError }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer !== undefined) clearTimeout(killTimer);
      if (exitTimer !== undefined) clearTimeout(exitTimer);
      if (promptTimer !== undefined) clearTimeout(promptTimer);
      if ('credential' in outcome) resolve(outcome.credential);
      else reject(outcome.error);
    };
    const signal = (name: NodeJS.Signals): void => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, name);
        else child.kill(name);
      } catch {
        child.kill(name); // the group is gone already
      }
    };
    const kill = (): void => {
      signal('SIGTERM');
      killTimer = setTimeout(() => signal('SIGKILL'), 1000);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, spec.timeoutMs);
    const seePrompt = (text: string): void => {
      if (run.prompt !== null || promptTimer !== undefined) return;
      const prompt = loginPrompt(text);
      if (prompt === null) return;
      promptTimer = setTimeout(() => {
        if (settled) return;
        run.prompt = prompt;
        for (const listener of [...run.promptListeners]) listener();
      }, PROMPT_GRACE_MS);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_STDOUT_BYTES) {
        if (!tooLarge) {
          tooLarge = true;
          stdout = [];
          kill();
        }
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk.slice(0, MAX_STDERR_CHARS - stderr.length);
      seePrompt(stderr);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      const code = typeof error.code === 'string' ? error.code : 'unknown error';
      if (code === 'ENOENT') {
        finish({ error: credentialError(`The credential plugin "${redact(exec.command)}" was not found (ENOENT); the kubeconfig user "${redact(spec.userName)}" needs it to get credentials. ${sentence(execHint(exec, 'not-found'))}`) });
      } else if (code === 'EACCES') {
        finish({ error: credentialError(`The credential plugin "${redact(exec.command)}" cannot be run (EACCES): make it executable for the user zonescope runs as.`) });
      } else {
        finish({ error: credentialError(`The credential plugin "${spec.command}" could not be started (${/^[A-Z0-9_]{2,40}$/.test(code) ? code : 'error'}).`) });
      }
    });
    const ended = (code: number | null, signal: NodeJS.Signals | null): void => {
      const own = excerpt(stderr);
      const said = own === '' ? '' : `: ${sentence(own)}`;
      if (timedOut) {
        const printed = run.prompt !== null ? ` It printed: "${run.prompt}".` : '';
        finish({
          error: credentialError(
            `The credential plugin "${spec.command}" did not finish within ${Math.round(spec.timeoutMs / 1000)} s; it is probably waiting for an interactive login, which zonescope cannot answer.${printed} ` +
              `Log in first in a terminal: ${sentence(execHint(exec, 'login'))}`,
          ),
        });
        return;
      }
      if (tooLarge) {
        finish({ error: credentialError(`The credential plugin "${spec.command}" printed more than ${MAX_STDOUT_BYTES >> 20} MiB; it was stopped.`) });
        return;
      }
      if (code !== 0) {
        const how = code === null ? `was killed (${signal ?? 'signal'})` : `failed (exit code ${code})`;
        finish({ error: credentialError(`The credential plugin "${spec.command}" ${how}${said === '' ? '.' : said} ${sentence(execHint(exec, 'failed'))}`) });
        return;
      }
      const parsed = parseExecCredential(Buffer.concat(stdout).toString('utf8'), exec.apiVersion);
      if (typeof parsed === 'string') {
        finish({ error: credentialError(`The credential plugin "${spec.command}" returned no usable credential: ${parsed}. ${sentence(execHint(exec, 'failed'))}`) });
        return;
      }
      rememberSecret(parsed.token);
      rememberSecret(parsed.clientKeyData);
      finish({ credential: parsed });
    };
    child.on('close', ended);
    child.on('close', () => {
      if (pid !== undefined) runningGroups.delete(pid);
    });
    // A process it started (a browser, a helper) may keep the pipes open after the plugin exited.
    child.on('exit', (code: number | null, signal: NodeJS.Signals | null) => {
      exitTimer = setTimeout(() => ended(code, signal), 500);
    });
  });
}

/** `KUBERNETES_EXEC_INFO`: the ExecCredential request (never interactive; the cluster when asked for). */
function execInfo(exec: ExecConfig, cluster: Cluster | null): unknown {
  const spec: Record<string, unknown> = { interactive: false };
  if (exec.provideClusterInfo && cluster !== null) {
    spec.cluster = {
      server: cluster.server,
      ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
      ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(cluster.caData ? { 'certificate-authority-data': cluster.caData } : {}),
      ...(cluster.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
    };
  }
  return { apiVersion: exec.apiVersion, kind: 'ExecCredential', spec };
}

/**
 * Credential plugins (`users[].user.exec` in a kubeconfig): the client.authentication.k8s.io
 * v1beta1 / v1 ExecCredential protocol, run by zonescope itself instead of client-node's
 * `ExecAuth`, so that
 *
 * - the plugin runs once for all informers and writes (single flight), and its credential is kept
 *   until `status.expirationTimestamp` (for ever when the plugin gives none, until a 401);
 * - a failing plugin is not run again before an exponential, capped backoff;
 * - it runs non-interactively (stdin is not a terminal, `KUBERNETES_EXEC_INFO` says
 *   `interactive: false`), within a time limit, and a plugin that asks for a login (a URL, a
 *   device code) is reported with what it printed instead of freezing the dashboard;
 * - what the user sees says what failed — the plugin's own message, bounded and redacted, the
 *   command — and what to run (`aws sso login --profile …`, installing `gke-gcloud-auth-plugin`,
 *   `az login` + `kubelogin convert-kubeconfig`, the kubeconfig's `installHint`).
 *
 * Every error is a {@link KubeRequestError} of kind `unauthorized` marked `permanent` (it does not
 * go away without the user doing something); messages never contain the credential.
 */
import { spawn } from 'node:child_process';
import type https from 'node:https';
import path from 'node:path';
import type { Cluster, User } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeError } from './errors';
import { KubeRequestError, redact, rememberSecret } from './errors';

/** Default time limit of one plugin run. */
export const DEFAULT_EXEC_TIMEOUT_MS = 30_000;
/** Default wait before running a failed plugin again: 1 s, doubling up to 60 s. */
export const DEFAULT_EXEC_BACKOFF = { initialMs: 1000, maxMs: 60_000 } as const;
/** A credential this close to its `expirationTimestamp` is refreshed before use. */
const EXPIRY_MARGIN_MS = 10_000;
/** Most stdout (the ExecCredential JSON) read from a plugin. */
const MAX_STDOUT_BYTES = 1 << 20;
/** Most stderr kept from a plugin (for its message and login prompts). */
const MAX_STDERR_CHARS = 64 * 1024;
/** Longest excerpt of the plugin's own message shown. */
const MAX_EXCERPT = 300;
/** A login prompt counts once the plugin is still running this long after printing it (a URL in a warning of a plugin that then exits is not one). */
const PROMPT_GRACE_MS = 500;

/** Tuning of credential plugins. Every field is optional. */
export interface ExecCredentialOptions {
  /** Time limit of one run in ms (default `ZONESCOPE_EXEC_TIMEOUT_MS`, else {@link DEFAULT_EXEC_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Backoff after a failed run (default {@link DEFAULT_EXEC_BACKOFF}). */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
  /** Environment the plugin inherits (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A credential a plugin returned. */
export interface ExecCredential {
  readonly token: string | null;
  readonly clientCertificateData: string | null;
  readonly clientKeyData: string | null;
  /** `status.expirationTimestamp` in ms since the epoch; `null` when the plugin gave none. */
  readonly expiresAt: number | null;
}

/** The parsed `exec` section of a kubeconfig user. */
export interface ExecConfig {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion: string;
  readonly installHint: string | null;
  readonly interactiveMode: 'Never' | 'IfAvailable' | 'Always';
  readonly provideClusterInfo: boolean;
}

const API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** Parses a kubeconfig `exec` section; a message when it cannot be used. */
export function parseExecConfig(raw: unknown): ExecConfig | string {
  if (typeof raw !== 'object' || raw === null) return 'its exec section is not an object';
  const exec = raw as Record<string, unknown>;
  const command = exec.command;
  if (typeof command !== 'string' || command.trim() === '') return 'its exec section has no command';
  const args = Array.isArray(exec.args) ? exec.args.map((a) => String(a)) : [];
  const env: { name: string; value: string }[] = [];
  if (Array.isArray(exec.env)) {
    for (const entry of exec.env as unknown[]) {
      const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
      if (typeof e.name === 'string' && e.name !== '') env.push({ name: e.name, value: typeof e.value === 'string' ? e.value : String(e.value ?? '') });
    }
  }
  const apiVersion = typeof exec.apiVersion === 'string' ? exec.apiVersion : '';
  if (!API_VERSIONS.includes(apiVersion)) {
    return apiVersion === '' ? 'its exec section has no apiVersion' : `its exec apiVersion "${redact(apiVersion).slice(0, 80)}" is not supported (use ${API_VERSIONS.join(' or ')})`;
  }
  const mode = exec.interactiveMode;
  const interactiveMode = mode === 'Never' || mode === 'Always' || mode === 'IfAvailable' ? mode : 'IfAvailable';
  const installHint = typeof exec.installHint === 'string' && exec.installHint.trim() !== '' ? exec.installHint : null;
  return { command, args, env, apiVersion, installHint, interactiveMode, provideClusterInfo: exec.provideClusterInfo === true };
}

const SECRET_FLAG = /^--?[\w-]*(secret|passw(or)?d|token|key|credential)[\w-]*$/i;

/** The command line for messages: flags named like secrets have their value hidden; bounded. */
export function describeCommand(exec: Pick<ExecConfig, 'command' | 'args'>): string {
  const parts = [exec.command];
  let hideNext = false;
  for (const arg of exec.args) {
    if (hideNext) {
      parts.push('[redacted]');
      hideNext = false;
      continue;
    }
    const eq = arg.indexOf('=');
    if (arg.startsWith('-') && eq > 0 && SECRET_FLAG.test(arg.slice(0, eq))) parts.push(`${arg.slice(0, eq)}=[redacted]`);
    else {
      parts.push(arg);
      hideNext = SECRET_FLAG.test(arg);
    }
  }
  // eslint-disable-next-line no-control-regex
  const text = parts.map((p) => (/[\s"]/.test(p) ? JSON.stringify(p) : p)).join(' ').replace(/[\u0000-\u001f\u007f]/g, ' ');
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

type Tool = 'aws' | 'gke' | 'kubelogin' | 'other';

function toolOf(exec: ExecConfig): Tool {
  const base = path.basename(exec.command).replace(/\.(exe|cmd|bat)$/i, '');
  if (base === 'aws' || base === 'aws-iam-authenticator') return 'aws';
  if (base === 'gke-gcloud-auth-plugin') return 'gke';
  if (base === 'kubelogin') return 'kubelogin';
  return 'other';
}

function awsProfile(exec: ExecConfig): string | null {
  for (let i = 0; i < exec.args.length; i++) {
    const arg = exec.args[i] ?? '';
    if (arg === '--profile') return exec.args[i + 1] ?? null;
    if (arg.startsWith('--profile=')) return arg.slice('--profile='.length);
  }
  return exec.env.find((e) => e.name === 'AWS_PROFILE')?.value ?? null;
}

/** What a situation needs from the user, per plugin. */
type Situation = 'not-found' | 'failed' | 'login' | 'rejected';

/** What to run, as a sentence (no trailing period), for a plugin and what went wrong. */
export function execHint(exec: ExecConfig, situation: Situation): string {
  const tool = toolOf(exec);
  const profile = tool === 'aws' ? awsProfile(exec) : null;
  const safeProfile = profile !== null && /^[\w.@+-]{1,64}$/.test(profile) ? profile : null;
  if (situation === 'not-found') {
    const base =
      tool === 'gke'
        ? 'Install it with `gcloud components install gke-gcloud-auth-plugin` (or the google-cloud-cli-gke-gcloud-auth-plugin package of apt or dnf) and make sure it is on the PATH of the zonescope process'
        : tool === 'aws'
          ? 'Install the AWS CLI v2 and make sure `aws` is on the PATH of the zonescope process'
          : tool === 'kubelogin'
            ? 'Install kubelogin (`az aks install-cli`, or a release from github.com/Azure/kubelogin) and make sure it is on the PATH of the zonescope process'
            : 'Install it, or put its directory on the PATH of the zonescope process';
    return exec.installHint === null ? base : `${base}. The kubeconfig says: ${redact(exec.installHint).slice(0, MAX_EXCERPT)}`;
  }
  if (situation === 'rejected') {
    if (tool === 'aws') return 'Check that the IAM identity it returns has access to this cluster (EKS access entries or the aws-auth ConfigMap) and that the cluster name and region in its arguments are right';
    if (tool === 'gke') return 'Check that the Google account of `gcloud auth list` has access to this cluster (IAM or RBAC)';
    if (tool === 'kubelogin') return 'Check that the Azure identity it logs in as has access to this cluster, then run `az login` again';
    return 'Check that the identity the plugin logs in as has access to this cluster';
  }
  if (tool === 'aws') {
    return safeProfile !== null
      ? `Run \`aws sso login --profile ${safeProfile}\` in a terminal (or refresh that profile's credentials otherwise)`
      : 'Run `aws sso login` in a terminal (or refresh the AWS credentials of the default profile otherwise)';
  }
  if (tool === 'gke') return 'Run `gcloud auth login` in a terminal (and `gcloud config set project …` when the project is not set)';
  if (tool === 'kubelogin') return 'Run `az login` in a terminal, then `kubelogin convert-kubeconfig -l azurecli` so that kubelogin reuses that login without a prompt';
  return `Run \`${describeCommand(exec)}\` in a terminal to see what it needs`;
}

/** Ends a sentence with a period unless it ends with punctuation already. */
function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/** The plugin's own message: the last non-empty lines of stderr, redacted and bounded. */
function excerpt(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  let text = '';
  for (let i = lines.length - 1; i >= 0 && text.length < MAX_EXCERPT; i--) text = text === '' ? (lines[i] ?? '') : `${lines[i] ?? ''} ${text}`;
  const safe = redact(text);
  return safe.length > MAX_EXCERPT ? `…${safe.slice(safe.length - MAX_EXCERPT + 1)}` : safe;
}

const URL_PATTERN = /https?:\/\/[^\s"'<>]+/i;
const DEVICE_CODE = /\b(?:code|user[ _-]?code)\b\W{1,5}([A-Z0-9]{4,}(?:-[A-Z0-9]{4,})*)\b/i;

/** The line of `output` asking the user to log in (a URL or a device code), redacted; `null` when none. */
export function loginPrompt(output: string): string | null {
  for (const line of output.split(/\r?\n/)) {
    if (URL_PATTERN.test(line) || DEVICE_CODE.test(line)) {
      const safe = redact(line.trim());
      return safe.length > MAX_EXCERPT ? `${safe.slice(0, MAX_EXCERPT - 1)}…` : safe;
    }
  }
  return null;
}

function credentialError(message: string): KubeRequestError {
  const error: KubeError = { kind: 'unauthorized', reason: 'CredentialPlugin', message, permanent: true };
  return new KubeRequestError(error);
}

function abortError(): Error {
  const error = new Error('request aborted');
  error.name = 'AbortError';
  return error;
}

/** Parses a plugin's stdout into a credential; a message saying what is wrong otherwise. */
export function parseExecCredential(stdout: string, apiVersion: string): ExecCredential | string {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return stdout.trim() === '' ? 'it printed nothing on stdout' : 'its output is not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'its output is not an ExecCredential object';
  const object = value as Record<string, unknown>;
  if (object.kind !== 'ExecCredential') return 'its output is not of kind ExecCredential';
  if (object.apiVersion !== apiVersion) return `its output has apiVersion "${redact(String(object.apiVersion ?? '')).slice(0, 80)}", the kubeconfig asks for "${apiVersion}"`;
  const status = (typeof object.status === 'object' && object.status !== null ? object.status : {}) as Record<string, unknown>;
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const token = text(status.token);
  const clientCertificateData = text(status.clientCertificateData);
  const clientKeyData = text(status.clientKeyData);
  if ((clientCertificateData === null) !== (clientKeyData === null)) return 'it returned a client certificate without its key (or a key without its certificate)';
  if (token === null && clientCertificateData === null) return 'it returned neither a token nor a client certificate';
  let expiresAt: number | null = null;
  if (status.expirationTimestamp !== undefined && status.expirationTimestamp !== null) {
    expiresAt = typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : Number.NaN;
    if (Number.isNaN(expiresAt)) return 'its expirationTimestamp is not an RFC 3339 time';
  }
  return { token, clientCertificateData, clientKeyData, expiresAt };
}

/** One run of the plugin, shared by every caller waiting for it. */
interface Run {
  /** Settles with the credential or the error (a catch handler is always attached). */
  done: Promise<ExecCredential>;
  /** The login prompt the plugin printed, once it did. */
  prompt: string | null;
  /** Called once when a prompt is seen. */
  readonly promptListeners: Set<() => void>;
  readonly startedAt: number;
}

/**
 * Runs one kubeconfig user's credential plugin and keeps its credential. Also a client-node
 * `Authenticator`, so the generated API clients (writes) share the same credential and cache.
 */
export class ExecCredentialProvider {
  /** Plugin runs started so far (diagnostics, tests). */
  runs = 0;
  /** `afterRejection`: fetched because the previous credential got a 401; `holdUntil`: it got a 401 too, no refresh before then. */
  private cached: { credential: ExecCredential; afterRejection: boolean; holdUntil: number | null } | null = null;
  private inflight: Run | null = null;
  private failure: { error: KubeRequestError; retryAt: number } | null = null;
  private failures = 0;
  private rejections = 0;
  private nextAfterRejection = false;
  private readonly timeoutMs: number;
  private readonly backoff: { initialMs: number; maxMs: number };
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly applied = new WeakMap<object, ExecCredential>();
  /** The command line for messages. */
  readonly command: string;

  constructor(
    /** The kubeconfig user this provider serves. */
    readonly userName: string,
    private readonly exec: ExecConfig | string,
    private readonly cluster: Cluster | null,
    options: ExecCredentialOptions = {},
  ) {
    this.env = options.env ?? process.env;
    const fromEnv = Number(this.env.ZONESCOPE_EXEC_TIMEOUT_MS);
    this.timeoutMs = options.timeoutMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_EXEC_TIMEOUT_MS);
    this.backoff = { initialMs: options.backoff?.initialMs ?? DEFAULT_EXEC_BACKOFF.initialMs, maxMs: options.backoff?.maxMs ?? DEFAULT_EXEC_BACKOFF.maxMs };
    this.command = typeof exec === 'string' ? '(no command)' : describeCommand(exec);
  }

  /**
   * The credential: the cached one while it is valid, else the result of one plugin run shared by
   * every concurrent caller. Rejects at once (without running the plugin) while a failed run's
   * backoff lasts, and while a running plugin waits for a login. `signal` only stops this
   * caller's wait (an `AbortError`); the run goes on for the others.
   */
  get(signal?: AbortSignal): Promise<ExecCredential> {
    if (signal?.aborted) return Promise.reject(abortError());
    const cached = this.cached;
    if (cached !== null && (cached.credential.expiresAt === null || cached.credential.expiresAt - EXPIRY_MARGIN_MS > Date.now())) return Promise.resolve(cached.credential);
    if (this.inflight === null) {
      if (this.failure !== null && Date.now() < this.failure.retryAt) return Promise.reject(this.failure.error);
      this.inflight = this.start();
    }
    const run = this.inflight;
    if (run.prompt !== null) return Promise.reject(this.promptError(run));
    return new Promise<ExecCredential>((resolve, reject) => {
      const cleanup = (): void => {
        signal?.removeEventListener('abort', onAbort);
        run.promptListeners.delete(onPrompt);
      };
      const onAbort = (): void => {
        cleanup();
        reject(abortError());
      };
      const onPrompt = (): void => {
        cleanup();
        reject(this.promptError(run));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      run.promptListeners.add(onPrompt);
      run.done.then(
        (credential) => {
          cleanup();
          resolve(credential);
        },
        (error: unknown) => {
          cleanup();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /**
   * The API server answered 401 to a request made with `credential`. Returns whether the caller
   * should retry: `true` when the credential is dropped (the next {@link get} runs the plugin
   * again) or was already replaced; `false` when `credential` itself came from such a refresh —
   * the caller reports {@link rejectedError}, the credential stays for the other requests, and the
   * plugin is run again for a 401 only after a backoff (not per request).
   */
  reject(credential: ExecCredential): boolean {
    const cached = this.cached;
    if (cached === null || cached.credential !== credential) return true; // already replaced
    if (cached.afterRejection) {
      if (cached.holdUntil === null) {
        this.rejections++;
        cached.holdUntil = Date.now() + this.delay(this.rejections);
        return false;
      }
      if (Date.now() < cached.holdUntil) return false;
    }
    this.cached = null;
    this.nextAfterRejection = true;
    return true;
  }

  /** {@link reject} for the credential in use (a generated client's request got 401). */
  rejectCurrent(): boolean {
    return this.cached === null ? true : this.reject(this.cached.credential);
  }

  /** A request with `credential` was accepted: a later 401 may be answered with a refresh again. */
  accepted(credential: ExecCredential): void {
    const cached = this.cached;
    if (cached === null || cached.credential !== credential || !cached.afterRejection) return;
    cached.afterRejection = false;
    cached.holdUntil = null;
    this.rejections = 0;
  }

  /** The error for credentials the API server rejected even after a refresh. */
  rejectedError(): KubeRequestError {
    const hint = typeof this.exec === 'string' ? '' : ` ${sentence(execHint(this.exec, 'rejected'))}`;
    return credentialError(`The API server rejected the credentials from the credential plugin "${this.command}" (401 Unauthorized), also after running it again.${hint}`);
  }

  /** What serialising shows (never the credential, the plugin's environment or its arguments' values). */
  toJSON(): { userName: string; command: string; runs: number } {
    return { userName: this.userName, command: this.command, runs: this.runs };
  }

  /** client-node `Authenticator`: the kubeconfig user this provider serves. */
  isAuthProvider(user: User): boolean {
    return user.name === this.userName;
  }

  /** client-node `Authenticator`: sets the bearer token or client certificate on request options. */
  async applyAuthentication(_user: User, opts: https.RequestOptions | Record<string, unknown>): Promise<void> {
    const credential = await this.get();
    const options = opts as https.RequestOptions;
    if (credential.clientCertificateData !== null) options.cert = credential.clientCertificateData;
    if (credential.clientKeyData !== null) options.key = credential.clientKeyData;
    if (credential.token !== null) options.headers = { ...options.headers, Authorization: `Bearer ${credential.token}` };
    this.applied.set(opts, credential);
  }

  /** The credential {@link applyAuthentication} put on `opts` (for a 401 to {@link reject} it). */
  credentialOf(opts: object): ExecCredential | null {
    return this.applied.get(opts) ?? null;
  }

  // ------------------------------------------------------------------------------------------

  /** Backoff after `count` consecutive failures (default: the failed runs). */
  private delay(count = this.failures): number {
    return Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** Math.max(0, count - 1));
  }

  private promptError(run: Run): KubeRequestError {
    const exec = this.exec as ExecConfig;
    const left = Math.max(1, Math.round((run.startedAt + this.timeoutMs - Date.now()) / 1000));
    return credentialError(
      `The credential plugin "${this.command}" is waiting for an interactive login; it printed: "${run.prompt ?? ''}". ` +
        `Complete that login within ${left} s, or log in first in a terminal: ${sentence(execHint(exec, 'login'))} zonescope cannot answer prompts; it uses the credentials once the plugin returns them.`,
    );
  }

  private start(): Run {
    const run: Run = { done: Promise.resolve(null as never), prompt: null, promptListeners: new Set(), startedAt: Date.now() };
    const done = this.execute(run).then(
      (credential) => {
        this.cached = { credential, afterRejection: this.nextAfterRejection, holdUntil: null };
        this.nextAfterRejection = false;
        this.failures = 0;
        this.failure = null;
        return credential;
      },
      (error: unknown) => {
        const wrapped = error instanceof KubeRequestError ? error : credentialError(`The credential plugin "${this.command}" failed.`);
        this.failures++;
        this.failure = { error: wrapped, retryAt: Date.now() + this.delay() };
        throw wrapped;
      },
    );
    done
      .catch(() => undefined)
      .finally(() => {
        if (this.inflight === run) this.inflight = null;
      });
    run.done = done;
    return run;
  }

  private execute(run: Run): Promise<ExecCredential> {
    const exec = this.exec;
    if (typeof exec === 'string') return Promise.reject(credentialError(`The kubeconfig user "${redact(this.userName)}" cannot be used: ${exec}.`));
    if (exec.interactiveMode === 'Always') {
      return Promise.reject(
        credentialError(
          `The credential plugin "${this.command}" requires an interactive terminal (interactiveMode: Always), which zonescope does not have. ` +
            `Log in first in a terminal, or set interactiveMode to IfAvailable or Never for the kubeconfig user "${redact(this.userName)}".`,
        ),
      );
    }
    this.runs++;
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.env)) if (value !== undefined) env[key] = value;
    for (const entry of exec.env) env[entry.name] = entry.value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify(this.execInfo(exec));
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
      }, this.timeoutMs);
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
          finish({ error: credentialError(`The credential plugin "${redact(exec.command)}" was not found (ENOENT); the kubeconfig user "${redact(this.userName)}" needs it to get credentials. ${sentence(execHint(exec, 'not-found'))}`) });
        } else if (code === 'EACCES') {
          finish({ error: credentialError(`The credential plugin "${redact(exec.command)}" cannot be run (EACCES): make it executable for the user zonescope runs as.`) });
        } else {
          finish({ error: credentialError(`The credential plugin "${this.command}" could not be started (${/^[A-Z0-9_]{2,40}$/.test(code) ? code : 'error'}).`) });
        }
      });
      const ended = (code: number | null, signal: NodeJS.Signals | null): void => {
        const own = excerpt(stderr);
        const said = own === '' ? '' : `: ${sentence(own)}`;
        if (timedOut) {
          const printed = run.prompt !== null ? ` It printed: "${run.prompt}".` : '';
          finish({
            error: credentialError(
              `The credential plugin "${this.command}" did not finish within ${Math.round(this.timeoutMs / 1000)} s; it is probably waiting for an interactive login, which zonescope cannot answer.${printed} ` +
                `Log in first in a terminal: ${sentence(execHint(exec, 'login'))}`,
            ),
          });
          return;
        }
        if (tooLarge) {
          finish({ error: credentialError(`The credential plugin "${this.command}" printed more than ${MAX_STDOUT_BYTES >> 20} MiB; it was stopped.`) });
          return;
        }
        if (code !== 0) {
          const how = code === null ? `was killed (${signal ?? 'signal'})` : `failed (exit code ${code})`;
          finish({ error: credentialError(`The credential plugin "${this.command}" ${how}${said === '' ? '.' : said} ${sentence(execHint(exec, 'failed'))}`) });
          return;
        }
        const parsed = parseExecCredential(Buffer.concat(stdout).toString('utf8'), exec.apiVersion);
        if (typeof parsed === 'string') {
          finish({ error: credentialError(`The credential plugin "${this.command}" returned no usable credential: ${parsed}. ${sentence(execHint(exec, 'failed'))}`) });
          return;
        }
        rememberSecret(parsed.token);
        rememberSecret(parsed.clientKeyData);
        finish({ credential: parsed });
      };
      child.on('close', ended);
      // A process it started (a browser, a helper) may keep the pipes open after the plugin exited.
      child.on('exit', (code: number | null, signal: NodeJS.Signals | null) => {
        exitTimer = setTimeout(() => ended(code, signal), 500);
      });
    });
  }

  /** `KUBERNETES_EXEC_INFO`: the ExecCredential request (never interactive; the cluster when asked for). */
  private execInfo(exec: ExecConfig): unknown {
    const spec: Record<string, unknown> = { interactive: false };
    const cluster = this.cluster;
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
}

/**
 * For a kubeconfig whose current user has an `exec` section: the provider, and a copy of the
 * configuration in which that user's plugin is run by the provider (client-node's own `ExecAuth`
 * no longer sees it), for the raw requests and the generated API clients alike. `null` when the
 * current user has no `exec` (tokens, certificates, token files stay with client-node).
 */
export function withExecCredentials(kc: KubeConfig, options: ExecCredentialOptions = {}): { kubeConfig: KubeConfig; provider: ExecCredentialProvider } | null {
  const user = kc.getCurrentUser();
  if (user === null || user.exec === undefined || user.exec === null) return null;
  const provider = new ExecCredentialProvider(user.name, parseExecConfig(user.exec), kc.getCurrentCluster(), options);
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kc.getClusters(),
    contexts: kc.getContexts(),
    users: kc.getUsers().map((u) => (u === user ? { ...u, exec: undefined } : u)),
    currentContext: kc.getCurrentContext(),
  });
  copy.addAuthenticator(provider);
  return { kubeConfig: copy, provider };
}

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
 * Every error is a `KubeRequestError` of kind `unauthorized` marked `permanent` (it does not go
 * away without the user doing something); messages never contain the credential. Here: the cache,
 * single flight, backoff and 401 handling of one kubeconfig user ({@link ExecCredentialProvider});
 * the run itself is ./run-plugin, the messages ./messages, the `exec` section ./exec-config.
 */
import type https from 'node:https';
import type { Cluster, User } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import type { BackoffPolicy } from '../backoff';
import { backoffDelay } from '../backoff';
import { abortError, KubeRequestError } from '../errors';
import { redact } from '../redact';
import type { ExecCredential } from './credential';
import type { ExecConfig } from './exec-config';
import { describeCommand, parseExecConfig } from './exec-config';
import { credentialError, execHint, sentence } from './messages';
import type { Run } from './run-plugin';
import { runPlugin } from './run-plugin';

/** Default time limit of one plugin run. */
export const DEFAULT_EXEC_TIMEOUT_MS = 30_000;
/** Default wait before running a failed plugin again: 1 s, doubling up to 60 s. */
export const DEFAULT_EXEC_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 60_000 };
/** A credential this close to its `expirationTimestamp` is refreshed before use. */
const EXPIRY_MARGIN_MS = 10_000;

/** Tuning of credential plugins. Every field is optional. */
export interface ExecCredentialOptions {
  /** Time limit of one run in ms (default {@link DEFAULT_EXEC_TIMEOUT_MS}; `ZONESCOPE_EXEC_TIMEOUT_MS` through the connection options). */
  readonly timeoutMs?: number;
  /** Backoff after a failed run (default {@link DEFAULT_EXEC_BACKOFF}). */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
  /** Environment the plugin inherits (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
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
  private readonly backoff: BackoffPolicy;
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
    this.timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
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

  /** Backoff after `count` consecutive failures (default: the failed runs): the first waits `initialMs`. */
  private delay(count = this.failures): number {
    return backoffDelay(this.backoff, count - 1);
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
    }    this.runs++;
    return runPlugin({ exec, userName: this.userName, command: this.command, timeoutMs: this.timeoutMs, env: this.env, cluster: this.cluster }, run);
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

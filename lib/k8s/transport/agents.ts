/**
 * Kept-alive connections: one pooled agent per kind of request — buffered requests (at most
 * {@link MAX_REQUEST_SOCKETS} connections) and watches (one connection each, no limit, so open
 * watches never hold up a list page) — built with client-node's agent factory, so that proxies
 * (HTTP CONNECT, SOCKS5) work as for its generated clients, and rebuilt when the TLS material or
 * the proxy changes. An idle connection is closed after {@link KEEPALIVE_IDLE_TIMEOUT_MS}.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type https from 'node:https';
import type { Cluster, KubeConfig } from '@kubernetes/client-node';
import { errorCode } from '../errors';

/**
 * How long a kept-alive connection may sit unused before zonescope closes it: 4 s, below the idle
 * timeouts of the servers and load balancers in front of API servers (Node's 5 s, nginx's 75 s,
 * AWS ALB's 60 s, Go's 90 s), so the client is the side that closes an idle connection, and a
 * request rarely meets one that the server is closing at that moment (that case is retried once).
 */
export const KEEPALIVE_IDLE_TIMEOUT_MS = 4_000;

/**
 * Most concurrent connections for buffered requests (list pages, `/version`, writes): cold start
 * lists about a dozen types at once, each with at most a page in flight and one asked ahead; more
 * than that waits for a free connection. Watches use their own pool without a limit (each holds
 * its connection for minutes).
 */
export const MAX_REQUEST_SOCKETS = 32;

/** Which pool a request's connection comes from. */
export type AgentKind = 'request' | 'watch';

/** The pooled agent of one kind, and the TLS material it was built with (a digest of it). */
interface PooledAgent {
  readonly key: string;
  readonly agent: http.Agent;
}

/** client-node's agent factory (private in its typings): the same proxy agents its generated clients get. */
type AgentFactory = (cluster: Cluster | null, options: https.AgentOptions) => http.Agent;

/**
 * A digest of what an agent's connections are bound to (CA, client certificate and key, PFX,
 * passphrase, certificate checking, server name, proxy): a change means new connections. The
 * digest, not the material, is kept; headers (a bearer token) are not part of it.
 */
function agentKey(options: https.RequestOptions, proxyUrl: string | undefined): string {
  const hash = createHash('sha256');
  const part = (value: unknown): void => {
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (typeof item === 'string' || item instanceof Uint8Array) hash.update(item);
      else if (typeof item === 'object' && item !== null && 'pem' in item) part((item as { pem?: unknown }).pem);
      else hash.update(String(item));
      hash.update('\0');
    }
    hash.update('\x01');
  };
  for (const value of [options.ca, options.cert, options.key, options.pfx, options.passphrase, options.rejectUnauthorized, options.servername, proxyUrl]) part(value);
  return hash.digest('hex');
}

/** Closes an agent's idle connections (in use ones finish their request, then close on their idle timeout). */
export function closeIdleSockets(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/**
 * Whether a request failed because the kept connection it was sent on had been closed by the
 * server: a reset or a hang-up before any answer, on a reused connection.
 */
export function staleConnection(error: Error, req: http.ClientRequest): boolean {
  if (!req.reusedSocket) return false;
  const code = errorCode(error);
  return code === 'ECONNRESET' || code === 'EPIPE' || error.message === 'socket hang up';
}

/** The agents of one connection (see the module comment); with keep-alive off, none is kept. */
export class AgentPool {
  /** The kept-alive agents (with keep-alive), one per kind. */
  private readonly agents = new Map<AgentKind, PooledAgent>();

  /**
   * The connection's configuration: its current cluster's proxy and client-node's agent factory.
   * A private field (`#`): serialising a pool, or a connection holding one, never shows its
   * credentials.
   */
  readonly #kubeConfig: KubeConfig;

  constructor(
    kubeConfig: KubeConfig,
    private readonly keepAlive: boolean,
  ) {
    this.#kubeConfig = kubeConfig;
  }

  /**
   * The agent for a request whose options `applyToHTTPSOptions` filled in. With keep-alive: the
   * pooled agent of `kind`, built anew (the old one's idle connections closed) when the TLS
   * material or proxy changed — a rotated CA or an exec plugin's new client certificate must not
   * ride on connections made with the old ones. Without: client-node's fresh agent, used once.
   */
  agentFor(kind: AgentKind, options: https.RequestOptions): { agent: http.Agent | undefined; oneShot: boolean } {
    const fresh = options.agent instanceof http.Agent ? options.agent : undefined;
    if (!this.keepAlive) return { agent: fresh, oneShot: true };
    const cluster = this.#kubeConfig.getCurrentCluster();
    const key = agentKey(options, cluster?.proxyUrl);
    const current = this.agents.get(kind);
    if (current !== undefined && current.key === key) return { agent: current.agent, oneShot: false };
    if (current !== undefined) closeIdleSockets(current.agent);
    const factory = (this.#kubeConfig as unknown as { createAgent?: unknown }).createAgent;
    if (typeof factory !== 'function') return { agent: fresh, oneShot: true };
    const agentOptions: https.AgentOptions = {
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      pfx: options.pfx,
      passphrase: options.passphrase,
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
      ...(options.servername !== undefined ? { servername: options.servername } : {}),
      keepAlive: true,
      // An idle connection is closed after this long (the agent's `timeout` applies to free sockets).
      timeout: KEEPALIVE_IDLE_TIMEOUT_MS,
      scheduling: 'lifo',
      ...(kind === 'request' ? { maxSockets: MAX_REQUEST_SOCKETS, maxFreeSockets: MAX_REQUEST_SOCKETS } : {}),
    };
    const agent = (factory as AgentFactory).call(this.#kubeConfig, cluster, agentOptions);
    this.agents.set(kind, { key, agent });
    return { agent, oneShot: false };
  }
}

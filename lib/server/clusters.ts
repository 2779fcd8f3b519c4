/**
 * Which cluster a page or route reads: a {@link ClusterScope} (registry entry + its open source)
 * that every lib/views function takes as its first parameter. Pages get it with
 * {@link requestScope} (from the `x-zonescope-cluster` header proxy.ts sets for `/c/{id}/…`),
 * route handlers with {@link scopeFromRequest}; `/metrics`, the health routes and the start-up hook
 * use {@link defaultScope}. Links go through {@link clusterHref} (server) or `useClusterBase()`
 * (client leaves, components/layout/cluster-base.tsx).
 */
import 'server-only';

import { headers } from 'next/headers';
import { notFound } from 'next/navigation';

import type { ClusterSource } from '../k8s/cluster-source';
import type { OpenOptions } from '../k8s/clusters';
import type { ClusterEntry } from '../k8s/cluster-entries';
import { getClusterRegistry, getClusterSource } from '../k8s/source';
import { releaseClosedAnalyses } from './analysis';
import { CLUSTER_HEADER, clusterBaseOf, clusterUnavailableDigest, withClusterBase } from '../shared/cluster-path';
import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import { errorResponse } from './http';

/** One cluster as a request reads it. */
export interface ClusterScope {
  readonly id: string;
  readonly entry: ClusterEntry;
  readonly source: ClusterSource;
}

/** Why a cluster cannot be read: the registry has no such id, it is at its limit of open clusters, or the context is misconfigured. */
export interface ScopeError {
  readonly ok: false;
  readonly reason: 'unknown' | 'limit' | 'config';
  readonly message: string;
}

/** The default cluster (the one without `/c/` prefix), opened on first use. */
export function defaultScope(): ClusterScope {
  releaseClosedAnalyses();
  const registry = getClusterRegistry();
  const entry = registry.defaultEntry();
  return { id: entry.id, entry, source: getClusterSource() };
}

/** Every cluster of the registry (default first), without opening any. */
export function clusterEntries(): readonly ClusterEntry[] {
  return getClusterRegistry().entries();
}

/**
 * The cluster `id`, opened (and, for a page, its last use touched: see {@link OpenOptions}); an
 * error when it cannot be.
 */
export function scopeFor(id: string, options: OpenOptions = {}): ClusterScope | ScopeError {
  const registry = getClusterRegistry();
  const entry = registry.entry(id);
  if (entry === null) return { ok: false, reason: 'unknown', message: unknownClusterMessage(id, registry.entries()) };
  if (entry.isDefault) return defaultScope();
  // Clusters closed for idleness since the last request give their analyses back.
  releaseClosedAnalyses();
  const opened = registry.open(id, options);
  if (!opened.ok) return { ok: false, reason: opened.reason, message: opened.message };
  const scope: ClusterScope = { id: entry.id, entry, source: opened.source };
  // What starts with a cluster (its measured traffic, ZONESCOPE_PROMETHEUS_BY_CONTEXT) starts now;
  // the registry's closing stops it.
  for (const listener of OPEN_LISTENERS) listener(scope);
  return scope;
}

const OPEN_LISTENERS = new Set<(scope: ClusterScope) => void>();

/**
 * Runs `listener` for every cluster {@link scopeFor} opens from now on (the views layer starts a
 * cluster's traffic source this way, lib/views/traffic.ts, without this layer importing it).
 */
export function onScopeOpened(listener: (scope: ClusterScope) => void): void {
  OPEN_LISTENERS.add(listener);
}

/** Whether {@link scopeFor} answered an error. */
export function isScopeError(value: ClusterScope | ScopeError): value is ScopeError {
  return 'ok' in value && value.ok === false;
}

/** `There is no cluster "x"; the clusters are: a, b.` (the first twelve ids, then how many more). */
export function unknownClusterMessage(id: string, entries: readonly ClusterEntry[]): string {
  const known = entries.map((e) => e.id);
  const shown = known.length > 12 ? `${known.slice(0, 12).join(', ')} and ${known.length - 12} more` : known.join(', ');
  return `There is no cluster "${id.slice(0, 63)}"; the clusters are: ${shown || 'none'}.`;
}

/** The cluster id of the request being rendered (`null` without `/c/` prefix). */
export async function requestClusterId(): Promise<string | null> {
  return (await headers()).get(CLUSTER_HEADER);
}

/**
 * A page's cluster could not be opened (the limit of open clusters, a context misconfigured):
 * thrown by {@link requestScope}. Its `digest` carries the message so the error boundary can show
 * it in production builds too (components/layout/error-view.tsx reads it with
 * `clusterUnavailableFromDigest` of ./cluster-path).
 */
export class ClusterUnavailableError extends Error {
  readonly digest: string;
  constructor(
    readonly reason: 'limit' | 'config',
    message: string,
  ) {
    super(message);
    this.name = 'ClusterUnavailableError';
    this.digest = clusterUnavailableDigest(reason, message);
  }
}

/**
 * The cluster the page being rendered shows: the default without `/c/` prefix, else the prefix's
 * cluster. An unknown id renders the not-found page (which names the known clusters); the limit
 * of open clusters or a misconfigured context throw a {@link ClusterUnavailableError}.
 */
export async function requestScope(): Promise<ClusterScope> {
  const id = await requestClusterId();
  if (id === null) return defaultScope();
  const scope = scopeFor(id);
  if (!isScopeError(scope)) return scope;
  if (scope.reason === 'unknown') notFound();
  throw new ClusterUnavailableError(scope.reason, scope.message);
}

/**
 * The cluster a route handler answers for, or the response saying why it cannot: 404
 * `not-found:cluster` for an unknown id, 503 `cluster-unavailable:cluster` (the registry's
 * message) at the limit of open clusters or for a misconfigured context.
 */
export function scopeFromRequest(request: Request): ClusterScope | Response {
  const id = request.headers.get(CLUSTER_HEADER);
  if (id === null) return defaultScope();
  const scope = scopeFor(id);
  if (!isScopeError(scope)) return scope;
  if (scope.reason === 'unknown') return errorResponse(404, 'not-found', 'cluster', scope.message);
  return errorResponse(503, 'cluster-unavailable', 'cluster', scope.message, {}, { 'Retry-After': '30' });
}

/** `/services/a/b` under the cluster's URL: unchanged for the default cluster, `/c/{id}/services/a/b` otherwise. */
export function clusterHref(scope: Pick<ClusterScope, 'entry'> | ClusterEntry, path: string): string {
  const entry = 'entry' in scope ? scope.entry : scope;
  return withClusterBase(clusterBaseOf(entry), path);
}

/**
 * The request's cluster for the root layout, without opening it: its path prefix (`''` or
 * `/c/{id}`, what the client leaves prefix links and fetches with; `''` for an unknown id, whose
 * not-found page links to the default), its id (the `/c/{id}` as asked, else the default's) and the
 * default's id.
 */
export async function requestClusterBase(): Promise<{ readonly base: string; readonly clusterId: string; readonly defaultId: string }> {
  const registry = getClusterRegistry();
  const defaultId = registry.defaultEntry().id;
  const id = await requestClusterId();
  if (id === null) return { base: '', clusterId: defaultId, defaultId };
  const entry = registry.entry(id);
  return { base: entry === null ? '' : clusterBaseOf(entry), clusterId: id, defaultId };
}

/** The path prefix of the cluster's pages (`''` or `/c/{id}`). */
export function clusterBase(scope: Pick<ClusterScope, 'entry'>): string {
  return clusterBaseOf(scope.entry);
}

/** The context names of `ZONESCOPE_READ_ONLY_CONTEXTS`. */
export function readOnlyContexts(config: Pick<Config, 'ZONESCOPE_READ_ONLY_CONTEXTS'> = getConfig()): ReadonlySet<string> {
  return new Set(config.ZONESCOPE_READ_ONLY_CONTEXTS);
}

/** Whether `ZONESCOPE_CONTEXTS` chooses the clusters (rather than every context of the kubeconfig). */
export function contextsListed(config: Pick<Config, 'ZONESCOPE_CONTEXTS'> = getConfig()): boolean {
  return config.ZONESCOPE_CONTEXTS !== null;
}

/**
 * Why writes are off for this cluster, `null` when they are allowed by configuration:
 * `ZONESCOPE_READ_ONLY=1` (every cluster) or the cluster's context in
 * `ZONESCOPE_READ_ONLY_CONTEXTS`.
 */
export function configuredReadOnlyReason(scope: Pick<ClusterScope, 'entry'>, config: Pick<Config, 'ZONESCOPE_READ_ONLY' | 'ZONESCOPE_READ_ONLY_CONTEXTS'> = getConfig()): string | null {
  if (config.ZONESCOPE_READ_ONLY) return 'The dashboard runs read-only (ZONESCOPE_READ_ONLY is on).';
  const context = scope.entry.context;
  if (context !== null && readOnlyContexts(config).has(context)) return `Cluster ${scope.entry.displayName} (context ${context}) is read-only (ZONESCOPE_READ_ONLY_CONTEXTS).`;
  return null;
}

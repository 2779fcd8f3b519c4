/**
 * Who zonescope is to the API server, and the RBAC rule that grants what it could not read.
 *
 * The identity comes from a `SelfSubjectReview` (`kubectl auth whoami`): `POST
 * /apis/authentication.k8s.io/v1/selfsubjectreviews`, GA in Kubernetes 1.28 (v1beta1 from 1.27,
 * v1alpha1 from 1.26 behind a gate). Older servers answer 404 on every version; messages then say
 * "the current identity". Every user may create the review (upstream's `system:basic-user`).
 *
 * The lookup is cached per connection ({@link whoAmI}, {@link knownIdentity}): pages read the
 * cached answer and never wait for the API server.
 */
import type { KubeConnection } from './connection';
import type { KubeError } from './errors';
import { errorFromException, errorFromResponse } from './errors';
import type { ResourceId } from './resources';
import { RESOURCES } from './resources';
import { arr, obj, str } from './wire-to-record/json';

/** What the identity lookup found. */
export type IdentityResult =
  | {
      readonly ok: true;
      /** `status.userInfo.username` (`system:serviceaccount:zonescope:zonescope`, `alice@example.com`). */
      readonly username: string;
      readonly groups: readonly string[];
      /** The API version that answered (`authentication.k8s.io/v1`). */
      readonly apiVersion: string;
    }
  | { readonly ok: false; readonly error: KubeError };

/** How messages name the identity when the API server could not say. */
export const CURRENT_IDENTITY = 'the current identity';

/** Versions tried in order: GA 1.28, beta 1.27, alpha 1.26. */
const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

/**
 * Asks the API server who the connection authenticates as (SelfSubjectReview, newest version the
 * server serves). Never rejects.
 */
export async function reviewSelf(connection: KubeConnection, options: { readonly timeoutMs?: number; readonly signal?: AbortSignal } = {}): Promise<IdentityResult> {
  for (const version of VERSIONS) {
    const apiVersion = `authentication.k8s.io/${version}`;
    try {
      const response = await connection.request({
        method: 'POST',
        path: `/apis/${apiVersion}/selfsubjectreviews`,
        body: JSON.stringify({ apiVersion, kind: 'SelfSubjectReview' }),
        contentType: 'application/json',
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      // Not served at this version (older server, or the gate is off): try the next one.
      if (response.status === 404) continue;
      if (response.status < 200 || response.status >= 300) return { ok: false, error: errorFromResponse(response.status, response.body, response.headers) };
      const userInfo = obj(obj(obj(JSON.parse(response.body) as unknown).status).userInfo);
      const username = str(userInfo.username);
      if (username === null || username === '') return { ok: false, error: { kind: 'invalid', message: 'The SelfSubjectReview answer names no user.' } };
      return { ok: true, username, groups: arr(userInfo.groups).filter((g): g is string => typeof g === 'string'), apiVersion };
    } catch (error) {
      return { ok: false, error: errorFromException(error) };
    }
  }
  return { ok: false, error: { kind: 'not-found', status: 404, message: 'The API server does not serve SelfSubjectReview (Kubernetes 1.28 and later; beta in 1.27).' } };
}

/** The name messages use: the username, or {@link CURRENT_IDENTITY}. */
export function identityLabel(identity: IdentityResult | null | undefined): string {
  return identity?.ok ? identity.username : CURRENT_IDENTITY;
}

// ---------------------------------------------------------------------------------------------
// Cache per connection

/** A failed lookup is retried after this long. */
const RETRY_AFTER_FAILURE_MS = 30_000;

interface CacheEntry {
  readonly promise: Promise<IdentityResult>;
  value: IdentityResult | null;
  settledAt: number | null;
}

const CACHE_KEY = Symbol.for('zonescope.selfSubjectReview');
type CacheHolder = { [CACHE_KEY]?: WeakMap<KubeConnection, CacheEntry> };

function cacheOf(): WeakMap<KubeConnection, CacheEntry> {
  const holder = globalThis as unknown as CacheHolder;
  return (holder[CACHE_KEY] ??= new WeakMap());
}

/**
 * The identity of `connection`, looked up once (a failure is looked up again after 30 s). Never
 * rejects.
 */
export function whoAmI(connection: KubeConnection, options: { readonly timeoutMs?: number } = {}): Promise<IdentityResult> {
  const cache = cacheOf();
  const entry = cache.get(connection);
  const expired = entry?.value?.ok === false && entry.settledAt !== null && Date.now() - entry.settledAt > RETRY_AFTER_FAILURE_MS;
  if (entry && !expired) return entry.promise;
  const fresh: CacheEntry = {
    promise: reviewSelf(connection, options).then((value) => {
      fresh.value = value;
      fresh.settledAt = Date.now();
      return value;
    }),
    value: null,
    settledAt: null,
  };
  cache.set(connection, fresh);
  return fresh.promise;
}

/**
 * The cached identity of `connection`, `null` while unknown; starts the lookup in the background
 * when none ran yet (the caller does not wait for it).
 */
export function knownIdentity(connection: KubeConnection | null): IdentityResult | null {
  if (connection === null) return null;
  void whoAmI(connection);
  return cacheOf().get(connection)?.value ?? null;
}

// ---------------------------------------------------------------------------------------------
// RBAC rules

/** The RBAC rule that lets zonescope read one resource type. */
export interface ReadGrant {
  readonly resource: ResourceId;
  /** API group (`""` for the core group). */
  readonly apiGroup: string;
  /** Plural resource name as RBAC names it (`nodes`, `horizontalpodautoscalers`). */
  readonly plural: string;
  /** The namespace zonescope reads it in, `null` for all namespaces. */
  readonly namespace: string | null;
}

/** The verbs zonescope needs on everything it reads (list once, then watch; get for re-reads). */
export const READ_VERBS = ['get', 'list', 'watch'] as const;

/** The grant that lets zonescope read `id`, from the API path it lists. */
export function readGrantFor(id: ResourceId): ReadGrant {
  const descriptor = RESOURCES[id];
  const path = descriptor.paths[0] ?? '';
  const group = /^\/apis\/([^/]+)\//.exec(path)?.[1] ?? '';
  const plural = path.split('/').filter((part) => part !== '').at(-1) ?? id;
  return { resource: id, apiGroup: group, plural, namespace: descriptor.namespace ?? null };
}

/** One rule as a line: `apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"]`. */
export function ruleLine(grants: readonly ReadGrant[]): string {
  const groups = [...new Set(grants.map((g) => g.apiGroup))];
  const resources = [...new Set(grants.map((g) => g.plural))];
  const quote = (list: readonly string[]) => `[${list.map((v) => JSON.stringify(v)).join(', ')}]`;
  return `apiGroups: ${quote(groups)}, resources: ${quote(resources)}, verbs: ${quote(READ_VERBS)}`;
}

/** Default name of the roles the snippet creates. */
export const GRANT_ROLE_NAME = 'zonescope-read-extra';

function rulesYaml(grants: readonly ReadGrant[]): string[] {
  const byGroup = new Map<string, ReadGrant[]>();
  for (const grant of grants) byGroup.set(grant.apiGroup, [...(byGroup.get(grant.apiGroup) ?? []), grant]);
  return [...byGroup.entries()].flatMap(([group, list]) => [
    `- apiGroups: [${JSON.stringify(group)}]`,
    `  resources: [${[...new Set(list.map((g) => JSON.stringify(g.plural)))].join(', ')}]`,
    `  verbs: [${READ_VERBS.map((v) => JSON.stringify(v)).join(', ')}]`,
  ]);
}

/**
 * A ready-to-apply grant of `get, list, watch` on `ids` (one rule per API group) and the commands
 * that bind it to `identity` (a service account binds with `--serviceaccount`). Types zonescope
 * reads cluster-wide go into a ClusterRole; types it reads in one namespace only (kube-system
 * ConfigMaps and DaemonSets) into a Role there, so the grant is no wider than what is read.
 */
export function clusterRoleSnippet(ids: readonly ResourceId[], identity: IdentityResult | null, roleName = GRANT_ROLE_NAME): { readonly yaml: string; readonly bind: readonly string[] } {
  const grants = ids.map(readGrantFor);
  const clusterWide = grants.filter((g) => g.namespace === null);
  const namespaces = [...new Set(grants.map((g) => g.namespace).filter((ns): ns is string => ns !== null))].sort();
  const serviceAccount = identity?.ok ? /^system:serviceaccount:([^:]+):([^:]+)$/.exec(identity.username) : null;
  const subject = serviceAccount
    ? `--serviceaccount=${serviceAccount[1] ?? ''}:${serviceAccount[2] ?? ''}`
    : identity?.ok
      ? `--user=${identity.username}`
      : '--user=<the user zonescope runs as>';
  const documents: string[] = [];
  const bind: string[] = [];
  if (clusterWide.length > 0) {
    documents.push(['apiVersion: rbac.authorization.k8s.io/v1', 'kind: ClusterRole', 'metadata:', `  name: ${roleName}`, 'rules:', ...rulesYaml(clusterWide)].join('\n'));
    bind.push(`kubectl create clusterrolebinding ${roleName} --clusterrole=${roleName} ${subject}`);
  }
  for (const namespace of namespaces) {
    const local = grants.filter((g) => g.namespace === namespace);
    documents.push(['apiVersion: rbac.authorization.k8s.io/v1', 'kind: Role', 'metadata:', `  name: ${roleName}`, `  namespace: ${namespace}`, 'rules:', ...rulesYaml(local)].join('\n'));
    bind.push(`kubectl create rolebinding ${roleName} -n ${namespace} --role=${roleName} ${subject}`);
  }
  return { yaml: documents.join('\n---\n'), bind };
}

/**
 * Whether the dashboard's identity may patch a Service: a SelfSubjectAccessReview, answered once
 * per Service and reused for {@link CAN_PATCH_TTL_MS} (a check that could not run, a few seconds),
 * so page views never storm the API server. A write's own answer (applied, forbidden) refreshes it.
 * The memory belongs to the cluster source and goes with it.
 */
import 'server-only';

import type { ClusterSource } from '../../k8s/cluster-source';
import type { KubeError } from '../../k8s/errors';
import { canPatchService } from '../../k8s/mutations';
import { identityLabel, whoAmI } from '../../k8s/self-subject-review';
import { objectKey } from '../../topology/model/cluster-model';
import { CAN_PATCH_ERROR_TTL_MS, CAN_PATCH_TTL_MS, writeTimeoutMs } from './settings';

/** A permission answer; `checkFailed` when the review could not run (not a denial). */
export interface PermissionAnswer {
  readonly allowed: boolean;
  readonly reason: string | null;
  readonly checkFailed?: boolean;
}

interface PermissionEntry {
  readonly expires: number;
  readonly answer: Promise<PermissionAnswer>;
}

const MEMORY_KEY = Symbol.for('zonescope.topologyModePermissions');
type MemoryHolder = { [MEMORY_KEY]?: WeakMap<ClusterSource, Map<string, PermissionEntry>> };

/** The permission answers of one cluster source, by Service (on `globalThis`: one per process whatever the bundling). */
function permissionsOf(state: ClusterSource): Map<string, PermissionEntry> {
  const holder = globalThis as unknown as MemoryHolder;
  const all = (holder[MEMORY_KEY] ??= new WeakMap());
  let permissions = all.get(state);
  if (permissions === undefined) {
    permissions = new Map();
    all.set(state, permissions);
  }
  return permissions;
}

/** Whether the identity may patch the Service (SelfSubjectAccessReview, cached per Service). */
export async function permission(state: ClusterSource, cluster: string, namespace: string, name: string): Promise<PermissionAnswer> {
  const connection = state.connection;
  if (connection === null) return { allowed: false, reason: 'No cluster is connected.' };
  const permissions = permissionsOf(state);
  const key = objectKey(namespace, name);
  const now = Date.now();
  const cached = permissions.get(key);
  if (cached !== undefined && cached.expires > now) return cached.answer;
  const answer = canPatchService(connection, namespace, name, { timeoutMs: writeTimeoutMs() }).then(async (review) => {
    if (!review.ok) {
      // The check did not run: say so, distinct from an RBAC "no" (issue 12).
      const failed: PermissionAnswer = { allowed: false, reason: permissionCheckFailed(review.error), checkFailed: true };
      permissions.set(key, { expires: Date.now() + CAN_PATCH_ERROR_TTL_MS, answer: Promise.resolve(failed) });
      return failed;
    }
    if (review.allowed) return { allowed: true, reason: null };
    const identity = identityLabel(await whoAmI(connection, { timeoutMs: writeTimeoutMs() }));
    return {
      allowed: false,
      reason: `Not permitted: ${identity} may not patch Services in "${namespace}" in cluster ${cluster}${review.reason ? ` (${review.reason})` : ''}. The RBAC rule that grants it: apiGroups: [""], resources: ["services"], verbs: ["patch"].`,
    };
  });
  permissions.set(key, { expires: now + CAN_PATCH_TTL_MS, answer });
  return answer;
}

/** Why the toggle is disabled when the permission check itself failed (not a denial). */
export function permissionCheckFailed(error: KubeError): string {
  if (error.kind === 'unavailable' || error.kind === 'timeout') {
    return `Could not check permissions: the API server is unreachable (${error.message}). This is not an RBAC denial; the toggle is enabled once the check succeeds.`;
  }
  return `Could not check permissions: the SelfSubjectAccessReview failed (${error.message}). This is not an RBAC denial; the check is retried in a few seconds.`;
}

/** Remembers what a write showed of the permission (applied: allowed; forbidden: not, with the reason). */
export function rememberPermission(state: ClusterSource, namespace: string, name: string, answer: { allowed: boolean; reason: string | null }): void {
  permissionsOf(state).set(objectKey(namespace, name), { expires: Date.now() + CAN_PATCH_TTL_MS, answer: Promise.resolve(answer) });
}

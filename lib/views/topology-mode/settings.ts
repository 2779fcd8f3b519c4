/**
 * The toggle backend's settings: how long a permission answer is reused, the timeout of the
 * PATCH, the re-read and the access review, and why writes are off for a cluster (read-only
 * configuration, a snapshot source, or a dashboard reachable beyond loopback without the auth proxy).
 */
import 'server-only';

import { getConfig } from '../../config/process-config';
import { unauthenticatedWritesReason } from '../../server/exposure';
import type { ClusterScope } from '../../server/clusters';
import { configuredReadOnlyReason } from '../../server/clusters';

/** How long a permission answer is reused (page views must not storm the API server). */
export const CAN_PATCH_TTL_MS = 30_000;
/** How long a permission check that could not run is remembered before it is tried again. */
export const CAN_PATCH_ERROR_TTL_MS = 5_000;
/** Default timeout of the PATCH and of the re-read (`ZONESCOPE_WRITE_TIMEOUT_MS`). */
export const DEFAULT_WRITE_TIMEOUT_MS = 10_000;

export function writeTimeoutMs(): number {
  const value = getConfig().ZONESCOPE_WRITE_TIMEOUT_MS;
  return value === undefined ? DEFAULT_WRITE_TIMEOUT_MS : Math.min(value, 120_000);
}

/** Why the toggle may not write to the scope's cluster, `null` when it may. */
export function readOnlyReason(scope: ClusterScope): string | null {
  const state = scope.source;
  const configured = configuredReadOnlyReason(scope);
  if (configured !== null) return configured;
  if (state.mode === 'snapshot') return 'The data comes from a snapshot file; there is no cluster to write to.';
  // Bound beyond loopback without the auth proxy or the explicit opt-in (see exposure.ts).
  return unauthenticatedWritesReason();
}

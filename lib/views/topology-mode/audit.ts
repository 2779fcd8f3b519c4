/**
 * The toggle's audit trail: one JSON line on stdout per PATCH sent (who, which Service in which
 * cluster, from what to what, the If-Match and what came of it), for the log pipeline to keep.
 */
import 'server-only';

import type { UnknownOutcomeCause } from '../../k8s/mutations';
import type { AuditUser } from '../../server/origin';

/**
 * One audit line per PATCH sent, on stdout: `cluster` names the cluster as the header and the
 * confirmation do (its kubeconfig context follows as `context`); `from` and `to` are `key=value`
 * or `null` (no topology annotation: Disable removes it) or `"unknown"` (the cache was not at the `If-Match` resourceVersion); `outcome` is
 * `applied`, the refusal kind, or — when the answer left it unknown (`cause`) — what the re-read
 * shows: `applied`, `not-applied` or `unknown`.
 */
export interface AuditEntry {
  /** The cluster as the header names it. */
  cluster: string;
  /** Its kubeconfig context (`null`: in-cluster or a snapshot). */
  context: string | null;
  user: AuditUser;
  service: string;
  from: { key: string | null; value: string | null } | 'unknown';
  to: { key: string; value: string } | null;
  ifMatch: string;
  outcome: string;
  cause?: UnknownOutcomeCause;
  resourceVersion?: string;
  auditId?: string;
  /** This request joined an identical write already in flight: one PATCH served both. */
  deduplicated?: boolean;
}

/** Prints one audit line (see {@link AuditEntry}) on stdout. */
export function audit(entry: AuditEntry): void {
  const line = {
    ts: new Date().toISOString(),
    type: 'zonescope.audit',
    action: 'set-topology-mode',
    cluster: entry.cluster,
    ...(entry.context !== null ? { context: entry.context } : {}),
    user: entry.user.user,
    ...(entry.user.unverifiedUser !== null ? { unverifiedUser: entry.user.unverifiedUser } : {}),
    service: entry.service,
    from: entry.from === 'unknown' ? 'unknown' : entry.from.value === null ? null : `${entry.from.key}=${entry.from.value}`,
    to: entry.to === null ? null : `${entry.to.key}=${entry.to.value}`,
    ifMatch: entry.ifMatch,
    outcome: entry.outcome,
    ...(entry.cause !== undefined ? { cause: entry.cause } : {}),
    resourceVersion: entry.resourceVersion ?? null,
    auditId: entry.auditId ?? null,
    ...(entry.deduplicated === true ? { deduplicated: true } : {}),
  };
  console.log(JSON.stringify(line));
}

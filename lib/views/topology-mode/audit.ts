/**
 * The toggle's audit trail: one JSON line on stdout per PATCH sent (who, which Service in which
 * cluster, from what to what, the If-Match and what came of it), for the log pipeline to keep.
 */
import 'server-only';

import type { UnknownOutcomeCause } from '../../k8s/mutations';
import type { AuditUser } from '../../server/origin';

/**
 * One audit line per PATCH sent, on stdout: `from` is `key=value`, `null` (no topology
 * annotation) or `"unknown"` (the cache was not at the `If-Match` resourceVersion); `outcome` is
 * `applied`, the refusal kind, or — when the answer left it unknown (`cause`) — what the re-read
 * shows: `applied`, `not-applied` or `unknown`.
 */
export function audit(entry: {
  cluster: string;
  user: AuditUser;
  service: string;
  from: { key: string | null; value: string | null } | 'unknown';
  to: { key: string; value: string };
  ifMatch: string;
  outcome: string;
  cause?: UnknownOutcomeCause;
  resourceVersion?: string;
  auditId?: string;
}): void {
  const line = {
    ts: new Date().toISOString(),
    type: 'zonescope.audit',
    action: 'set-topology-mode',
    cluster: entry.cluster,
    user: entry.user.user,
    ...(entry.user.unverifiedUser !== null ? { unverifiedUser: entry.user.unverifiedUser } : {}),
    service: entry.service,
    from: entry.from === 'unknown' ? 'unknown' : entry.from.value === null ? null : `${entry.from.key}=${entry.from.value}`,
    to: `${entry.to.key}=${entry.to.value}`,
    ifMatch: entry.ifMatch,
    outcome: entry.outcome,
    ...(entry.cause !== undefined ? { cause: entry.cause } : {}),
    resourceVersion: entry.resourceVersion ?? null,
    auditId: entry.auditId ?? null,
  };
  console.log(JSON.stringify(line));
}

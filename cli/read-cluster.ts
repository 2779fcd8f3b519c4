/**
 * Reading the cluster `npm run analyze` analyses: a snapshot (kubectl dump files) or a live
 * cluster (a kubeconfig context or the Pod's service account), synced once within `--timeout`.
 * What it gives: the cluster index and the types the identity may not read, with warnings; or why
 * nothing can be analysed (exit 3): unreachable, not synced in time, Services or EndpointSlices
 * forbidden (with the RBAC rule that would grant them), an empty snapshot.
 */
import { permanentFailure } from '../lib/k8s/cluster-source';
import { createClusterSource } from '../lib/k8s/cluster-sources/create-source';
import type { ResourceId } from '../lib/k8s/resources';
import { RESOURCES } from '../lib/k8s/resources';
import { identityLabel, readGrantFor, ruleLine, whoAmI } from '../lib/k8s/self-subject-review';
import { loadSnapshot } from '../lib/k8s/snapshot/load';
import type { SnapshotSummary } from '../lib/k8s/snapshot/results';
import { formatProblem } from '../lib/k8s/snapshot/results';
import type { Config } from '../lib/config/variables';
import type { ClusterIndex } from '../lib/topology/model/cluster-model';
import { indexCluster } from '../lib/topology/model/cluster-model';

/** What an empty snapshot did hold, and how to make one zonescope can read. */
function emptySnapshotDetail(summary: SnapshotSummary): string {
  const ignored = Object.entries(summary.ignoredKinds).map(([kind, n]) => `${n} ${kind}`);
  const read = `read ${summary.files.length} file(s), ${summary.documents} document(s)${ignored.length > 0 ? `; kinds zonescope does not read: ${ignored.join(', ')}` : ''}`;
  return `${read}. Dump at least the Nodes and Services: kubectl get nodes,services,endpointslices,pods,deployments,replicasets,hpa,events -A -o yaml > dump.yaml`;
}

/** Resource types without which no answer is possible: the Services and their endpoints. */
const REQUIRED_TYPES: readonly ResourceId[] = ['services', 'endpointslices'];

/** What was read: the index and the types the identity could not read (live only). */
export interface ClusterRead {
  readonly index: ClusterIndex;
  readonly unreadable: readonly ResourceId[];
}

/** `grant get, list, watch on …: apiGroups: [""], resources: ["nodes"], verbs: [...]` per API group. */
function grantLines(ids: readonly ResourceId[]): string[] {
  const byGroup = new Map<string, ResourceId[]>();
  for (const id of ids) {
    const group = readGrantFor(id).apiGroup;
    byGroup.set(group, [...(byGroup.get(group) ?? []), id]);
  }
  return [...byGroup.values()].map((group) => `  RBAC rule that grants it: ${ruleLine(group.map(readGrantFor))}`);
}

/** What reading one cluster gave: the data and its warnings, or why it could not be read (exit 3). */
export type ReadOutcome = { readonly ok: true; readonly read: ClusterRead; readonly warnings: readonly string[] } | { readonly ok: false; readonly message: string };

/** Reads a snapshot: `--snapshot` files and folders, merged. */
export async function readSnapshotFiles(paths: readonly string[]): Promise<ReadOutcome> {
  const result = await loadSnapshot([...paths]);
  if (!result.ok) return { ok: false, message: `cannot load the snapshot:\n${result.errors.map((p) => `  ${formatProblem(p)}`).join('\n')}` };
  if (result.snapshot.services.length === 0 && result.snapshot.nodes.length === 0) {
    // Nothing to analyse: passing every --fail-on rule on no data would be a lie.
    return { ok: false, message: `the snapshot contains no objects zonescope reads (no Services and no Nodes) — ${emptySnapshotDetail(result.summary)}` };
  }
  return { ok: true, read: { index: indexCluster(result.snapshot), unreadable: [] }, warnings: [] };
}

/** Reads the live cluster that `config` names (`ZONESCOPE_CONTEXT`, the kubeconfig or the service account), waiting `timeoutSeconds` for its sync. */
export async function readLive(config: Config, timeoutSeconds: number): Promise<ReadOutcome> {
  const state = createClusterSource({ ...config, ZONESCOPE_SNAPSHOT: [] });
  if (state.mode !== 'live') return { ok: false, message: `cannot reach the cluster: ${state.problems().join('; ') || 'no kubeconfig'}` };
  state.start();
  try {
    const synced = await state.waitForSync(timeoutSeconds * 1000);
    const problems = state.statuses().filter((s) => s.health !== 'synced');
    const failure = synced ? null : permanentFailure(state.statuses());
    // A context, TLS or credential problem: it does not fix itself, so say so now instead of after --timeout.
    if (failure !== null) return { ok: false, message: `cannot read the cluster: ${failure.message}` };
    if (!synced) {
      return { ok: false, message: `the cluster did not sync within ${timeoutSeconds} s: ${problems.map((s) => `${s.title}: ${s.error?.message ?? s.health}`).join('; ')}` };
    }
    const forbidden = problems.filter((s) => s.health === 'forbidden').map((s) => s.id);
    const identity = forbidden.length > 0 && state.connection !== null ? identityLabel(await whoAmI(state.connection, { timeoutMs: 10_000 })) : null;
    const missing = REQUIRED_TYPES.filter((id) => forbidden.includes(id));
    if (missing.length > 0) {
      return {
        ok: false,
        message: [
          `could not read the cluster: zonescope could not read ${missing.map((id) => RESOURCES[id].title).join(', ')} (forbidden) as ${identity ?? 'the current identity'}; every answer needs them.`,
          ...grantLines(missing),
        ].join('\n'),
      };
    }
    const warnings = problems.map((s) =>
      s.health === 'forbidden'
        ? `warning: zonescope could not read ${s.title} (forbidden) as ${identity ?? 'the current identity'}: the answers that depend on it are unknown.\n${grantLines([s.id]).join('\n')}`
        : `warning: ${s.title} ${s.health}${s.error ? `: ${s.error.message}` : ''}`,
    );
    return { ok: true, read: { index: state.index(), unreadable: forbidden }, warnings };
  } finally {
    await state.stop();
  }
}

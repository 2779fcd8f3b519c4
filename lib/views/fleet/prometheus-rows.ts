/**
 * The fleet Prometheus's answers as fleet rows (pure): one row per value of the cluster label,
 * marked as from Prometheus and without links, with the figures the exporter's per-cluster series
 * carry and a freshness from the installation's sync state and age; and whether such a row names a
 * cluster this installation connects to.
 *
 * Every sample is checked before it is used: a value that is NaN or ±Inf (legal in Prometheus), a
 * sample the client could not read (its value or timestamp not a number), a count below zero, a
 * timestamp or an age that is no time — each leaves that figure of that row without a value and
 * says why in the row's `unknown` notes. Nothing one installation exports can cost another row.
 */
import type { ClusterPlatform } from '../../topology/analyses/analyze-dataplane';
import type { ProxyMode } from '../../topology/model/cluster-model';
import { HINTS_REASON_CODES, HINTS_REASON_TEXT, type HintsReasonCode } from '../../topology/report/hints-reason';
import type { VectorSample } from '../../prometheus/client';
import type { FleetAnswers, FleetQueryName } from './prometheus-queries';
import { clusterInfo, FLEET_QUERY_NAMES, FLEET_QUERY_SERIES } from './prometheus-queries';
import type { FleetRow } from './row';

/** Above this `zonescope_sync_age_seconds` an installation's data counts as stale. */
export const FLEET_STALE_SYNC_AGE_SECONDS = 300;

const PLATFORMS: readonly ClusterPlatform[] = ['eks', 'gke', 'aks', 'other'];
const PROXY_MODES: readonly ProxyMode[] = ['iptables', 'ipvs', 'nftables', 'kernelspace', 'unknown'];

/** `zonescope_cluster_insufficient_cause_info{cause}` in words. */
const CAUSE_TEXT: Readonly<Record<string, string>> = {
  'no-counted-nodes': 'no ready node with a zone label and allocatable CPU',
  'node-missing-zone': 'a ready node lacks a zone label',
  'node-missing-cpu': 'a ready node lacks allocatable CPU',
  'single-zone': 'ready nodes are in one zone only',
};

/** The row id of a cluster known only from the fleet Prometheus (not a URL: nothing here opens it). */
export function prometheusRowId(cluster: string): string {
  return `prometheus:${cluster}`;
}

interface Acc {
  labels: Readonly<Record<string, string>> | null;
  ownName: string | null;
  /** The installation exports `zonescope_cluster_synced` (whatever its value): it is a cluster. */
  exported: boolean;
  values: Partial<Record<FleetQueryName, number>>;
  cost: Partial<Record<string, number>>;
  mechanisms: Map<string, number>;
  /** A `zonescope_services` series had no usable value: the Service counts are unknown. */
  mechanismsUnknown: boolean;
  cause: string | null;
  top: { namespace: string; name: string; cost: number } | null;
  reason: HintsReasonCode | null;
  /** What could not be used, one sentence each (the row's `unknown`). */
  notes: string[];
}

const finite = (value: number | undefined): number | null => (value !== undefined && Number.isFinite(value) ? value : null);

/** Largest time a JavaScript Date holds, in milliseconds either side of 1970. */
const MAX_DATE_MS = 8.64e15;

/** A number as Prometheus writes it (`NaN`, `+Inf`, `-Inf`, `1e+300`). */
function shown(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}

/** Why a sample's value cannot be used, `null` when it can. */
function sampleProblem(sample: VectorSample): string | null {
  if (sample.problem !== undefined) return sample.problem;
  return Number.isFinite(sample.value) ? null : `its value is ${shown(sample.value)}`;
}

/** The labels that tell a query's series of one cluster apart. */
const SERIES_LABELS: Partial<Record<FleetQueryName, readonly string[]>> = { cost: ['scenario'], services: ['mechanism'], insufficientCause: ['cause'], top: ['namespace', 'service'] };

/** The series as a note names it: its name and the labels that tell it apart within a cluster. */
function seriesName(name: FleetQueryName, sample: VectorSample): string {
  const extra = (SERIES_LABELS[name] ?? []).filter((label) => sample.metric[label] !== undefined).map((label) => `${label}="${sample.metric[label] ?? ''}"`);
  return `${FLEET_QUERY_SERIES[name]}${extra.length > 0 ? `{${extra.join(',')}}` : ''}`;
}

function note(a: Acc, text: string): void {
  if (!a.notes.includes(text)) a.notes.push(text);
}

function reasonCode(value: string | undefined): HintsReasonCode | null {
  return value !== undefined && (HINTS_REASON_CODES as readonly string[]).includes(value) ? (value as HintsReasonCode) : null;
}

/**
 * One fleet row per value of the cluster label on `zonescope_cluster_synced`, in label order. `nowMs` is when
 * the queries ran; each row's `asOf` is the time of its installation's last scraped sample.
 */
export function fleetRowsFromAnswers(answers: FleetAnswers, clusterLabel: string, nowMs: number): FleetRow[] {
  const clusters = new Map<string, Acc>();
  const acc = (sample: VectorSample): Acc | null => {
    const name = sample.metric[clusterLabel];
    if (name === undefined || name === '') return null;
    let entry = clusters.get(name);
    if (entry === undefined) {
      entry = { labels: null, ownName: null, exported: false, values: {}, cost: {}, mechanisms: new Map(), mechanismsUnknown: false, cause: null, top: null, reason: null, notes: [] };
      clusters.set(name, entry);
    }
    return entry;
  };
  for (const name of FLEET_QUERY_NAMES) {
    for (const sample of answers[name]) {
      const a = acc(sample);
      if (a === null) continue;
      if (name === 'synced') a.exported = true;
      // These read labels only: resolved below.
      if (name === 'info' || name === 'instances' || name === 'topReason') continue;
      const problem = sampleProblem(sample);
      if (problem !== null) {
        note(a, `${seriesName(name, sample)} has no usable value in the fleet Prometheus (${problem}): shown as no value.`);
        if (name === 'services') a.mechanismsUnknown = true;
        continue;
      }
      switch (name) {
        case 'insufficientCause':
          if (sample.value === 1 && sample.metric.cause !== undefined) a.cause = sample.metric.cause;
          break;
        case 'services':
          a.mechanisms.set(sample.metric.mechanism ?? '', (a.mechanisms.get(sample.metric.mechanism ?? '') ?? 0) + sample.value);
          break;
        case 'cost':
          if (sample.metric.scenario !== undefined) a.cost[sample.metric.scenario] = sample.value;
          break;
        case 'top':
          if (Number.isFinite(sample.value) && (a.top === null || sample.value > a.top.cost)) {
            a.top = { namespace: sample.metric.namespace ?? '', name: sample.metric.service ?? '', cost: sample.value };
          }
          break;
        default:
          a.values[name] = sample.value;
      }
    }
  }
  for (const [cluster, info] of clusterInfo(answers, clusterLabel)) {
    const a = clusters.get(cluster);
    if (a !== undefined) {
      a.labels = info.labels;
      a.ownName = info.ownName;
    }
  }
  for (const sample of answers.topReason) {
    const a = acc(sample);
    if (a?.top && sample.metric.namespace === a.top.namespace && sample.metric.service === a.top.name) a.reason = reasonCode(sample.metric.reason) ?? a.reason;
  }
  // Every installation exports zonescope_cluster_synced. A value seen only on other series is not a
  // cluster: e.g. zonescope_cluster_info's own `cluster` label (the installation's display name)
  // where a scrape added no cluster label.
  return [...clusters.entries()]
    .filter(([, a]) => a.exported)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([name, a]) => {
      try {
        return rowOf(name, a, nowMs);
      } catch (error) {
        // Whatever else goes wrong with one installation's figures costs its row's figures only.
        return rowOf(name, { ...blankAcc(a), notes: [...a.notes, `Its figures could not be read: ${error instanceof Error ? error.message : String(error)}.`] }, nowMs);
      }
    });
}

/** The row's labels without any figure. */
function blankAcc(a: Acc): Acc {
  return { labels: a.labels, ownName: a.ownName, exported: true, values: {}, cost: {}, mechanisms: new Map(), mechanismsUnknown: false, cause: null, top: null, reason: null, notes: [] };
}

/** A figure that must be a count (zero or more), with a note when it is not. */
function count(a: Acc, name: FleetQueryName, value: number | null): number | null {
  if (value === null || value >= 0) return value;
  note(a, `${FLEET_QUERY_SERIES[name]} is ${shown(value)} in the fleet Prometheus, not a count: shown as no value.`);
  return null;
}

function rowOf(cluster: string, a: Acc, nowMs: number): FleetRow {
  const labels = a.labels ?? {};
  let minor = finite(a.values.minor);
  if (minor !== null && !(Number.isInteger(minor) && minor >= 0 && minor < 1000)) {
    note(a, `zonescope_cluster_kubernetes_minor is ${shown(minor)} in the fleet Prometheus, not a minor version: shown as no value.`);
    minor = null;
  }
  const release = minor !== null ? `1.${minor}` : (labels.kubernetes_version ?? null);
  const platform = PLATFORMS.find((p) => p === labels.platform) ?? null;
  const proxyMode = PROXY_MODES.find((p) => p === labels.proxy_mode) ?? null;
  const eligibleValue = finite(a.values.eligible);
  const eligible = eligibleValue === null ? null : eligibleValue === 1;
  const eligibilityVerdict =
    eligible === null ? null : eligible ? 'Eligible: the topology cache has CPU ratios' : `Not eligible: ${a.cause !== null && a.cause !== 'none' ? (CAUSE_TEXT[a.cause] ?? a.cause) : 'the topology cache has no CPU ratios'}`;
  const services = count(a, 'services', a.mechanisms.size > 0 && !a.mechanismsUnknown ? [...a.mechanisms.values()].reduce((s, n) => s + n, 0) : null);
  const now = finite(a.cost.now);
  const best = finite(a.cost.best);
  const synced = finite(a.values.synced);
  let sampleTime = finite(a.values.sampleTime);
  if (sampleTime !== null && !(Math.abs(sampleTime * 1000) <= MAX_DATE_MS)) {
    note(a, `timestamp(zonescope_cluster_synced) is ${shown(sampleTime)} in the fleet Prometheus, not a time: the row is as of the query.`);
    sampleTime = null;
  }
  let syncAge = finite(a.values.syncAge);
  if (syncAge !== null && !(syncAge >= 0 && Math.abs((sampleTime ?? nowMs / 1000) * 1000 - syncAge * 1000) <= MAX_DATE_MS)) {
    note(a, `zonescope_sync_age_seconds is ${shown(syncAge)} in the fleet Prometheus, not an age: the row's freshness is unknown.`);
    syncAge = null;
  }
  const asOf = new Date(sampleTime !== null ? sampleTime * 1000 : nowMs).toISOString();
  const named = a.ownName !== null ? ` (it calls itself "${a.ownName}")` : '';
  let freshness: FleetRow['freshness'];
  if (synced === 0) {
    freshness = { kind: 'syncing', label: 'Syncing', message: `From the fleet Prometheus${named}: the installation's first sync still runs.`, since: null, progress: null };
  } else if (syncAge !== null && syncAge > FLEET_STALE_SYNC_AGE_SECONDS) {
    const since = new Date((sampleTime ?? nowMs / 1000) * 1000 - syncAge * 1000).toISOString();
    freshness = { kind: 'stale', label: `Stale since ${since.slice(11, 19)} UTC`, message: `From the fleet Prometheus${named}: its data is ${Math.round(syncAge)} s old (zonescope_sync_age_seconds).`, since, progress: null };
  } else {
    freshness = { kind: 'synced', label: 'Synced', message: named === '' ? null : `From the fleet Prometheus${named}.`, since: null, progress: null };
  }
  const top = a.top !== null && a.top.cost > 0 ? a.top : null;
  return {
    id: prometheusRowId(cluster),
    displayName: cluster,
    context: null,
    server: null,
    isDefault: false,
    state: 'idle',
    source: 'prometheus',
    href: null,
    freshness,
    refused: null,
    release,
    gitVersion: null,
    platform,
    eligible,
    eligibilityVerdict,
    proxyMode,
    serviceProxy: null,
    honoursHints: null,
    services,
    askingForHints: services === null ? null : services - (a.mechanisms.get('none') ?? 0),
    hintsOn: count(a, 'hintsObserved', finite(a.values.hintsObserved)),
    needingAttention: count(a, 'attention', finite(a.values.attention)),
    crossZoneMonthly: now,
    bestMonthly: best,
    saving: now !== null && best !== null ? Math.max(0, now - best) : null,
    measured: null,
    volumeSource: null,
    topService:
      top === null
        ? null
        : { namespace: top.namespace, name: top.name, href: null, monthlyCost: top.cost, bestMonthlyCost: null, reason: a.reason !== null ? HINTS_REASON_TEXT[a.reason] : null, fix: null },
    commonAttention: null,
    unknown: a.notes,
    asOf,
  };
}

/**
 * Whether a connected cluster and a cluster label value name the same cluster: the value is the
 * connected cluster's id, context or display name, or the display name the installation exports.
 */
export function sameCluster(connected: Pick<FleetRow, 'id' | 'context' | 'displayName'>, cluster: string, exportedName: string | null): boolean {
  const names = new Set([connected.id, connected.context, connected.displayName].filter((n): n is string => n !== null && n !== ''));
  return names.has(cluster) || (exportedName !== null && exportedName !== '' && names.has(exportedName));
}

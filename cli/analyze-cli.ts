/**
 * The `analyze` command: the analysis of a snapshot or a live cluster as text, JSON or Markdown,
 * with `--fail-on` thresholds for CI gating; or of several live clusters (`--all-contexts`,
 * `--contexts A,B`), one section each, the thresholds applied to each. `main()` takes argv and
 * streams so tests can run it in-process; `cli/analyze.ts` is the executable entry.
 */
import { readFile } from 'node:fs/promises';

import { permanentFailure } from '../lib/k8s/cluster-source';
import { createClusterSource } from '../lib/k8s/cluster-sources/create-source';
import type { ClusterEntry } from '../lib/k8s/cluster-entries';
import { clusterEntriesFromEnv } from '../lib/k8s/cluster-entries';
import type { Config } from '../lib/config/variables';
import { formatConfigErrors, parseConfig } from '../lib/config/config';
import type { ResourceId } from '../lib/k8s/resources';
import { RESOURCES } from '../lib/k8s/resources';
import { identityLabel, readGrantFor, ruleLine, whoAmI } from '../lib/k8s/self-subject-review';
import type { SourceResource } from '../lib/topology/model/cluster-model';
import { CLUSTER_ANSWER_NEEDS, SERVICE_ANSWER_NEEDS, unknownMessage } from '../lib/topology/report/unknowns';
import type { SnapshotSummary } from '../lib/k8s/snapshot/results';
import { formatProblem } from '../lib/k8s/snapshot/results';
import { loadSnapshot } from '../lib/k8s/snapshot/load';
import { formatAmount } from '../lib/topology/analyses/service-volume';
import { measuredTrafficFromSeries } from '../lib/topology/analyses/measured-traffic';
import type { MeasuredTraffic } from '../lib/topology/analyses/traffic-volume';
import { parsePriceSetting } from '../lib/topology/model/cloud-pricing';
import { metricsConfigFromEnv } from '../lib/prometheus/config';
import type { MetricsStatus } from '../lib/prometheus/traffic-status';
import { TrafficSource } from '../lib/prometheus/traffic-source';
import type { ServiceTrafficCost } from '../lib/topology/analyses/traffic-volume';
import type { ClusterAnalysis, ServiceDetail, ServiceReport } from '../lib/topology/report/analysis-schema';
import { analyzeClusterIn } from '../lib/topology/report/cluster-analysis';
import { prepareAnalysis } from '../lib/topology/report/prepared-analysis';
import { analyzeServiceIn } from '../lib/topology/report/service-detail';
import type { AnalysisOptions } from '../lib/topology/model/analysis-options';
import { MAX_GB_PER_MONTH, MAX_PRICE_PER_GB } from '../lib/topology/model/analysis-options';
import type { ClusterIndex } from '../lib/topology/model/cluster-model';
import { indexCluster } from '../lib/topology/model/cluster-model';

export const USAGE = `usage: npm run analyze -- [--snapshot PATH | --context NAME | --all-contexts | --contexts A,B] [options]

  without --snapshot       the live cluster of the kubeconfig's current context (KUBECONFIG or
                           ~/.kube/config), or the Pod's service account when run in a cluster
  --snapshot PATH          a kubectl dump (file or folder of .yaml/.yml/.json); repeatable
  --context NAME           the live cluster of this kubeconfig context instead of the current one
  --all-contexts           every context of the kubeconfig (or those ZONESCOPE_CONTEXTS lists),
                           two at a time, each with its own --timeout: one section per cluster
                           (JSON: {"clusters": [...]}) and --fail-on applied to each
  --contexts A,B           these contexts, in this order, as --all-contexts reads them
  --service NS/NAME        only this Service, with every detail
  --format text|json|markdown   output format (default text)
  --fail-on RULE           exit 1 when RULE holds; repeatable. Rules:
                             cross-zone>F          any Service's cross-zone fraction now > F (0–1)
                             cross-zone-if-auto>F  the same, with topology mode Auto
                             cross-zone-cost>USD   the cluster's cross-zone traffic costs more than USD
                                                   a month now (with --service: that Service's)
                             hints-off             an Auto/legacy-annotated Service whose hints are expected off
                             attention>N           more than N Services need attention
                             ineligible            the cluster cannot use Topology Aware Routing
  --kubernetes-version V   model release V (e.g. 1.30) instead of the cluster's
  --gb-per-endpoint N      GB per month assumed per ready endpoint of a Service (default 50)
  --gb-per-month N         a flat GB per month for every Service instead of per endpoint
  --volumes FILE           JSON {"namespace/name": GB per month, …}: the volume of single
                           Services (wins over --gb-per-endpoint and --gb-per-month)
  --price SPEC             what cross-zone traffic costs: aws, gcp or azure (their published
                           prices), or USD/GB|GiB xN (e.g. 0.01/GB x2: charged leaving and entering);
                           default: the price of the cloud the cluster runs on (AWS's when unknown)
  --price-per-gb N         the same as --price N/GB x2 (USD per GB in each direction, as AWS)
  --prometheus URL         measure traffic volumes from this Prometheus (Beyla/OBI flows, cAdvisor
                           pod bytes; ZONESCOPE_PROMETHEUS_TOKEN_FILE, _CA_FILE and _WINDOW apply);
                           the report says what it measured, or why nothing
  --prometheus-selector M  label matchers of this cluster's series on a shared Prometheus/Thanos
                           (e.g. cluster="prod")
  --traffic ZONE=SHARE[,ZONE=SHARE…]   client traffic share per zone (0–1; others split the rest by CPU)
  --timeout SECONDS        live sync timeout, per cluster (default 60)

Live clusters: a resource type the identity may not read (403) leaves the answers that depend on it
"unknown: zonescope could not read <Type> (forbidden)" (JSON: "unreadable", "cluster.unknown",
"services[].unknown"), and a --fail-on rule that needs such an answer fails closed.

exit codes: 0 ok
            1 a --fail-on rule held, or could not be evaluated because a type it needs was forbidden
            2 bad arguments
            3 the cluster could not be read (unreachable, no sync within --timeout, Services or
              EndpointSlices forbidden: every answer needs them; with --service: no such Service)
            With --all-contexts or --contexts each cluster gets one of 0, 1 and 3, and the command
            exits with the worst of them (3 over 1 over 0): one unreachable cluster is exit 3
            even when every other passed.`;

/** Where output goes (stdout/stderr in the CLI, buffers in tests). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export type FailRule = { kind: 'cross-zone' | 'cross-zone-if-auto' | 'cross-zone-cost' | 'attention'; threshold: number } | { kind: 'hints-off' | 'ineligible' };

export interface Args {
  snapshots: string[];
  context: string | null;
  /**
   * Several clusters (`--all-contexts`, `--contexts A,B`): `contexts` lists the chosen ones, `null`
   * means every context of the kubeconfig (or those `ZONESCOPE_CONTEXTS` lists). `null` for one cluster.
   */
  clusters: { readonly contexts: readonly string[] | null } | null;
  service: { namespace: string; name: string } | null;
  format: 'text' | 'json' | 'markdown';
  failOn: FailRule[];
  options: AnalysisOptions;
  /** `--volumes FILE`, read by {@link readVolumes} before the cluster. */
  volumesFile: string | null;
  /** `--prometheus URL` and `--prometheus-selector M`: measure volumes there; `null` without. */
  prometheus: { url: string; selector: string } | null;
  timeoutSeconds: number;
}

function parseRule(text: string): FailRule | string {
  if (text === 'hints-off' || text === 'ineligible') return { kind: text };
  const match = /^(cross-zone|cross-zone-if-auto|cross-zone-cost|attention)>(\d+(?:\.\d+)?)$/.exec(text);
  if (!match) return `unknown --fail-on rule "${text}"`;
  const kind = match[1] as 'cross-zone' | 'cross-zone-if-auto' | 'cross-zone-cost' | 'attention';
  const threshold = Number(match[2]);
  if ((kind === 'cross-zone' || kind === 'cross-zone-if-auto') && threshold > 1) return `--fail-on ${kind} takes a fraction from 0 to 1, got ${threshold}`;
  return { kind, threshold };
}

function positive(flag: string, value: string, max = Number.POSITIVE_INFINITY): number | string {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(n) || n < 0) return `${flag} needs a non-negative number, got "${value}"`;
  return n <= max ? n : `${flag} takes a number from 0 to ${max}, got ${value}`;
}

/**
 * Reads `--volumes FILE`: a JSON object of `"namespace/name": GB per month` (numbers from 0 to
 * 10⁹). Returns the volumes, or a message naming the file and what is wrong with it.
 */
export async function readVolumes(file: string): Promise<Record<string, number> | string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : 'error';
    return `--volumes ${file}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`}`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `--volumes ${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return `--volumes ${file}: expected a JSON object {"namespace/name": GB per month, …}`;
  const volumes: Record<string, number> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const parts = key.split('/');
    if (parts.length !== 2 || !parts[0] || !parts[1]) return `--volumes ${file}: key "${key}" is not namespace/name`;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_GB_PER_MONTH) {
      return `--volumes ${file}: "${key}" must be a number of GB per month from 0 to ${MAX_GB_PER_MONTH}, got ${JSON.stringify(value)}`;
    }
    volumes[key] = value;
  }
  return volumes;
}

/** Parses arguments; returns a message on error. */
export function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { snapshots: [], context: null, clusters: null, service: null, format: 'text', failOn: [], options: {}, volumesFile: null, prometheus: null, timeoutSeconds: 60 };
  const options: { -readonly [K in keyof AnalysisOptions]: AnalysisOptions[K] } = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    if (flag === '--') continue;
    if (flag === '--all-contexts') {
      args.clusters = { contexts: args.clusters?.contexts ?? null };
      continue;
    }
    const value = argv[i + 1];
    const need = () => (value === undefined || value.startsWith('--') ? `${flag} needs a value` : null);
    const missing = ['--snapshot', '--context', '--contexts', '--service', '--format', '--fail-on', '--kubernetes-version', '--gb-per-endpoint', '--gb-per-month', '--volumes', '--price', '--price-per-gb', '--prometheus', '--prometheus-selector', '--traffic', '--timeout'].includes(flag) ? need() : null;
    if (missing) return missing;
    const v = value ?? '';
    switch (flag) {
      case '--snapshot': args.snapshots.push(v); break;
      case '--context': args.context = v; break;
      case '--contexts': {
        const names = v.split(',').map((name) => name.trim());
        if (names.some((name) => name === '')) return `--contexts needs comma-separated context names, got "${v}"`;
        args.clusters = { contexts: [...new Set(names)] };
        break;
      }
      case '--service': {
        const [namespace, name, extra] = v.split('/');
        if (!namespace || !name || extra !== undefined) return `--service needs NAMESPACE/NAME, got "${v}"`;
        args.service = { namespace, name };
        break;
      }
      case '--format':
        if (v !== 'text' && v !== 'json' && v !== 'markdown') return `--format must be text, json or markdown, got "${v}"`;
        args.format = v;
        break;
      case '--fail-on': {
        const rule = parseRule(v);
        if (typeof rule === 'string') return rule;
        args.failOn.push(rule);
        break;
      }
      case '--kubernetes-version': options.kubernetesVersion = v; break;
      case '--gb-per-endpoint': {
        const n = positive(flag, v, MAX_GB_PER_MONTH);
        if (typeof n === 'string') return n;
        options.gbPerEndpoint = n;
        break;
      }
      case '--gb-per-month': {
        const n = positive(flag, v, MAX_GB_PER_MONTH);
        if (typeof n === 'string') return n;
        options.gbPerMonth = n;
        break;
      }
      case '--volumes': args.volumesFile = v; break;
      case '--price-per-gb': {
        const n = positive(flag, v, MAX_PRICE_PER_GB);
        if (typeof n === 'string') return n;
        options.pricePerGb = n;
        break;
      }
      case '--price': {
        const parsed = parsePriceSetting(v);
        if (!parsed.ok) return `--price ${parsed.message}`;
        options.crossZonePrice = parsed.setting;
        break;
      }
      case '--prometheus': args.prometheus = { url: v, selector: args.prometheus?.selector ?? '' }; break;
      case '--prometheus-selector': args.prometheus = { url: args.prometheus?.url ?? '', selector: v }; break;
      case '--traffic': {
        const shares: Record<string, number> = {};
        for (const part of v.split(',')) {
          const [zone, share] = part.split('=');
          const n = Number(share);
          if (!zone || share === undefined || !Number.isFinite(n) || n < 0 || n > 1) return `--traffic needs ZONE=SHARE with SHARE from 0 to 1, got "${part}"`;
          shares[zone] = n;
        }
        options.trafficByZone = shares;
        break;
      }
      case '--timeout': {
        const n = positive(flag, v);
        if (typeof n === 'string') return n;
        args.timeoutSeconds = n;
        break;
      }
      default:
        return `unknown argument "${flag}"`;
    }
    i++;
  }
  if (args.snapshots.length > 0 && args.context !== null) return '--snapshot and --context are exclusive: give exactly one of them, or neither for the current context';
  if (args.clusters !== null && args.snapshots.length > 0) return '--snapshot and --all-contexts/--contexts are exclusive: a snapshot is one cluster';
  if (args.clusters !== null && args.context !== null) return '--context and --all-contexts/--contexts are exclusive: name several contexts with --contexts A,B';
  if (options.crossZonePrice !== undefined && options.pricePerGb !== undefined) return '--price and --price-per-gb are exclusive: --price-per-gb N is --price N/GB x2';
  if (args.prometheus !== null && args.prometheus.url === '') return '--prometheus-selector needs --prometheus URL';
  if (args.prometheus !== null && args.clusters !== null) return '--prometheus reads one cluster: use it with --snapshot or --context, not --all-contexts/--contexts';
  args.options = options;
  return args;
}

/** What an empty snapshot did hold, and how to make one zonescope can read. */
function emptySnapshotDetail(summary: SnapshotSummary): string {
  const ignored = Object.entries(summary.ignoredKinds).map(([kind, n]) => `${n} ${kind}`);
  const read = `read ${summary.files.length} file(s), ${summary.documents} document(s)${ignored.length > 0 ? `; kinds zonescope does not read: ${ignored.join(', ')}` : ''}`;
  return `${read}. Dump at least the Nodes and Services: kubectl get nodes,services,endpointslices,pods,deployments,replicasets,hpa,events -A -o yaml > dump.yaml`;
}

/** Resource types without which no answer is possible: the Services and their endpoints. */
const REQUIRED_TYPES: readonly ResourceId[] = ['services', 'endpointslices'];

/** What was read: the index and the types the identity could not read (live only). */
interface ClusterRead {
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
type ReadOutcome = { readonly ok: true; readonly read: ClusterRead; readonly warnings: readonly string[] } | { readonly ok: false; readonly message: string };

async function readSnapshotFiles(paths: readonly string[]): Promise<ReadOutcome> {
  const result = await loadSnapshot([...paths]);
  if (!result.ok) return { ok: false, message: `cannot load the snapshot:\n${result.errors.map((p) => `  ${formatProblem(p)}`).join('\n')}` };
  if (result.snapshot.services.length === 0 && result.snapshot.nodes.length === 0) {
    // Nothing to analyse: passing every --fail-on rule on no data would be a lie.
    return { ok: false, message: `the snapshot contains no objects zonescope reads (no Services and no Nodes) — ${emptySnapshotDetail(result.summary)}` };
  }
  return { ok: true, read: { index: indexCluster(result.snapshot), unreadable: [] }, warnings: [] };
}

/** Reads the live cluster that `config` names (`ZONESCOPE_CONTEXT`, the kubeconfig or the service account), waiting `timeoutSeconds` for its sync. */
async function readLive(config: Config, timeoutSeconds: number): Promise<ReadOutcome> {
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

const pct = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

const DOLLARS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `$1,234.56`. */
const usd = (value: number) => `$${DOLLARS.format(value)}`;

/** Why the cross-zone figures are unknown (Nodes unreadable, too many zones), `null` when they are known. */
function crossZoneUnknown(analysis: ClusterAnalysis): string | null {
  for (const service of analysis.services) if (service.unknown.crossZone !== undefined) return service.unknown.crossZone;
  return null;
}

const SCENARIO_WORDS = { now: 'now', expected: 'after the next sync', best: 'best achievable' } as const;
const BEST_WORDS = { now: 'as now', expected: 'after the next sync', ifAuto: 'with topology mode Auto', fix: 'with its smallest fix' } as const;

/** How the volumes are set on this command line (the source notes name the dashboard's settings). */
const VOLUME_FLAGS = 'On this command line: --prometheus URL (measured), --gb-per-endpoint N, --gb-per-month N (flat), --volumes FILE ({"namespace/name": GB}), --price SPEC.';

function topLine(row: ServiceTrafficCost): string {
  const best = row.saving > 0 ? `; best ${usd(row.bestMonthlyCost)} ${BEST_WORDS[row.bestScenario]}, saves ${usd(row.saving)}` : '';
  const fix = row.fix !== null ? `; fix: ${row.fix}${row.fixSaving !== null && row.fixSaving > 0 ? ` (saves ${usd(row.fixSaving)})` : ''}` : '';
  return `${row.namespace}/${row.name}  ${usd(row.monthlyCost)}/month: ${formatAmount(row.crossZoneGbPerMonth)} of ${formatAmount(row.volume.gbPerMonth)} GB cross-zone (${pct(row.crossZoneFraction)}), ${row.volume.source.label}${best}${fix}`;
}

/** The "Zone traffic" section of the text report. */
function trafficText(analysis: ClusterAnalysis): string[] {
  const unknown = crossZoneUnknown(analysis);
  if (unknown !== null) return ['', `Zone traffic: ${unknown}`];
  const { traffic } = analysis;
  const lines = ['', `Zone traffic (${traffic.services} Services, per month):`, `  Price: ${traffic.priceNote}`];
  for (const scenario of ['now', 'expected', 'best'] as const) {
    const totals = traffic.totals[scenario];
    const saving = scenario === 'now' ? '' : `  ${traffic.saving[scenario] >= 0 ? 'saves' : 'adds'} ${usd(Math.abs(traffic.saving[scenario]))}/month`;
    lines.push(`  ${SCENARIO_WORDS[scenario].padEnd(20)} ${usd(totals.monthlyCost).padStart(12)}/month  ${formatAmount(totals.crossZoneGbPerMonth)} of ${formatAmount(totals.gbPerMonth)} GB cross-zone (${pct(totals.crossZoneFraction)})${saving}`);
  }
  lines.push('  Sources:', ...traffic.sourceNotes.map((note) => `    ${note}`), `    ${VOLUME_FLAGS}`);
  if (traffic.reconciliation !== null) lines.push(`  ${traffic.reconciliation.note}`);
  if (traffic.loadBalancer !== null) lines.push(`  Load balancers (north-south, apart from the above): ${usd(traffic.loadBalancer.monthlyCost)}/month for ${formatAmount(traffic.loadBalancer.crossZoneGbPerMonth)} of ${formatAmount(traffic.loadBalancer.gbPerMonth)} GB from outside the cluster`);
  if (traffic.topByCost.length > 0) lines.push(`  Top ${traffic.topByCost.length} by cross-zone cost:`, ...traffic.topByCost.map((row) => `    ${topLine(row)}`));
  else lines.push('  No Service sends traffic across zones.');
  if (traffic.topBySaving.length > 0) lines.push(`  Top ${traffic.topBySaving.length} savings:`, ...traffic.topBySaving.map((row) => `    ${topLine(row)}`));
  return lines;
}

/** The "Zone traffic" section of the Markdown report. */
function trafficMarkdown(analysis: ClusterAnalysis, esc: (s: string) => string): string[] {
  const unknown = crossZoneUnknown(analysis);
  if (unknown !== null) return ['## Zone traffic', '', esc(unknown), ''];
  const { traffic } = analysis;
  return [
    '## Zone traffic',
    '',
    `${traffic.services} Services; ${esc(traffic.priceNote)}.`,
    '',
    '| scenario | cross-zone $/month | saving | cross-zone GB/month | of GB/month | cross-zone |',
    '|---|---:|---:|---:|---:|---:|',
    ...(['now', 'expected', 'best'] as const).map((scenario) => {
      const totals = traffic.totals[scenario];
      const saving = scenario === 'now' ? '' : usd(traffic.saving[scenario]);
      return `| ${SCENARIO_WORDS[scenario]} | ${usd(totals.monthlyCost)} | ${saving} | ${formatAmount(totals.crossZoneGbPerMonth)} | ${formatAmount(totals.gbPerMonth)} | ${pct(totals.crossZoneFraction)} |`;
    }),
    '',
    ...traffic.sourceNotes.map((note) => `- ${esc(note)}`),
    `- ${esc(VOLUME_FLAGS)}`,
    '',
    ...(traffic.topByCost.length > 0
      ? [
          '| Service | cross-zone $/month | GB/month | volume from | cross-zone | best | saving | smallest fix |',
          '|---|---:|---:|---|---:|---:|---:|---|',
          ...traffic.topByCost.map(
            (row) =>
              `| ${row.namespace}/${row.name} | ${usd(row.monthlyCost)} | ${formatAmount(row.volume.gbPerMonth)} | ${esc(row.volume.source.label)} | ${pct(row.crossZoneFraction)} | ${usd(row.bestMonthlyCost)} (${BEST_WORDS[row.bestScenario]}) | ${usd(row.saving)} | ${esc(row.fix ?? '')} |`,
          ),
        ]
      : ['No Service sends traffic across zones.']),
    '',
  ];
}

function hintsText(report: ServiceReport): string {
  if (report.unknown.observedHints !== undefined) return 'unknown';
  const counts = Object.entries(report.observed.hintCountsByZone);
  return counts.length === 0 ? 'no hints' : counts.map(([zone, n]) => `${zone}:${n}`).join(' ');
}

function serviceLine(report: ServiceReport): string {
  const { unknown } = report;
  const expected = unknown.expectedHints !== undefined ? 'unknown' : report.expected.hintsEnabled ? 'on' : 'off';
  const why = unknown.expectedHints !== undefined ? '' : report.expected.event && !report.expected.hintsEnabled ? ` — ${report.expected.event.message}` : '';
  const attention = report.needsAttention ? `\n      ! ${report.needsAttention.message}` : '';
  const traffic =
    unknown.crossZone !== undefined
      ? `cross-zone ${unknown.crossZone}`
      : `cross-zone now ${pct(report.traffic.crossZoneFraction)}, if Auto ${pct(report.traffic.crossZoneFractionIfAuto)}, none ${pct(report.traffic.crossZoneFractionIfNone)}`;
  const hpa = unknown.hpa !== undefined ? `\n      HPA / scale-down risk ${unknown.hpa}` : '';
  const hints = unknown.expectedHints !== undefined ? `\n      hints expected ${unknown.expectedHints}` : '';
  return `  ${report.namespace}/${report.name}  [${report.mechanism}] hints expected ${expected}, observed ${hintsText(report)}; ${traffic}${why}${attention}${hints}${hpa}`;
}

/** `Could not read: Nodes (forbidden): unknown cluster.zones, …` lines, empty when everything was read. */
function unreadableLines(analysis: ClusterAnalysis): string[] {
  return analysis.unreadable.map((u) => `Could not read ${u.name} (forbidden): unknown ${u.affects.join(', ')}`);
}

function formatText(analysis: ClusterAnalysis, detail: ServiceDetail | null, metrics: MetricsReport | null = null): string {
  const { cluster, kubernetes } = analysis;
  const { unknown } = cluster;
  const lines = [
    ...unreadableLines(analysis),
    `Kubernetes ${kubernetes.release} (${kubernetes.gitVersion ?? 'version unknown'}${kubernetes.platform ? `, ${kubernetes.platform}` : ''}), kube-proxy mode ${unknown.dataplane ?? cluster.proxyMode}`,
    unknown.eligibility !== undefined ? `Eligible for Topology Aware Routing: ${unknown.eligibility}` : `Eligible for Topology Aware Routing: ${cluster.eligible ? 'yes' : 'NO'} — ${cluster.verdict}`,
    ...cluster.ineligibleNodes.flatMap((n) => [`  ${n.description}`, ...n.commands.map((c) => `    ${c}`)]),
    ...(unknown.zones !== undefined
      ? [`Zones: ${unknown.zones}`]
      : ['Zones:', ...cluster.zones.map((z) => `  ${z.name.padEnd(20)} ${String(z.cpuMillis).padStart(9)}m CPU  ratio ${(z.cpuRatio ?? 0).toFixed(4)}`)]),
    ...analysis.assumptions.map((a) => `Assumption: ${a}`),
    ...metricsLines(metrics),
    '',
  ];
  const services = detail ? [detail] : analysis.services;
  if (unknown.services !== undefined) lines.push(`Services: ${unknown.services}`);
  else lines.push(`Services (${services.length}):`, ...services.map(serviceLine));
  if (detail) {
    if (detail.minimumTable) {
      lines.push('', `Per-zone minimum: ${detail.minimumTable.formula}`);
      for (const row of detail.minimumTable.rows) lines.push(`  ${row.zone.padEnd(20)} ready ${row.readyEndpoints}  minimum ${row.minimum}  desired ${row.desired.toFixed(2)}  maximum ${row.maximum}`);
      lines.push(`  ${detail.minimumTable.sumCheck}`);
    }
    for (const lint of detail.lints) lines.push(`Lint (${lint.severity}): ${lint.message}`);
    if (detail.unknown.fixes !== undefined) lines.push(`Fix: ${detail.unknown.fixes}`);
    else for (const fix of detail.fixes) lines.push(`${fix.primary ? 'Fix' : 'Alternative'}: ${fix.title}${fix.monthlySaving !== null && fix.monthlySaving > 0 ? ` (saves ${usd(fix.monthlySaving)}/month)` : ''} — ${fix.description}${fix.commands.length > 0 ? `\n    ${fix.commands.join('\n    ')}` : ''}`);
  }
  if (detail && detail.unknown.crossZone === undefined) {
    const cost = detail.traffic.monthlyCost.now;
    lines.push(`Traffic: ${formatAmount(detail.traffic.volume.gbPerMonth)} GB per month (${detail.traffic.volume.source.label}); cross-zone now ${usd(cost.monthlyCost)}/month (${cost.formula})`);
  }
  if (!detail && cluster.needsAttention.length > 0) {
    lines.push('', `Needs attention (${cluster.needsAttention.length}):`, ...cluster.needsAttention.map((a) => `  ${a.namespace}/${a.name}: ${a.message}`));
  }
  lines.push(...trafficText(analysis));
  return `${lines.join('\n')}\n`;
}

function formatMarkdown(analysis: ClusterAnalysis, detail: ServiceDetail | null, metrics: MetricsReport | null = null): string {
  const { cluster, kubernetes } = analysis;
  const esc = (s: string) => s.replaceAll('|', '\\|');
  const services = detail ? [detail] : analysis.services;
  const { unknown } = cluster;
  const eligibility = unknown.eligibility !== undefined ? `Eligible: **unknown** — ${esc(unknown.eligibility)}` : `Eligible: **${cluster.eligible ? 'yes' : 'no'}** — ${esc(cluster.verdict)}`;
  const unknownCell = (text: string | undefined, known: string) => (text !== undefined ? 'unknown' : known);
  return [
    `# zonescope analysis`,
    '',
    ...(analysis.unreadable.length > 0 ? [...unreadableLines(analysis).map((line) => `> ${esc(line)}`), ''] : []),
    `Kubernetes **${kubernetes.release}**, kube-proxy **${unknown.dataplane !== undefined ? 'unknown' : cluster.proxyMode}**. ${eligibility}`,
    '',
    ...(metrics !== null ? [`Traffic source: **${metrics.state}** — ${esc(metrics.message)}${metrics.hint !== null ? ` ${esc(metrics.hint)}` : ''}`, ''] : []),
    ...(unknown.zones !== undefined
      ? [`Zones: ${esc(unknown.zones)}`]
      : ['| zone | CPU (m) | ratio |', '|---|---:|---:|', ...cluster.zones.map((z) => `| ${z.name} | ${z.cpuMillis} | ${z.cpuRatio === null ? 'n/a' : z.cpuRatio.toFixed(4)} |`)]),
    '',
    ...(unknown.services !== undefined
      ? [`Services: ${esc(unknown.services)}`]
      : [
          '| Service | mechanism | hints expected | hints observed | cross-zone now | if Auto | note |',
          '|---|---|---|---|---:|---:|---|',
          ...services.map(
            (r) =>
              `| ${r.namespace}/${r.name} | ${r.mechanism} | ${unknownCell(r.unknown.expectedHints, r.expected.hintsEnabled ? 'on' : 'off')} | ${hintsText(r)} | ${unknownCell(r.unknown.crossZone, pct(r.traffic.crossZoneFraction))} | ${unknownCell(r.unknown.crossZone, pct(r.traffic.crossZoneFractionIfAuto))} | ${esc(r.needsAttention?.message ?? r.unknown.expectedHints ?? r.unknown.crossZone ?? (r.expected.hintsEnabled ? '' : (r.expected.event?.message ?? '')))} |`,
          ),
        ]),
    '',
    ...trafficMarkdown(analysis, esc),
  ].join('\n');
}

/** The rule as given on the command line (`cross-zone>0.3`). */
function ruleText(rule: FailRule): string {
  return 'threshold' in rule ? `${rule.kind}>${rule.threshold}` : rule.kind;
}

/**
 * Why a rule cannot be evaluated (an answer it needs is unknown because a type was forbidden), as
 * "zonescope could not read Nodes (forbidden)"; `null` when it can be.
 */
function unevaluable(analysis: ClusterAnalysis, rule: FailRule): string | null {
  const needs: readonly SourceResource[] =
    rule.kind === 'ineligible'
      ? CLUSTER_ANSWER_NEEDS.eligibility
      : [
          ...CLUSTER_ANSWER_NEEDS.services,
          ...(rule.kind === 'cross-zone' || rule.kind === 'cross-zone-if-auto' || rule.kind === 'cross-zone-cost' ? SERVICE_ANSWER_NEEDS.crossZone : SERVICE_ANSWER_NEEDS.expectedHints),
        ];
  const missing = analysis.unreadable.map((u) => u.resource).filter((id) => needs.includes(id));
  if (missing.length > 0) return unknownMessage(missing).replace(/^unknown: /, '');
  // Cross-zone figures can also be unknown for another reason (more zones than the model takes).
  const crossZone = rule.kind === 'cross-zone-cost' ? crossZoneUnknown(analysis) : null;
  return crossZone === null ? null : `the cross-zone figures are ${crossZone}`;
}

/** The rules that held (or could not be evaluated, which fails closed), as messages. */
export function evaluateRules(analysis: ClusterAnalysis, services: readonly ServiceReport[], rules: readonly FailRule[]): string[] {
  const failures: string[] = [];
  for (const rule of rules) {
    const why = unevaluable(analysis, rule);
    if (why !== null) {
      failures.push(`${ruleText(rule)}: could not be evaluated because ${why}; failing closed`);
      continue;
    }
    switch (rule.kind) {
      case 'cross-zone':
      case 'cross-zone-if-auto': {
        const key = rule.kind === 'cross-zone' ? 'crossZoneFraction' : 'crossZoneFractionIfAuto';
        const over = services.filter((s) => s.traffic[key] > rule.threshold);
        if (over.length > 0) failures.push(`${rule.kind}>${rule.threshold}: ${over.map((s) => `${s.namespace}/${s.name} (${pct(s.traffic[key])})`).join(', ')}`);
        break;
      }
      case 'hints-off': {
        const off = services.filter((s) => s.mechanism === 'topology-mode' || s.mechanism === 'legacy-annotation').filter((s) => !s.expected.hintsEnabled);
        if (off.length > 0) failures.push(`hints-off: ${off.map((s) => `${s.namespace}/${s.name}`).join(', ')}`);
        break;
      }
      case 'cross-zone-cost': {
        const limit = `$${formatAmount(rule.threshold)}`;
        // With --service the rule is about that Service (the list is not the analysis's own).
        const service = services !== analysis.services && services.length === 1 ? services[0] : undefined;
        if (service !== undefined) {
          const cost = service.traffic.monthlyCost.now.monthlyCost;
          if (cost > rule.threshold) failures.push(`cross-zone-cost>${rule.threshold}: ${service.namespace}/${service.name}'s cross-zone traffic costs ${usd(cost)} a month now, over the limit of ${limit}`);
        } else {
          const cost = analysis.traffic.totals.now.monthlyCost;
          if (cost > rule.threshold) failures.push(`cross-zone-cost>${rule.threshold}: the cluster's cross-zone traffic costs ${usd(cost)} a month now, over the limit of ${limit}`);
        }
        break;
      }
      case 'attention': {
        const n = analysis.cluster.needsAttention.length;
        if (n > rule.threshold) failures.push(`attention>${rule.threshold}: ${n} Services need attention`);
        break;
      }
      case 'ineligible':
        if (!analysis.cluster.eligible) failures.push(`ineligible: ${analysis.cluster.verdict}`);
        break;
    }
  }
  return failures;
}

/** A cluster's analysis: the report, the Service asked for, and the `--fail-on` rules that held (as messages, and their rules). */
interface Analysed {
  readonly analysis: ClusterAnalysis;
  readonly detail: ServiceDetail | null;
  readonly failures: readonly string[];
  readonly held: readonly string[];
  /** What `--prometheus` measured, and how it went; `null` without it. */
  readonly metrics: MetricsReport | null;
}

/** The `metrics` object of the JSON report with `--prometheus`: the traffic source's state as the dashboard's header shows it. */
export type MetricsReport = Pick<MetricsStatus, 'state' | 'message' | 'url' | 'window' | 'hint'>;

/**
 * One refresh of the traffic source against `--prometheus` (the dashboard's queries and rules),
 * mapped onto the cluster: the measurement (`null` when nothing usable) and the status.
 */
export async function measureOnce(index: ClusterIndex, prometheus: { readonly url: string; readonly selector: string }, config: Config): Promise<{ measured: MeasuredTraffic | null; metrics: MetricsReport }> {
  // --prometheus and --prometheus-selector name the Prometheus; token, CA, window and timeout are the configuration's.
  const source = new TrafficSource(metricsConfigFromEnv({ ...config, ZONESCOPE_PROMETHEUS_URL: prometheus.url, ZONESCOPE_PROMETHEUS_SELECTOR: prometheus.selector }), { log: () => undefined });
  await source.refresh();
  const measurement = source.measurement();
  const { state, message, url, window, hint } = source.status();
  return { measured: measurement === null ? null : measuredTrafficFromSeries(measurement, index), metrics: { state, message, url, window, hint } };
}

/** The traffic source's lines of the text report. */
function metricsLines(metrics: MetricsReport | null): string[] {
  if (metrics === null) return [];
  return [`Traffic source: ${metrics.state} — ${metrics.message}`, ...(metrics.hint !== null ? [`  ${metrics.hint}`] : [])];
}

/** Analyses what was read; a message when `--service` names a Service the cluster lacks. */
async function analyse(read: ClusterRead, args: Args, volumesByService: Record<string, number> | null, config: Config): Promise<Analysed | string> {
  const measure = args.prometheus === null ? null : await measureOnce(read.index, args.prometheus, config);
  const prepared = prepareAnalysis(read.index, { ...args.options, volumesByService, unreadable: read.unreadable, measured: measure?.measured ?? null });
  const analysis = analyzeClusterIn(prepared);
  let detail: ServiceDetail | null = null;
  if (args.service) {
    detail = analyzeServiceIn(prepared, args.service.namespace, args.service.name);
    if (!detail) return `no Service ${args.service.namespace}/${args.service.name} in this cluster`;
  }
  const services = detail ? [detail] : analysis.services;
  const failures: string[] = [];
  const held: string[] = [];
  for (const rule of args.failOn) {
    const messages = evaluateRules(analysis, services, [rule]);
    if (messages.length > 0) held.push(ruleText(rule));
    failures.push(...messages);
  }
  return { analysis, detail, failures, held, metrics: measure?.metrics ?? null };
}

/** The report as `--format json` prints it for one cluster (with `metrics` when `--prometheus` was given). */
function reportJson({ analysis, detail, metrics }: Analysed): ClusterAnalysis & { readonly metrics?: MetricsReport } {
  const report = detail ? { ...analysis, services: [detail] } : analysis;
  return metrics === null ? report : { ...report, metrics };
}

/** Runs the command; resolves to the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    io.err(`analyze: ${args}\n\n${USAGE}\n`);
    return 2;
  }
  // The settings it shares with the dashboard (lib/config): a value it cannot use is a bad argument.
  const configured = parseConfig(process.env);
  for (const warning of configured.warnings) io.err(`analyze: warning: ${warning}\n`);
  if (!configured.ok) {
    io.err(`analyze: ${formatConfigErrors(configured.errors)}\n`);
    return 2;
  }
  const config = configured.config;
  let volumesByService: Record<string, number> | null = null;
  if (args.volumesFile !== null) {
    const volumes = await readVolumes(args.volumesFile);
    if (typeof volumes === 'string') {
      io.err(`analyze: ${volumes}\n`);
      return 2;
    }
    volumesByService = volumes;
  }
  if (args.clusters !== null) return analyzeClusters(args, args.clusters.contexts, volumesByService, io, config);
  // Without --context the kubeconfig's current context, whatever ZONESCOPE_CONTEXT says (the dashboard's setting).
  const read = args.snapshots.length > 0 ? await readSnapshotFiles(args.snapshots) : await readLive({ ...config, ZONESCOPE_CONTEXT: args.context ?? undefined }, args.timeoutSeconds);
  if (!read.ok) {
    io.err(`analyze: ${read.message}\n`);
    return 3;
  }
  for (const warning of read.warnings) io.err(`analyze: ${warning}\n`);
  const result = await analyse(read.read, args, volumesByService, config);
  if (typeof result === 'string') {
    io.err(`analyze: ${result}\n`);
    return 3;
  }
  if (args.format === 'json') io.out(`${JSON.stringify(reportJson(result), null, 2)}\n`);
  else if (args.format === 'markdown') io.out(formatMarkdown(result.analysis, result.detail, result.metrics));
  else io.out(formatText(result.analysis, result.detail, result.metrics));
  if (result.metrics !== null && result.metrics.state !== 'ok') io.err(`analyze: traffic source ${result.metrics.state}: ${result.metrics.message}${result.metrics.hint !== null ? ` ${result.metrics.hint}` : ''}\n`);
  for (const failure of result.failures) io.err(`analyze: fail-on ${failure}\n`);
  return result.failures.length > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Several clusters: --all-contexts, --contexts A,B

/** How many clusters are read at once: each holds a full copy of its cluster while it syncs. */
export const CLUSTER_CONCURRENCY = 2;

/** An exit code of one cluster: ok, a --fail-on rule held, could not be read. */
export type ClusterExitCode = 0 | 1 | 3;

/** One cluster of a several-cluster run, as `--format json` prints it in `clusters`. */
export interface ClusterSection {
  /** The cluster's id (URL slug in the dashboard: `/c/{id}/`). */
  readonly id: string;
  /** The kubeconfig context; `null` for the in-cluster service account. */
  readonly context: string | null;
  readonly displayName: string;
  /** The API server URL without credentials; `null` when unknown. */
  readonly server: string | null;
  /** Whether the cluster was read and analysed (`report` is set; `failOn` may still have held). */
  readonly ok: boolean;
  /** This cluster's exit code (the command exits with the worst of them). */
  readonly exitCode: ClusterExitCode;
  /** Why the cluster has no report (`ok: false`). */
  readonly error?: string;
  /** The `--fail-on` rules given, those that held, and why (when rules were given and the cluster was read). */
  readonly failOn?: { readonly rules: readonly string[]; readonly held: readonly string[]; readonly failures: readonly string[] };
  /** The report `--format json` prints for one cluster (docs/analyze-schema.md). */
  readonly report?: ClusterAnalysis;
}

/** What one cluster gave. */
interface ClusterRun {
  readonly entry: ClusterEntry;
  readonly exitCode: ClusterExitCode;
  readonly error: string | null;
  readonly warnings: readonly string[];
  readonly analysed: Analysed | null;
}

/** The worst of the clusters' exit codes (3 over 1 over 0); 0 for none. */
export function worstExitCode(codes: readonly ClusterExitCode[]): ClusterExitCode {
  return codes.reduce<ClusterExitCode>((worst, code) => (code > worst ? code : worst), 0);
}

/**
 * Runs `task` over `items` with at most `limit` under way at once, and hands each result to
 * `each` in the items' order as soon as it and every earlier one are done (so output streams in
 * a stable order), then lets go of it (a cluster's report can be large). `task` must not reject.
 */
export async function forEachInOrder<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>, each: (result: R, index: number) => void): Promise<void> {
  const results: (R | undefined)[] = new Array<R | undefined>(items.length);
  const done: boolean[] = items.map(() => false);
  let next = 0;
  let flushed = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
      done[index] = true;
      while (flushed < items.length && done[flushed]) {
        each(results[flushed] as R, flushed);
        results[flushed] = undefined;
        flushed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** What a cluster is called in stderr lines and the summary: its context (unique in a kubeconfig), else its id. */
function clusterLabel(entry: ClusterEntry): string {
  return entry.context ?? entry.id;
}

/** `Cluster prod (context arn:…:cluster/prod, server https://…)`. */
export function clusterHeading(entry: Pick<ClusterEntry, 'displayName' | 'context' | 'server'>): string {
  return `Cluster ${entry.displayName} (${where(entry, (text) => text)})`;
}

/** `context prod, server https://…`; without a context, the in-cluster service account (which has a server) or nothing configured. */
function where(entry: Pick<ClusterEntry, 'context' | 'server'>, code: (text: string) => string): string {
  const context = entry.context !== null ? `context ${code(entry.context)}` : entry.server !== null ? 'in-cluster service account' : 'no kubeconfig';
  return [context, ...(entry.server !== null ? [`server ${code(entry.server)}`] : [])].join(', ');
}

async function runCluster(entry: ClusterEntry, args: Args, volumesByService: Record<string, number> | null, config: Config): Promise<ClusterRun> {
  const failed = (error: string): ClusterRun => ({ entry, exitCode: 3, error, warnings: [], analysed: null });
  if (entry.configError !== null) return failed(entry.configError);
  let read: ReadOutcome;
  try {
    read = await readLive({ ...config, ZONESCOPE_CONTEXT: entry.context ?? undefined }, args.timeoutSeconds);
  } catch (error) {
    // One cluster failing in an unforeseen way must not take the others' sections with it.
    return failed(`cannot read the cluster: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!read.ok) return failed(read.message);
  const analysed = await analyse(read.read, args, volumesByService, config);
  if (typeof analysed === 'string') return { ...failed(analysed), warnings: read.warnings };
  return { entry, exitCode: analysed.failures.length > 0 ? 1 : 0, error: null, warnings: read.warnings, analysed };
}

/** The JSON of one cluster. */
function clusterSection(run: ClusterRun, rules: readonly FailRule[]): ClusterSection {
  const { entry, analysed } = run;
  const base = { id: entry.id, context: entry.context, displayName: entry.displayName, server: entry.server, ok: analysed !== null, exitCode: run.exitCode };
  if (analysed === null) return { ...base, error: run.error ?? 'not analysed' };
  return {
    ...base,
    ...(rules.length > 0 ? { failOn: { rules: rules.map(ruleText), held: analysed.held, failures: analysed.failures } } : {}),
    report: reportJson(analysed),
  };
}

/** The `--fail-on` verdict line of a section; `null` without rules. */
function failOnLine(run: ClusterRun, rules: readonly FailRule[]): string | null {
  if (rules.length === 0 || run.analysed === null) return null;
  const { failures } = run.analysed;
  if (failures.length === 0) return `Fail-on: every rule passed (${rules.map(ruleText).join(', ')})`;
  return [`Fail-on: ${failures.length === 1 ? 'a rule held' : `${failures.length} rules held`} (exit 1):`, ...failures.map((f) => `  ${f}`)].join('\n');
}

/** What the summary keeps of a cluster: the rules that held, `null` when it could not be read. */
interface Outcome {
  readonly entry: ClusterEntry;
  readonly exitCode: ClusterExitCode;
  readonly held: readonly string[] | null;
}

/** What became of a cluster, for the summary. */
function verdict({ held }: Outcome): string {
  if (held === null) return 'could not be read (exit 3)';
  return held.length > 0 ? `fail-on held: ${held.join(', ')} (exit 1)` : 'ok';
}

function textSection(run: ClusterRun, args: Args): string {
  const heading = clusterHeading(run.entry);
  const body = run.analysed === null ? `Could not read this cluster: ${run.error ?? ''}\n` : formatText(run.analysed.analysis, run.analysed.detail);
  const failOn = failOnLine(run, args.failOn);
  return `${heading}\n${'='.repeat(heading.length)}\n${body}${failOn !== null ? `\n${failOn}\n` : ''}\n`;
}

function markdownSection(run: ClusterRun, args: Args): string {
  const { entry } = run;
  const esc = (s: string) => s.replaceAll('|', '\\|');
  // The one-cluster report's headings one level down, without its title.
  const body =
    run.analysed === null
      ? `Could not read this cluster: ${esc(run.error ?? '')}\n`
      : formatMarkdown(run.analysed.analysis, run.analysed.detail)
          .split('\n')
          .filter((line, index) => !(index === 0 && line === '# zonescope analysis'))
          .map((line) => (/^#+ /.test(line) ? `#${line}` : line))
          .join('\n')
          .replace(/^\n+/, '');
  const failOn = failOnLine(run, args.failOn);
  return `## ${esc(entry.displayName)}\n\n${esc(where(entry, (text) => `\`${text}\``))}.\n\n${body}${body.endsWith('\n') ? '' : '\n'}${failOn !== null ? `\n${failOn.split('\n').map((line) => (line.startsWith('  ') ? `- ${esc(line.trim())}` : esc(line))).join('\n')}\n` : ''}\n`;
}

function summaryText(runs: readonly Outcome[], code: ClusterExitCode): string {
  const width = Math.max(...runs.map((run) => clusterLabel(run.entry).length));
  return [`Summary: ${runs.length} cluster${runs.length === 1 ? '' : 's'}, exit ${code}`, ...runs.map((run) => `  ${clusterLabel(run.entry).padEnd(width)}  ${verdict(run)}`), ''].join('\n');
}

function summaryMarkdown(runs: readonly Outcome[], code: ClusterExitCode): string {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  return ['## Summary', '', `${runs.length} cluster${runs.length === 1 ? '' : 's'}, exit ${code}.`, '', '| cluster | context | result |', '|---|---|---|', ...runs.map((run) => `| ${esc(run.entry.displayName)} | ${esc(clusterLabel(run.entry))} | ${esc(verdict(run))} |`), ''].join('\n');
}

/**
 * `--all-contexts` / `--contexts A,B`: every chosen cluster read and analysed ({@link CLUSTER_CONCURRENCY}
 * at a time, each with its own `--timeout`), one section each in the kubeconfig's (or the list's)
 * order, `--fail-on` applied to each; the exit code is the worst of theirs.
 */
async function analyzeClusters(args: Args, contexts: readonly string[] | null, volumesByService: Record<string, number> | null, io: Io, processConfig: Config): Promise<number> {
  // The dashboard's list (lib/k8s/cluster-entries.ts): ZONESCOPE_CONTEXTS, the default first. --contexts
  // replaces the list, in its own order (`*` alone: every context), and leaves out a default it does not name.
  const listedContexts = contexts === null || (contexts.length === 1 && contexts[0] === '*') ? null : contexts;
  const config: Config = { ...processConfig, ZONESCOPE_SNAPSHOT: [], ...(contexts !== null ? { ZONESCOPE_CONTEXTS: listedContexts, ZONESCOPE_CONTEXT: undefined } : {}) };
  const listed = clusterEntriesFromEnv(config).entries;
  const entries = contexts === null ? listed : [...listed].sort((a, b) => contexts.indexOf(a.context ?? '') - contexts.indexOf(b.context ?? ''));
  const outcomes: Outcome[] = [];
  const sections: ClusterSection[] = [];
  await forEachInOrder(
    entries,
    CLUSTER_CONCURRENCY,
    (entry) => runCluster(entry, args, volumesByService, config),
    (run, index) => {
      const label = clusterLabel(run.entry);
      for (const warning of run.warnings) io.err(`analyze [${label}]: ${warning}\n`);
      if (run.error !== null) io.err(`analyze [${label}]: ${run.error}\n`);
      for (const failure of run.analysed?.failures ?? []) io.err(`analyze [${label}]: fail-on ${failure}\n`);
      if (args.format === 'text') io.out(textSection(run, args));
      else if (args.format === 'markdown') io.out(`${index === 0 ? `# zonescope analysis: ${entries.length} cluster${entries.length === 1 ? '' : 's'}\n\n` : ''}${markdownSection(run, args)}`);
      else sections.push(clusterSection(run, args.failOn));
      outcomes.push({ entry: run.entry, exitCode: run.exitCode, held: run.analysed?.held ?? null });
    },
  );
  const code = worstExitCode(outcomes.map((outcome) => outcome.exitCode));
  if (args.format === 'json') io.out(`${JSON.stringify({ clusters: sections, exitCode: code }, null, 2)}\n`);
  else if (args.format === 'markdown') io.out(summaryMarkdown(outcomes, code));
  else io.out(summaryText(outcomes, code));
  return code;
}

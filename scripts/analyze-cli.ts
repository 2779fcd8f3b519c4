/**
 * The `analyze` command: the analysis of a snapshot or a live cluster as text, JSON or Markdown,
 * with `--fail-on` thresholds for CI gating. `main()` takes argv and streams so tests can run it
 * in-process; `scripts/analyze.ts` is the executable entry.
 */
import { createClusterSource, permanentFailure } from '../lib/k8s/cluster-source';
import type { ResourceId } from '../lib/k8s/resources';
import { RESOURCES } from '../lib/k8s/resources';
import { identityLabel, readGrantFor, ruleLine, whoAmI } from '../lib/k8s/self-subject-review';
import type { SourceResource } from '../lib/topology/model/cluster-model';
import { CLUSTER_ANSWER_NEEDS, SERVICE_ANSWER_NEEDS, unknownMessage } from '../lib/topology/report/unknowns';
import type { SnapshotSummary } from '../lib/k8s/snapshot';
import { formatProblem, loadSnapshot } from '../lib/k8s/snapshot';
import type { ClusterAnalysis, ServiceDetail, ServiceReport } from '../lib/topology/report/analysis-schema';
import { analyzeClusterIn } from '../lib/topology/report/cluster-analysis';
import { prepareAnalysis } from '../lib/topology/report/prepared-analysis';
import { analyzeServiceIn } from '../lib/topology/report/service-detail';
import type { AnalysisOptions } from '../lib/topology/model/cluster-context';
import type { ClusterIndex } from '../lib/topology/model/cluster-model';
import { indexCluster } from '../lib/topology/model/cluster-model';

export const USAGE = `usage: npm run analyze -- [--snapshot PATH | --context NAME] [options]

  without --snapshot       the live cluster of the kubeconfig's current context (KUBECONFIG or
                           ~/.kube/config), or the Pod's service account when run in a cluster
  --snapshot PATH          a kubectl dump (file or folder of .yaml/.yml/.json); repeatable
  --context NAME           the live cluster of this kubeconfig context instead of the current one
  --service NS/NAME        only this Service, with every detail
  --format text|json|markdown   output format (default text)
  --fail-on RULE           exit 1 when RULE holds; repeatable. Rules:
                             cross-zone>F          any Service's cross-zone fraction now > F (0–1)
                             cross-zone-if-auto>F  the same, with topology mode Auto
                             hints-off             an Auto/legacy-annotated Service whose hints are expected off
                             attention>N           more than N Services need attention
                             ineligible            the cluster cannot use Topology Aware Routing
  --kubernetes-version V   model release V (e.g. 1.30) instead of the cluster's
  --gb-per-month N         traffic per Service per month for cost figures (default 1000)
  --price-per-gb N         USD per cross-zone GB in each direction (default 0.01)
  --traffic ZONE=SHARE[,ZONE=SHARE…]   client traffic share per zone (0–1; others split the rest by CPU)
  --timeout SECONDS        live sync timeout (default 60)

Live clusters: a resource type the identity may not read (403) leaves the answers that depend on it
"unknown: zonescope could not read <Type> (forbidden)" (JSON: "unreadable", "cluster.unknown",
"services[].unknown"), and a --fail-on rule that needs such an answer fails closed.

exit codes: 0 ok
            1 a --fail-on rule held, or could not be evaluated because a type it needs was forbidden
            2 bad arguments
            3 the cluster could not be read (unreachable, no sync within --timeout, Services or
              EndpointSlices forbidden: every answer needs them)`;

/** Where output goes (stdout/stderr in the CLI, buffers in tests). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

type FailRule = { kind: 'cross-zone' | 'cross-zone-if-auto' | 'attention'; threshold: number } | { kind: 'hints-off' | 'ineligible' };

interface Args {
  snapshots: string[];
  context: string | null;
  service: { namespace: string; name: string } | null;
  format: 'text' | 'json' | 'markdown';
  failOn: FailRule[];
  options: AnalysisOptions;
  timeoutSeconds: number;
}

function parseRule(text: string): FailRule | string {
  if (text === 'hints-off' || text === 'ineligible') return { kind: text };
  const match = /^(cross-zone|cross-zone-if-auto|attention)>(\d+(?:\.\d+)?)$/.exec(text);
  if (!match) return `unknown --fail-on rule "${text}"`;
  const kind = match[1] as 'cross-zone' | 'cross-zone-if-auto' | 'attention';
  const threshold = Number(match[2]);
  if (kind !== 'attention' && threshold > 1) return `--fail-on ${kind} takes a fraction from 0 to 1, got ${threshold}`;
  return { kind, threshold };
}

function positive(flag: string, value: string): number | string {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : `${flag} needs a non-negative number, got "${value}"`;
}

/** Parses arguments; returns a message on error. */
export function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { snapshots: [], context: null, service: null, format: 'text', failOn: [], options: {}, timeoutSeconds: 60 };
  const options: { -readonly [K in keyof AnalysisOptions]: AnalysisOptions[K] } = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    if (flag === '--') continue;
    const value = argv[i + 1];
    const need = () => (value === undefined || value.startsWith('--') ? `${flag} needs a value` : null);
    const missing = ['--snapshot', '--context', '--service', '--format', '--fail-on', '--kubernetes-version', '--gb-per-month', '--price-per-gb', '--traffic', '--timeout'].includes(flag) ? need() : null;
    if (missing) return missing;
    const v = value ?? '';
    switch (flag) {
      case '--snapshot': args.snapshots.push(v); break;
      case '--context': args.context = v; break;
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
      case '--gb-per-month': {
        const n = positive(flag, v);
        if (typeof n === 'string') return n;
        options.gbPerMonth = n;
        break;
      }
      case '--price-per-gb': {
        const n = positive(flag, v);
        if (typeof n === 'string') return n;
        options.pricePerGb = n;
        break;
      }
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

async function readCluster(args: Args, io: Io): Promise<ClusterRead | null> {
  if (args.snapshots.length > 0) {
    const result = await loadSnapshot(args.snapshots);
    if (!result.ok) {
      io.err(`analyze: cannot load the snapshot:\n${result.errors.map((p) => `  ${formatProblem(p)}`).join('\n')}\n`);
      return null;
    }
    if (result.snapshot.services.length === 0 && result.snapshot.nodes.length === 0) {
      // Nothing to analyse: passing every --fail-on rule on no data would be a lie.
      io.err(`analyze: the snapshot contains no objects zonescope reads (no Services and no Nodes) — ${emptySnapshotDetail(result.summary)}\n`);
      return null;
    }
    return { index: indexCluster(result.snapshot), unreadable: [] };
  }
  const state = createClusterSource({ ...process.env, ZONESCOPE_SNAPSHOT: '', ZONESCOPE_CONTEXT: args.context ?? '' });
  if (state.mode !== 'live') {
    io.err(`analyze: cannot reach the cluster: ${state.problems().join('; ') || 'no kubeconfig'}\n`);
    return null;
  }
  state.start();
  try {
    const synced = await state.waitForSync(args.timeoutSeconds * 1000);
    const problems = state.statuses().filter((s) => s.health !== 'synced');
    const failure = synced ? null : permanentFailure(state.statuses());
    if (failure !== null) {
      // A context, TLS or credential problem: it does not fix itself, so say so now instead of after --timeout.
      io.err(`analyze: cannot read the cluster: ${failure.message}\n`);
      return null;
    }
    if (!synced) {
      io.err(`analyze: the cluster did not sync within ${args.timeoutSeconds} s: ${problems.map((s) => `${s.title}: ${s.error?.message ?? s.health}`).join('; ')}\n`);
      return null;
    }
    const forbidden = problems.filter((s) => s.health === 'forbidden').map((s) => s.id);
    const identity = forbidden.length > 0 && state.connection !== null ? identityLabel(await whoAmI(state.connection, { timeoutMs: 10_000 })) : null;
    const missing = REQUIRED_TYPES.filter((id) => forbidden.includes(id));
    if (missing.length > 0) {
      io.err(
        [
          `analyze: could not read the cluster: zonescope could not read ${missing.map((id) => RESOURCES[id].title).join(', ')} (forbidden) as ${identity ?? 'the current identity'}; every answer needs them.`,
          ...grantLines(missing),
          '',
        ].join('\n'),
      );
      return null;
    }
    for (const s of problems) {
      if (s.health === 'forbidden') {
        io.err(`analyze: warning: zonescope could not read ${s.title} (forbidden) as ${identity ?? 'the current identity'}: the answers that depend on it are unknown.\n${grantLines([s.id]).join('\n')}\n`);
      } else {
        io.err(`analyze: warning: ${s.title} ${s.health}${s.error ? `: ${s.error.message}` : ''}\n`);
      }
    }
    return { index: state.index(), unreadable: forbidden };
  } finally {
    await state.stop();
  }
}

const pct = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

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

function formatText(analysis: ClusterAnalysis, detail: ServiceDetail | null): string {
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
    else for (const fix of detail.fixes) lines.push(`${fix.primary ? 'Fix' : 'Alternative'}: ${fix.title} — ${fix.description}${fix.commands.length > 0 ? `\n    ${fix.commands.join('\n    ')}` : ''}`);
  }
  if (!detail && cluster.needsAttention.length > 0) {
    lines.push('', `Needs attention (${cluster.needsAttention.length}):`, ...cluster.needsAttention.map((a) => `  ${a.namespace}/${a.name}: ${a.message}`));
  }
  return `${lines.join('\n')}\n`;
}

function formatMarkdown(analysis: ClusterAnalysis, detail: ServiceDetail | null): string {
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
      : [...CLUSTER_ANSWER_NEEDS.services, ...(rule.kind === 'cross-zone' || rule.kind === 'cross-zone-if-auto' ? SERVICE_ANSWER_NEEDS.crossZone : SERVICE_ANSWER_NEEDS.expectedHints)];
  const missing = analysis.unreadable.map((u) => u.resource).filter((id) => needs.includes(id));
  return missing.length === 0 ? null : unknownMessage(missing).replace(/^unknown: /, '');
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
  const read = await readCluster(args, io);
  if (!read) return 3;
  const { index } = read;
  const prepared = prepareAnalysis(index, { ...args.options, unreadable: read.unreadable });
  const analysis = analyzeClusterIn(prepared);
  let detail: ServiceDetail | null = null;
  if (args.service) {
    detail = analyzeServiceIn(prepared, args.service.namespace, args.service.name);
    if (!detail) {
      io.err(`analyze: no Service ${args.service.namespace}/${args.service.name} in this cluster\n`);
      return 3;
    }
  }
  if (args.format === 'json') {
    io.out(`${JSON.stringify(detail ? { ...analysis, services: [detail] } : analysis, null, 2)}\n`);
  } else if (args.format === 'markdown') {
    io.out(formatMarkdown(analysis, detail));
  } else {
    io.out(formatText(analysis, detail));
  }
  const failures = evaluateRules(analysis, detail ? [detail] : analysis.services, args.failOn);
  for (const failure of failures) io.err(`analyze: fail-on ${failure}\n`);
  return failures.length > 0 ? 1 : 0;
}

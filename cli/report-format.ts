/**
 * One cluster's report as `npm run analyze` prints it in text and in Markdown (`--format json` is
 * the analysis itself: one-cluster.ts). One module for both: they are two renderings of the
 * same sections (cluster, zones, Services, one Service's detail, zone traffic) and share the
 * number formats, the scenario words and the "unknown" rules; a change to a section is made to
 * both side by side.
 */
import { formatAmount } from '../lib/topology/analyses/service-volume';
import type { ServiceTrafficCost } from '../lib/topology/analyses/traffic-volume';
import type { ClusterAnalysis, ServiceDetail, ServiceReport } from '../lib/topology/report/analysis-schema';
import type { MetricsReport } from './one-cluster';

export const pct = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

const DOLLARS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `$1,234.56`. */
export const usd = (value: number) => `$${DOLLARS.format(value)}`;

/** Why the cross-zone figures are unknown (Nodes unreadable, too many zones), `null` when they are known. */
export function crossZoneUnknown(analysis: ClusterAnalysis): string | null {
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
  const gitOps = report.gitOps ? `\n      ${report.gitOps.warning}` : '';
  return `  ${report.namespace}/${report.name}  [${report.mechanism}] hints expected ${expected}, observed ${hintsText(report)}; ${traffic}${why}${attention}${hints}${hpa}${gitOps}`;
}

/** `Could not read: Nodes (forbidden): unknown cluster.zones, …` lines, empty when everything was read. */
function unreadableLines(analysis: ClusterAnalysis): string[] {
  return analysis.unreadable.map((u) => `Could not read ${u.name} (forbidden): unknown ${u.affects.join(', ')}`);
}

/** The traffic source's lines of the text report. */
function metricsLines(metrics: MetricsReport | null): string[] {
  if (metrics === null) return [];
  return [`Traffic source: ${metrics.state} — ${metrics.message}`, ...(metrics.hint !== null ? [`  ${metrics.hint}`] : [])];
}

/** Text for a Markdown table cell: its `|` escaped. */
export const markdownCell = (text: string) => text.replaceAll('|', '\\|');

/** The text report of one cluster (with `detail`: of that Service). */
export function formatText(analysis: ClusterAnalysis, detail: ServiceDetail | null, metrics: MetricsReport | null = null): string {
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

/** The Markdown report of one cluster (with `detail`: of that Service). */
export function formatMarkdown(analysis: ClusterAnalysis, detail: ServiceDetail | null, metrics: MetricsReport | null = null): string {
  const { cluster, kubernetes } = analysis;
  const esc = markdownCell;
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

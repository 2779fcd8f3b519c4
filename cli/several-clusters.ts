/**
 * Several clusters in one run of `npm run analyze` (`--all-contexts`, `--contexts A,B`): which
 * clusters (the dashboard's list, or the contexts named, in their order), read and analysed two at
 * a time, each with its own `--timeout` and `--fail-on` verdict; one section each as it is done, in
 * list order (text, Markdown, or the `clusters` array of the JSON), then a summary; the command
 * exits with the worst cluster's code.
 */
import type { ClusterEntry } from '../lib/k8s/cluster-entries';
import { clusterEntriesFromEnv } from '../lib/k8s/cluster-entries';
import type { Config } from '../lib/config/variables';
import type { ClusterAnalysis } from '../lib/topology/report/analysis-schema';
import type { Analysed } from './one-cluster';
import { analyse, reportJson } from './one-cluster';
import type { Io } from './analyze-cli';
import type { Args } from './args';
import type { FailRule } from './fail-on';
import { ruleText } from './fail-on';
import { writeJson } from './json-stream';
import type { ReadOutcome } from './read-cluster';
import { readLive } from './read-cluster';
import { formatMarkdown, formatText, markdownCell } from './report-format';

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
  const esc = markdownCell;
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
  const esc = markdownCell;
  return ['## Summary', '', `${runs.length} cluster${runs.length === 1 ? '' : 's'}, exit ${code}.`, '', '| cluster | context | result |', '|---|---|---|', ...runs.map((run) => `| ${esc(run.entry.displayName)} | ${esc(clusterLabel(run.entry))} | ${esc(verdict(run))} |`), ''].join('\n');
}

/**
 * `--all-contexts` / `--contexts A,B`: every chosen cluster read and analysed ({@link CLUSTER_CONCURRENCY}
 * at a time, each with its own `--timeout`), one section each in the kubeconfig's (or the list's)
 * order, `--fail-on` applied to each; the exit code is the worst of theirs.
 */
export async function analyzeClusters(args: Args, contexts: readonly string[] | null, volumesByService: Record<string, number> | null, io: Io, processConfig: Config): Promise<number> {
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
  if (args.format === 'json') writeJson({ clusters: sections, exitCode: code }, (text) => io.out(text));
  else if (args.format === 'markdown') io.out(summaryMarkdown(outcomes, code));
  else io.out(summaryText(outcomes, code));
  return code;
}

/**
 * The `analyze` command: the analysis of a snapshot or a live cluster as text, JSON or Markdown,
 * with `--fail-on` thresholds for CI gating; or of several live clusters (`--all-contexts`,
 * `--contexts A,B`), one section each, the thresholds applied to each. `main()` takes argv and
 * streams so tests can run it in-process; `cli/analyze.ts` is the executable entry. This module is
 * the run from arguments to exit code; each step is a module of its own (cli/README.md).
 */
import { formatConfigErrors, parseConfig } from '../lib/config/config';
import { REPORT_SERVICE_DEPTH, writeJson } from './json-stream';
import { analyse, reportJson } from './one-cluster';
import { parseArgs, readVolumes, USAGE } from './args';
import { readLive, readSnapshotFiles } from './read-cluster';
import { formatMarkdown, formatText } from './report-format';
import { analyzeClusters } from './several-clusters';

/** Where output goes (stdout/stderr in the CLI, buffers in tests). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
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
  if (args.format === 'json') writeJson(reportJson(result), (text) => io.out(text), REPORT_SERVICE_DEPTH);
  else if (args.format === 'markdown') io.out(formatMarkdown(result.analysis, result.detail, result.metrics));
  else io.out(formatText(result.analysis, result.detail, result.metrics));
  if (result.metrics !== null && result.metrics.state !== 'ok') io.err(`analyze: traffic source ${result.metrics.state}: ${result.metrics.message}${result.metrics.hint !== null ? ` ${result.metrics.hint}` : ''}\n`);
  for (const failure of result.failures) io.err(`analyze: fail-on ${failure}\n`);
  return result.failures.length > 0 ? 1 : 0;
}

/**
 * The command line of `npm run analyze`: its usage text, and the options read into {@link Args}
 * by `parseArgs` from `node:util` with the project's checks (lib/shared/command-line.ts), each
 * value checked; and the file `--volumes FILE` names, read before any cluster (a bad one is a bad
 * argument too: exit 2).
 */
import { readFile } from 'node:fs/promises';
import * as util from 'node:util';

import { checkedOptions, nonNegativeNumber, oneOf } from '../lib/shared/command-line';
import type { OptionSpecs } from '../lib/shared/command-line';
import { parsePriceSetting } from '../lib/topology/model/cloud-pricing';
import type { AnalysisOptions } from '../lib/topology/model/analysis-options';
import { MAX_GB_PER_MONTH, MAX_PRICE_PER_GB } from '../lib/topology/model/analysis-options';
import type { FailRule } from './fail-on';
import { parseRule } from './fail-on';

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

/** The options, as `parseArgs` takes them (`--help` is answered before: cli/analyze-cli.ts). */
const OPTIONS = {
  snapshot: { type: 'string', multiple: true },
  context: { type: 'string' },
  'all-contexts': { type: 'boolean' },
  contexts: { type: 'string' },
  service: { type: 'string' },
  format: { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  'kubernetes-version': { type: 'string' },
  'gb-per-endpoint': { type: 'string' },
  'gb-per-month': { type: 'string' },
  volumes: { type: 'string' },
  price: { type: 'string' },
  'price-per-gb': { type: 'string' },
  prometheus: { type: 'string' },
  'prometheus-selector': { type: 'string' },
  traffic: { type: 'string' },
  timeout: { type: 'string' },
} as const satisfies OptionSpecs;

/** The volume and price options that are plain numbers, with their analysis option and upper limit. */
const NUMBERS = [
  ['gb-per-endpoint', 'gbPerEndpoint', MAX_GB_PER_MONTH],
  ['gb-per-month', 'gbPerMonth', MAX_GB_PER_MONTH],
  ['price-per-gb', 'pricePerGb', MAX_PRICE_PER_GB],
] as const;

/**
 * Parses arguments (`--name value` or `--name=value`; an option given again replaces the earlier
 * one, except `--snapshot` and `--fail-on`, which add up; a `--` is skipped); returns a message on error.
 */
export function parseArgs(argv: readonly string[]): Args | string {
  const args = argv.filter((arg) => arg !== '--');
  const values = checkedOptions(args, util.parseArgs({ args, options: OPTIONS, strict: false, tokens: true }), OPTIONS);
  if (typeof values === 'string') return values;
  let clusters: Args['clusters'] = values['all-contexts'] ? { contexts: null } : null;
  if (values.contexts !== undefined) {
    const names = values.contexts.split(',').map((name) => name.trim());
    if (names.some((name) => name === '')) return `--contexts needs comma-separated context names, got "${values.contexts}"`;
    clusters = { contexts: [...new Set(names)] };
  }
  let service: Args['service'] = null;
  if (values.service !== undefined) {
    const [namespace, name, extra] = values.service.split('/');
    if (!namespace || !name || extra !== undefined) return `--service needs NAMESPACE/NAME, got "${values.service}"`;
    service = { namespace, name };
  }
  const format = oneOf('--format', values.format ?? 'text', ['text', 'json', 'markdown']);
  if (typeof format === 'string') return format;
  const failOn: FailRule[] = [];
  for (const text of values['fail-on'] ?? []) {
    const rule = parseRule(text);
    if (typeof rule === 'string') return rule;
    failOn.push(rule);
  }
  const options: { -readonly [K in keyof AnalysisOptions]: AnalysisOptions[K] } = {};
  if (values['kubernetes-version'] !== undefined) options.kubernetesVersion = values['kubernetes-version'];
  for (const [name, option, max] of NUMBERS) {
    const text = values[name];
    if (text === undefined) continue;
    const n = nonNegativeNumber(`--${name}`, text, max);
    if (typeof n === 'string') return n;
    options[option] = n;
  }
  if (values.price !== undefined) {
    const parsed = parsePriceSetting(values.price);
    if (!parsed.ok) return `--price ${parsed.message}`;
    options.crossZonePrice = parsed.setting;
  }
  if (values.traffic !== undefined) {
    const shares: Record<string, number> = {};
    for (const part of values.traffic.split(',')) {
      const [zone, share] = part.split('=');
      const n = Number(share);
      if (!zone || share === undefined || !Number.isFinite(n) || n < 0 || n > 1) return `--traffic needs ZONE=SHARE with SHARE from 0 to 1, got "${part}"`;
      shares[zone] = n;
    }
    options.trafficByZone = shares;
  }
  const timeoutSeconds = values.timeout === undefined ? 60 : nonNegativeNumber('--timeout', values.timeout);
  if (typeof timeoutSeconds === 'string') return timeoutSeconds;
  const snapshots = [...(values.snapshot ?? [])];
  const context = values.context ?? null;
  const prometheus = values.prometheus !== undefined || values['prometheus-selector'] !== undefined ? { url: values.prometheus ?? '', selector: values['prometheus-selector'] ?? '' } : null;
  if (snapshots.length > 0 && context !== null) return '--snapshot and --context are exclusive: give exactly one of them, or neither for the current context';
  if (clusters !== null && snapshots.length > 0) return '--snapshot and --all-contexts/--contexts are exclusive: a snapshot is one cluster';
  if (clusters !== null && context !== null) return '--context and --all-contexts/--contexts are exclusive: name several contexts with --contexts A,B';
  if (options.crossZonePrice !== undefined && options.pricePerGb !== undefined) return '--price and --price-per-gb are exclusive: --price-per-gb N is --price N/GB x2';
  if (prometheus !== null && prometheus.url === '') return '--prometheus-selector needs --prometheus URL';
  if (prometheus !== null && clusters !== null) return '--prometheus reads one cluster: use it with --snapshot or --context, not --all-contexts/--contexts';
  return { snapshots, context, clusters, service, format: format.value, failOn, options, volumesFile: values.volumes ?? null, prometheus, timeoutSeconds };
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

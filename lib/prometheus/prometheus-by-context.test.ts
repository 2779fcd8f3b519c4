import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Env } from '../config/config';
import { configFromEnv, parseConfig } from '../config/config';
import type { MetricsConfigResult } from './config';
import { contextVariable, parsePrometheusByContext, PROMETHEUS_BY_CONTEXT } from '../config/prometheus-syntax';
import { defaultClusterMetricsConfig, hasContextEntry, metricsConfigForCluster } from './prometheus-by-context';

const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-by-context-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const token = path.join(tmp, 'token');
writeFileSync(token, 'secret-token\n');
const otherToken = path.join(tmp, 'other-token');
writeFileSync(otherToken, 'other-secret\n');
const ca = path.join(tmp, 'ca.pem');
writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
const notPem = path.join(tmp, 'not-pem');
writeFileSync(notPem, 'hello');

const SHARED = 'http://thanos.monitoring:9090';
const WEST = { id: 'west', context: 'west', isDefault: false } as const;
const EAST = { id: 'east', context: 'east', isDefault: true } as const;

/** The environment with the variable set to `byContext` (JSON unless a string) and the shared URL. */
function envWith(byContext: unknown, env: Env = {}): Env {
  return { ZONESCOPE_PROMETHEUS_URL: SHARED, ...env, [PROMETHEUS_BY_CONTEXT]: typeof byContext === 'string' ? byContext : JSON.stringify(byContext) };
}

function configFor(cluster: { readonly context: string | null; readonly isDefault: boolean }, byContext: unknown, env: Env = {}): MetricsConfigResult {
  return metricsConfigForCluster(configFromEnv(envWith(byContext, env)), cluster);
}

/** Why the configuration stops the start (every message joined), `null` when it does not. */
function startError(byContext: unknown, env: Env = {}): string | null {
  const result = parseConfig(envWith(byContext, env));
  return result.ok ? null : result.errors.map((e) => e.message).join(' ');
}

function errorOf(result: MetricsConfigResult): string {
  if (result.kind !== 'error') throw new Error(`expected an error, got ${result.kind}`);
  return result.message;
}

describe('ZONESCOPE_PROMETHEUS_BY_CONTEXT', () => {
  it('an entry with a selector reads the shared ZONESCOPE_PROMETHEUS_URL with its credentials and its own selector', () => {
    const result = configFor(WEST, { west: { selector: 'cluster="west"' } }, { ZONESCOPE_PROMETHEUS_TOKEN_FILE: token, ZONESCOPE_PROMETHEUS_CA_FILE: ca, ZONESCOPE_PROMETHEUS_SELECTOR: 'cluster="east"', ZONESCOPE_PROMETHEUS_WINDOW: '1h' });
    expect(result.kind).toBe('ok');
    if (result.kind !== 'ok') return;
    expect(result.config).toMatchObject({ baseUrl: SHARED, selector: 'cluster="west"', tokenFile: token, window: '1h' });
    expect(result.config.ca).toContain('BEGIN CERTIFICATE');
  });

  it('an entry with a url of its own uses only its own credentials (the shared ones never travel elsewhere)', () => {
    const result = configFor(WEST, { west: { url: 'https://reader:pw@prometheus.west:9090/prom/', tokenFile: otherToken } }, { ZONESCOPE_PROMETHEUS_TOKEN_FILE: token, ZONESCOPE_PROMETHEUS_CA_FILE: ca });
    expect(result.kind).toBe('ok');
    if (result.kind !== 'ok') return;
    expect(result.config).toMatchObject({ baseUrl: 'https://prometheus.west:9090/prom', basicAuth: { username: 'reader', password: 'pw' }, tokenFile: otherToken, ca: null, selector: '' });
    // Without ZONESCOPE_PROMETHEUS_URL at all, too.
    const alone = metricsConfigForCluster(configFromEnv({ [PROMETHEUS_BY_CONTEXT]: JSON.stringify({ west: { url: 'http://prometheus.west:9090' } }) }), WEST);
    expect(alone.kind === 'ok' && alone.config.baseUrl).toBe('http://prometheus.west:9090');
  });

  it('a context without an entry is not configured, with a hint naming the variable and the context', () => {
    const result = configFor(WEST, { other: { selector: 'cluster="other"' } });
    expect(result).toMatchObject({
      kind: 'not-configured',
      message: 'No Prometheus is configured for context "west" (ZONESCOPE_PROMETHEUS_BY_CONTEXT has no entry for it): traffic volumes are assumed.',
    });
    expect(result.kind === 'not-configured' && result.hint).toBe(
      'Add "west" to ZONESCOPE_PROMETHEUS_BY_CONTEXT: {"west": {"selector": "cluster=\\"west\\""}} reads its series from ZONESCOPE_PROMETHEUS_URL, {"west": {"url": "http://prometheus.monitoring:9090"}} from a Prometheus of its own; docs/traffic.md.',
    );
    // Unset variable: the same for every context but the default.
    const unset = metricsConfigForCluster(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: SHARED }), WEST);
    expect(unset.kind === 'not-configured' && unset.hint).toContain('ZONESCOPE_PROMETHEUS_BY_CONTEXT');
    expect(unset.kind === 'not-configured' && unset.message).toContain('context "west"');
  });

  it('the default cluster keeps ZONESCOPE_PROMETHEUS_URL and _SELECTOR unless its context has an entry, which wins', () => {
    const env = { ZONESCOPE_PROMETHEUS_SELECTOR: 'cluster="east"' };
    const own = configFor(EAST, { west: { selector: 'cluster="west"' } }, env);
    expect(own.kind === 'ok' && own.config).toMatchObject({ baseUrl: SHARED, selector: 'cluster="east"' });
    const entry = configFor(EAST, { east: { url: 'http://prometheus.east:9090', selector: 'k8s_cluster_name="east"' } }, env);
    expect(entry.kind === 'ok' && entry.config).toMatchObject({ baseUrl: 'http://prometheus.east:9090', selector: 'k8s_cluster_name="east"' });
    // No variable at all: exactly what it always was.
    expect(metricsConfigForCluster(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: SHARED }), EAST)).toMatchObject({ kind: 'ok', config: { baseUrl: SHARED, selector: '' } });
    expect(metricsConfigForCluster(configFromEnv({}), EAST).kind).toBe('not-configured');
    expect(hasContextEntry(parsePrometheusByContext('{"east": {}}'), 'east')).toBe(true);
    expect(hasContextEntry(parsePrometheusByContext('{"east": {}}'), null)).toBe(false);
  });

  it('the default cluster without a selector may not share its URL with other contexts (it would count their series)', () => {
    expect(errorOf(configFor(EAST, { west: { selector: 'cluster="west"' }, south: { url: `${SHARED}/`, selector: 'cluster="south"' }, north: { url: 'http://elsewhere:9090' } }))).toBe(
      'ZONESCOPE_PROMETHEUS_SELECTOR is not set, but ZONESCOPE_PROMETHEUS_BY_CONTEXT reads "west", "south" from ZONESCOPE_PROMETHEUS_URL too: the default cluster would count their series as its own. Set ZONESCOPE_PROMETHEUS_SELECTOR to its series\' labels (e.g. cluster="prod"), or give its context an entry.',
    );
    // Only other clusters on their own Prometheus: fine.
    expect(configFor(EAST, { north: { url: 'http://elsewhere:9090' } }).kind).toBe('ok');
    // The process-wide source's configuration says the same.
    expect(defaultClusterMetricsConfig(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: SHARED, [PROMETHEUS_BY_CONTEXT]: '{"west": {"selector": "cluster=\\"west\\""}}' })).kind).toBe('error');
  });

  it('each error names the variable and the context, and never quotes credentials', () => {
    // `start`: the variable's syntax, checked with the whole configuration (a value it cannot use stops the start);
    // `cluster`: what depends on the cluster (the shared URL, files), the cluster's traffic status.
    const cases: readonly ['start' | 'cluster', string, unknown, string, Record<string, string>?][] = [
      ['start', 'entry not an object', { west: 'cluster="west"' }, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"] must be an object with url, selector, tokenFile or caFile, not a string.'],
      ['start', 'unknown key', { west: { slector: 'cluster="west"' } }, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"] has an unknown key "slector" (the keys are url, selector, tokenFile and caFile).'],
      ['start', 'value not a string', { west: { url: 9090 } }, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].url must be a string, not a number.'],
      [
        'cluster',
        'shares the URL without a selector',
        { west: {} },
        'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"] has no url, so it shares ZONESCOPE_PROMETHEUS_URL, but it has no selector: it would read every cluster\'s series as its own. Add the labels of its series, e.g. "selector": "cluster=\\"west\\"".',
      ],
      [
        'cluster',
        'names the shared URL without a selector',
        { west: { url: 'http://thanos.monitoring:9090/' } },
        'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].url is ZONESCOPE_PROMETHEUS_URL, which other clusters share, but the entry has no selector: it would read every cluster\'s series as its own. Add the labels of its series, e.g. "selector": "cluster=\\"west\\"".',
      ],
      ['cluster', 'no url to share', { west: { selector: 'cluster="west"' } }, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"] has no url, and ZONESCOPE_PROMETHEUS_URL (the Prometheus it would share) is not set.', { ZONESCOPE_PROMETHEUS_URL: '' }],
      ['start', 'bad url', { west: { url: 'http://user:hunter2@[bad' } }, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].url is not a valid URL (expected e.g. http://prometheus:9090).'],
      ['start', 'not http', { west: { url: 'ftp://user:hunter2@prom:21' } }, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].url must start with http:// or https://, not ftp://.'],
      [
        'start',
        'bad selector',
        { west: { selector: 'cluster=west' } },
        'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].selector is not valid: the value of cluster must be in double quotes (expected label matchers such as cluster="prod"; each name="value", name=~"regex" or name!="value", separated by commas).',
      ],
      ['start', 'reserved label in the selector', { west: { selector: 'namespace="shop"' } }, 'ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].selector is not valid: the label namespace is set by zonescope itself'],
      ['cluster', 'token file missing', { west: { selector: 'cluster="west"', tokenFile: path.join(tmp, 'nope') } }, `ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].tokenFile (${path.join(tmp, 'nope')}) cannot be read: no such file.`],
      ['cluster', 'CA file not PEM', { west: { url: 'https://prom.west:9090', caFile: notPem } }, `ZONESCOPE_PROMETHEUS_BY_CONTEXT["west"].caFile (${notPem}) holds no PEM certificate.`],
      ['cluster', 'shared token file missing', { west: { selector: 'cluster="west"' } }, `ZONESCOPE_PROMETHEUS_TOKEN_FILE (${path.join(tmp, 'gone')}) cannot be read: no such file.`, { ZONESCOPE_PROMETHEUS_TOKEN_FILE: path.join(tmp, 'gone') }],
    ];
    for (const [stage, what, byContext, message, env] of cases) {
      const refused = startError(byContext, env);
      if (stage === 'start') {
        expect(refused, what).toContain(message);
        expect(refused, what).not.toContain('hunter2');
        continue;
      }
      expect(refused, what).toBeNull();
      const result = configFor(WEST, byContext, env);
      expect(errorOf(result), what).toContain(message);
      expect(JSON.stringify(result), what).not.toContain('hunter2');
    }
    // The URL of a failing entry is shown without its userinfo, when it parses.
    const shown = configFor(WEST, { west: { url: 'https://user:hunter2@prom.west:9090/x?token=1', tokenFile: path.join(tmp, 'nope') } });
    expect(shown).toMatchObject({ kind: 'error', url: 'https://prom.west:9090/x' });
    // Every broken entry is named at start, not only the first (it used to show only in that cluster's status).
    expect(startError({ west: { selector: 'cluster="west"' }, south: { url: 'nope' }, north: 3 })).toBe(
      'ZONESCOPE_PROMETHEUS_BY_CONTEXT["south"].url is not a valid URL (expected e.g. http://prometheus:9090). ZONESCOPE_PROMETHEUS_BY_CONTEXT["north"] must be an object with url, selector, tokenFile or caFile, not a number.',
    );
  });

  it('a variable that is no JSON object stops the start, without quoting its text', () => {
    const broken = '{"west": {"url": "http://user:hunter2@prom:9090"'; // cut short
    expect(startError(broken)).toBe('ZONESCOPE_PROMETHEUS_BY_CONTEXT is not valid JSON (expected an object such as {"prod": {"selector": "cluster=\\"prod\\""}}).');
    expect(startError(broken)).not.toContain('hunter2');
    expect(startError([{ west: {} }])).toBe('ZONESCOPE_PROMETHEUS_BY_CONTEXT must be a JSON object mapping a kubeconfig context to its Prometheus, not an array.');
    expect(startError('null')).toBe('ZONESCOPE_PROMETHEUS_BY_CONTEXT must be a JSON object mapping a kubeconfig context to its Prometheus, not null.');
    expect(startError({ '': { selector: 'cluster="x"' } })).toBe('ZONESCOPE_PROMETHEUS_BY_CONTEXT has an entry without a context name.');
    // Blank: no entries.
    expect(parsePrometheusByContext('  ')).toEqual({ ok: true, byContext: new Map() });
    expect(configFromEnv({ [PROMETHEUS_BY_CONTEXT]: '  ' }).ZONESCOPE_PROMETHEUS_BY_CONTEXT.size).toBe(0);
  });

  it('process-wide settings keep their own variable names in messages', () => {
    expect(startError({ west: { selector: 'cluster="west"' } }, { ZONESCOPE_PROMETHEUS_WINDOW: 'a week' })).toBe('ZONESCOPE_PROMETHEUS_WINDOW must be a PromQL duration such as 7d, 24h or 30m, not "a week".');
    expect(startError({ west: { url: 'http://p:9090' } }, { ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '-1' })).toBe('ZONESCOPE_PROMETHEUS_TIMEOUT_MS must be a whole number of at least 1, not "-1".');
  });

  it('names long and ARN-shaped contexts readably', () => {
    const arn = 'arn:aws:eks:eu-west-1:123456789012:cluster/prod';
    expect(contextVariable(arn)).toBe(`ZONESCOPE_PROMETHEUS_BY_CONTEXT["${arn}"]`);
    expect(contextVariable('x'.repeat(150))).toBe(`ZONESCOPE_PROMETHEUS_BY_CONTEXT["${'x'.repeat(99)}…"]`);
    expect(errorOf(configFor({ context: arn, isDefault: false }, { [arn]: {} }))).toContain(`ZONESCOPE_PROMETHEUS_BY_CONTEXT["${arn}"] has no url`);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { DEFAULT_EXEC_TIMEOUT_MS } from '../k8s/exec-credential/provider';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../k8s/connection';
import { DEFAULT_SERVICEACCOUNT_DIR } from '../k8s/in-cluster';
import { DEFAULT_MAX_SERVICES } from '../prometheus/exporter/input';
import { DEFAULT_SLICE_MS } from '../server/analysis-scheduler';
import { DEFAULT_WRITE_TIMEOUT_MS } from '../views/topology-mode/settings';
import type { ConfigResult, Env } from './config';
import { ConfigError, configFromEnv, defaultConfig, formatConfigErrors, parseConfig } from './config';
import { getConfig, processConfigResult } from './process-config';
import { GROUPS, VARIABLE_NAMES, VARIABLES } from './variables';

const ROOT = path.resolve(__dirname, '..', '..');

/** The messages of a result that stops the start (`[]` when it does not). */
function errors(result: ConfigResult): string[] {
  return result.ok ? [] : result.errors.map((issue) => issue.message);
}

describe('parseConfig', () => {
  it('an empty environment gives every default', () => {
    const config = configFromEnv({});
    expect(config).toMatchObject({
      ZONESCOPE_READ_ONLY: false,
      ZONESCOPE_KEEPALIVE: true,
      ZONESCOPE_LIST_PAGES_AHEAD: undefined,
      ZONESCOPE_MAX_OPEN_CLUSTERS: 8,
      ZONESCOPE_CLUSTER_IDLE_MINUTES: 15,
      ZONESCOPE_CONTEXTS: null,
      ZONESCOPE_SNAPSHOT: [],
      ZONESCOPE_ALLOWED_HOSTS: [],
      ZONESCOPE_PROMETHEUS_WINDOW: '7d',
      ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: 60,
      ZONESCOPE_PROMETHEUS_TIMEOUT_MS: 10_000,
      ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS: 600,
      ZONESCOPE_FLEET_CLUSTER_LABEL: 'cluster',
      ZONESCOPE_GB_PER_ENDPOINT: 50,
      ZONESCOPE_CROSS_ZONE_PRICE: null,
      ZONESCOPE_METRICS_MAX_SERVICES: 20_000,
      ZONESCOPE_ANALYSIS_SLICE_MS: 15,
      ZONESCOPE_ANALYSIS_LOG: false,
      ZONESCOPE_HOST: undefined,
      PORT: undefined,
      KUBECONFIG: undefined,
    });
    expect(config.ZONESCOPE_PROMETHEUS_BY_CONTEXT.size).toBe(0);
    expect(defaultConfig()).toEqual(config);
  });

  it('ZONESCOPE_READ_ONLY=yes turns writes off: every flag reads 1/0, true/false, yes/no, on/off in any case', () => {
    expect(configFromEnv({ ZONESCOPE_READ_ONLY: 'yes' }).ZONESCOPE_READ_ONLY).toBe(true);
    for (const on of ['1', 'true', 'yes', 'on', 'TRUE', 'Yes', ' On ']) expect(configFromEnv({ ZONESCOPE_READ_ONLY: on, ZONESCOPE_KEEPALIVE: on }), on).toMatchObject({ ZONESCOPE_READ_ONLY: true, ZONESCOPE_KEEPALIVE: true });
    for (const off of ['0', 'false', 'no', 'off', 'FALSE', 'No', ' OFF ']) expect(configFromEnv({ ZONESCOPE_READ_ONLY: off, ZONESCOPE_KEEPALIVE: off }), off).toMatchObject({ ZONESCOPE_READ_ONLY: false, ZONESCOPE_KEEPALIVE: false });
    // Blank is unset: the default.
    for (const blank of ['', '   ']) expect(configFromEnv({ ZONESCOPE_READ_ONLY: blank, ZONESCOPE_KEEPALIVE: blank }), JSON.stringify(blank)).toMatchObject({ ZONESCOPE_READ_ONLY: false, ZONESCOPE_KEEPALIVE: true });
  });

  it('a flag it cannot read stops the start, naming the variable and what it accepts', () => {
    for (const value of ['maybe', '2', 'enabled', 'y']) {
      expect(errors(parseConfig({ ZONESCOPE_READ_ONLY: value })), value).toEqual([`ZONESCOPE_READ_ONLY must be on (1, true, yes, on) or off (0, false, no, off), in any case, not "${value}".`]);
    }
  });

  it('ZONESCOPE_MAX_OPEN_CLUSTERS=eight stops the start, naming the variable and the range', () => {
    const result = parseConfig({ ZONESCOPE_MAX_OPEN_CLUSTERS: 'eight' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toEqual([{ variable: 'ZONESCOPE_MAX_OPEN_CLUSTERS', message: 'ZONESCOPE_MAX_OPEN_CLUSTERS must be a whole number of at least 1, not "eight".' }]);
    expect(configFromEnv({ ZONESCOPE_MAX_OPEN_CLUSTERS: ' 3 ' }).ZONESCOPE_MAX_OPEN_CLUSTERS).toBe(3);
  });

  it('numbers are checked against their ranges', () => {
    const cases: readonly [string, string, string][] = [
      ['ZONESCOPE_MAX_OPEN_CLUSTERS', '0', 'a whole number of at least 1'],
      ['ZONESCOPE_CLUSTER_IDLE_MINUTES', '-5', 'a number of at least 0'],
      ['ZONESCOPE_ANALYSIS_SLICE_MS', '1001', 'a whole number from 0 to 1000'],
      ['ZONESCOPE_REQUEST_TIMEOUT_MS', '0', 'a number greater than 0'],
      ['ZONESCOPE_PROMETHEUS_REFRESH_SECONDS', '0.05', 'a number of at least 0.1'],
      ['ZONESCOPE_PROMETHEUS_TIMEOUT_MS', '2.5', 'a whole number of at least 1'],
      ['ZONESCOPE_GB_PER_ENDPOINT', '50GB', 'a number of at least 0'],
      ['PORT', '70000', 'a port number (1–65535)'],
      ['PORT', '3000abc', 'a port number (1–65535)'],
    ];
    for (const [name, value, accepts] of cases) expect(errors(parseConfig({ [name]: value })), `${name}=${value}`).toEqual([`${name} must be ${accepts}, not "${value}".`]);
    expect(configFromEnv({ ZONESCOPE_CLUSTER_IDLE_MINUTES: '2.5', ZONESCOPE_ANALYSIS_SLICE_MS: '0', PORT: '8080' })).toMatchObject({ ZONESCOPE_CLUSTER_IDLE_MINUTES: 2.5, ZONESCOPE_ANALYSIS_SLICE_MS: 0, PORT: 8080 });
  });

  it('lists every problem at once, in the order of the table, each naming its variable', () => {
    const result = parseConfig({ ZONESCOPE_PROMETHEUS_WINDOW: 'a week', ZONESCOPE_READ_ONLY: 'maybe', ZONESCOPE_MAX_OPEN_CLUSTERS: 'eight' });
    expect(!result.ok && result.errors.map((issue) => issue.variable)).toEqual(['ZONESCOPE_MAX_OPEN_CLUSTERS', 'ZONESCOPE_READ_ONLY', 'ZONESCOPE_PROMETHEUS_WINDOW']);
    expect(() => configFromEnv({ ZONESCOPE_MAX_OPEN_CLUSTERS: 'eight', ZONESCOPE_READ_ONLY: 'maybe' })).toThrow(ConfigError);
    expect(formatConfigErrors(!result.ok ? result.errors : [])).toBe(
      [
        'zonescope cannot start: 3 environment variables have values it cannot use (docs/configuration.md lists them all):',
        '  - ZONESCOPE_MAX_OPEN_CLUSTERS must be a whole number of at least 1, not "eight".',
        '  - ZONESCOPE_READ_ONLY must be on (1, true, yes, on) or off (0, false, no, off), in any case, not "maybe".',
        '  - ZONESCOPE_PROMETHEUS_WINDOW must be a PromQL duration such as 7d, 24h or 30m, not "a week".',
      ].join('\n'),
    );
  });

  it('lists, hosts and origins: entries trimmed, blanks dropped, a malformed entry named', () => {
    const config = configFromEnv({
      ZONESCOPE_CONTEXTS: ' prod , ,staging,prod',
      ZONESCOPE_READ_ONLY_CONTEXTS: 'prod,',
      ZONESCOPE_ALLOWED_HOSTS: 'zonescope.svc, dash.internal:8443, [::1]',
      ZONESCOPE_TRUSTED_ORIGINS: 'https://zonescope.example.com/',
      ZONESCOPE_SNAPSHOT: `a.yaml,${['b', 'c'].join(path.delimiter)}`,
    });
    expect(config).toMatchObject({
      ZONESCOPE_CONTEXTS: ['prod', 'staging'],
      ZONESCOPE_READ_ONLY_CONTEXTS: ['prod'],
      ZONESCOPE_ALLOWED_HOSTS: ['zonescope.svc', 'dash.internal:8443', '[::1]'],
      ZONESCOPE_TRUSTED_ORIGINS: ['https://zonescope.example.com/'],
      ZONESCOPE_SNAPSHOT: ['a.yaml', 'b', 'c'],
    });
    expect(configFromEnv({ ZONESCOPE_CONTEXTS: '*' }).ZONESCOPE_CONTEXTS).toBeNull();
    expect(errors(parseConfig({ ZONESCOPE_ALLOWED_HOSTS: 'a b' }))).toEqual(['ZONESCOPE_ALLOWED_HOSTS must be a comma-separated list of host names or addresses, each name (any port) or name:port; "a b" is not.']);
    expect(errors(parseConfig({ ZONESCOPE_TRUSTED_ORIGINS: 'zonescope.example.com, ftp://x, https://y/z, https://ok.example' }))).toEqual([
      'ZONESCOPE_TRUSTED_ORIGINS must be a comma-separated list of http(s) origins such as https://zonescope.example.com (no path); "zonescope.example.com", "ftp://x", "https://y/z" are not.',
    ]);
    for (const host of ['0.0.0.0', '::', '[::1]', '127.0.0.1', 'zonescope.local', 'fd00::1']) expect(configFromEnv({ ZONESCOPE_HOST: host }).ZONESCOPE_HOST, host).toBe(host);
    for (const host of ['http://0.0.0.0', 'a b', '[::1', 'host:3000']) expect(parseConfig({ ZONESCOPE_HOST: host }).ok, host).toBe(false);
  });

  it('URLs, selectors, the price and the JSON of ZONESCOPE_PROMETHEUS_BY_CONTEXT are checked, and no message quotes credentials', () => {
    const secret = 'http://reader:hunter2@[prometheus';
    const result = parseConfig({
      ZONESCOPE_PROMETHEUS_URL: secret,
      ZONESCOPE_FLEET_PROMETHEUS_URL: 'ftp://reader:hunter2@thanos:21',
      ZONESCOPE_PROMETHEUS_SELECTOR: 'namespace="shop"',
      ZONESCOPE_HISTORY_SELECTOR: '{job="zonescope"}',
      ZONESCOPE_CROSS_ZONE_PRICE: 'cheap',
      ZONESCOPE_PROMETHEUS_BY_CONTEXT: '{"west": {"url": "http://reader:hunter2@prom:9090"',
    });
    expect(errors(result)).toEqual([
      'ZONESCOPE_FLEET_PROMETHEUS_URL must start with http:// or https://, not ftp://.',
      'ZONESCOPE_PROMETHEUS_URL is not a valid URL (expected e.g. http://prometheus:9090).',
      'ZONESCOPE_PROMETHEUS_SELECTOR is not valid: the label namespace is set by zonescope itself (expected label matchers such as cluster="prod"; each name="value", name=~"regex" or name!="value", separated by commas).',
      'ZONESCOPE_PROMETHEUS_BY_CONTEXT is not valid JSON (expected an object such as {"prod": {"selector": "cluster=\\"prod\\""}}).',
      'ZONESCOPE_HISTORY_SELECTOR is not valid: leave out the braces (expected label matchers such as job="zonescope",cluster="prod"; each name="value", name=~"regex" or name!="value", separated by commas).',
      expect.stringMatching(/^ZONESCOPE_CROSS_ZONE_PRICE must be aws, gcp, azure, or a price such as "0\.01\/GB x2" .*, not "cheap"\.$/),
    ]);
    expect(JSON.stringify(result)).not.toContain('hunter2');
    const good = configFromEnv({ ZONESCOPE_PROMETHEUS_BY_CONTEXT: '{"west": {"selector": "cluster=\\"west\\""}, "south": {"url": "https://p.south:9090"}}', ZONESCOPE_CROSS_ZONE_PRICE: 'GCP' });
    expect([...good.ZONESCOPE_PROMETHEUS_BY_CONTEXT]).toEqual([
      ['west', { selector: 'cluster="west"' }],
      ['south', { url: 'https://p.south:9090' }],
    ]);
    expect(good.ZONESCOPE_CROSS_ZONE_PRICE).toEqual({ kind: 'cloud', cloud: 'gcp' });
  });

  it('refuses both prices at once, saying which to keep', () => {
    expect(errors(parseConfig({ ZONESCOPE_PRICE_PER_GB: '0.01', ZONESCOPE_CROSS_ZONE_PRICE: 'aws' }))).toEqual([
      'ZONESCOPE_PRICE_PER_GB and ZONESCOPE_CROSS_ZONE_PRICE are both set: set only ZONESCOPE_CROSS_ZONE_PRICE (ZONESCOPE_PRICE_PER_GB=N is ZONESCOPE_CROSS_ZONE_PRICE=N/GB x2).',
    ]);
  });

  it('warns of a ZONESCOPE_ variable it does not know, with the closest name, and ignores other variables', () => {
    const result = parseConfig({ ZONESCOPE_READONLY: '1', ZONESCOPE_WHATEVER_ELSE: 'x', PATH: '/bin', HOSTNAME: 'build-box' });
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([
      'ZONESCOPE_READONLY is not a zonescope setting and is ignored (did you mean ZONESCOPE_READ_ONLY?); docs/configuration.md lists them.',
      'ZONESCOPE_WHATEVER_ELSE is not a zonescope setting and is ignored; docs/configuration.md lists them.',
    ]);
  });

  it('standard variables are taken as they are, never refused', () => {
    const config = configFromEnv({ HOME: '/home/me', HTTPS_PROXY: 'not even a url', KUBERNETES_SERVICE_PORT: 'https' });
    expect(config).toMatchObject({ HOME: '/home/me', HTTPS_PROXY: 'not even a url', KUBERNETES_SERVICE_PORT: 'https' });
  });
});

describe('getConfig', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('reads the process environment once and keeps it until a variable changes', () => {
    vi.stubEnv('ZONESCOPE_MAX_OPEN_CLUSTERS', '3');
    const first = getConfig();
    expect(first.ZONESCOPE_MAX_OPEN_CLUSTERS).toBe(3);
    expect(getConfig()).toBe(first);
    vi.stubEnv('ZONESCOPE_MAX_OPEN_CLUSTERS', '4');
    expect(getConfig().ZONESCOPE_MAX_OPEN_CLUSTERS).toBe(4);
  });

  it('throws the message naming the variable when the process environment cannot be used', () => {
    vi.stubEnv('ZONESCOPE_MAX_OPEN_CLUSTERS', 'eight');
    expect(processConfigResult().ok).toBe(false);
    expect(() => getConfig()).toThrow('ZONESCOPE_MAX_OPEN_CLUSTERS must be a whole number of at least 1, not "eight".');
  });
});

describe('the table', () => {
  it('describes every variable: area, readers, default and a description', () => {
    for (const name of VARIABLE_NAMES) {
      const variable = VARIABLES[name];
      expect(Object.keys(GROUPS), name).toContain(variable.group);
      expect(variable.readers.length, name).toBeGreaterThan(0);
      expect(variable.default.trim(), name).not.toBe('');
      expect(variable.description, name).toMatch(/^[A-Z`].*\.$/);
    }
  });

  it('says the same defaults as the code that falls back on them', () => {
    const config = defaultConfig();
    expect(config.ZONESCOPE_ANALYSIS_SLICE_MS).toBe(DEFAULT_SLICE_MS);
    expect(config.ZONESCOPE_METRICS_MAX_SERVICES).toBe(DEFAULT_MAX_SERVICES);
    expect(VARIABLES.ZONESCOPE_REQUEST_TIMEOUT_MS.default).toBe(`\`${DEFAULT_REQUEST_TIMEOUT_MS}\``);
    expect(VARIABLES.ZONESCOPE_EXEC_TIMEOUT_MS.default).toBe(`\`${DEFAULT_EXEC_TIMEOUT_MS}\``);
    expect(VARIABLES.ZONESCOPE_WRITE_TIMEOUT_MS.default).toBe(`\`${DEFAULT_WRITE_TIMEOUT_MS}\``);
    expect(VARIABLES.ZONESCOPE_SERVICEACCOUNT_DIR.default).toBe(`\`${DEFAULT_SERVICEACCOUNT_DIR}\``);
  });

  it('holds every ZONESCOPE_ variable the project reads or sets (none is read undocumented)', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(path.join(ROOT, dir))) {
        const relative = path.join(dir, entry);
        if (entry === 'node_modules' || entry.startsWith('.')) continue;
        if (statSync(path.join(ROOT, relative)).isDirectory()) walk(relative);
        else if (/\.(ts|tsx|mjs|js)$/.test(entry) && !/\.test\.tsx?$/.test(entry)) files.push(relative);
      }
    };
    for (const dir of ['app', 'cli', 'components', 'deploy', 'e2e', 'lib', 'scripts', 'sim']) walk(dir);
    files.push('instrumentation.ts', 'proxy.ts', 'next.config.js', 'playwright.config.ts', 'deploy/Dockerfile');
    const named = new Set<string>();
    for (const file of files) {
      // A name followed by `_` or a quote-less `${` is a prefix (`ZONESCOPE_FLEET_PROMETHEUS_${name}`), and the
      // cluster-unavailable digest is no variable.
      for (const match of readFileSync(path.join(ROOT, file), 'utf8').matchAll(/ZONESCOPE_[A-Z0-9_]*[A-Z0-9]\b(?!_)/g)) named.add(match[0]);
    }
    named.delete('ZONESCOPE_CLUSTER_UNAVAILABLE');
    expect([...named].filter((name) => !(VARIABLE_NAMES as readonly string[]).includes(name)).sort()).toEqual([]);
  });

  it('the container image and the manifests set values the server can use', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8');
    const env: Env = Object.fromEntries([...dockerfile.matchAll(/^\s*(?:ENV\s+)?([A-Z_]+)=(\S+?)\s*\\?$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
    expect(env).toMatchObject({ ZONESCOPE_HOST: '0.0.0.0', ZONESCOPE_READ_ONLY: '1' });
    expect(errors(parseConfig(env))).toEqual([]);
    expect(configFromEnv(env)).toMatchObject({ ZONESCOPE_READ_ONLY: true, ZONESCOPE_ALLOWED_HOSTS: ['localhost', '127.0.0.1', '[::1]'], PORT: 3000 });
  });
});

/**
 * The alert rules (deploy/prometheus/zonescope-rules.yaml) under `promtool`: `check rules`, and
 * `test rules` on input series generated from real scrapes of `GET /metrics` while the simulator
 * runs scenarios that make each alert's condition true and false (a Service scaled below the
 * minimums, a node without a zone label, one zone only, IPVS at 1.35, a budget, a forbidden or
 * hung resource type, the API server gone, the target gone). Each scenario's promtool file is
 * written to a temp folder; a failing `promtool test rules` fails the test with its output.
 * Debian's promtool (`apt-get install prometheus`) is required: without it these tests fail.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';

import { RESOURCES } from '../../lib/k8s/resources';
import type { ScrapedCluster, ScrapedClusterOptions } from './sim-scrapes';
import { sampleValue, startScrapedCluster } from './sim-scrapes';
import { scrapesToInputSeries } from './scrape-to-promtool';

const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';
const RULES_FILE = path.resolve('deploy/prometheus/zonescope-rules.yaml');
/** The labels Prometheus adds to every series of the zonescope target (the ServiceMonitor's job). */
const TARGET = { job: 'zonescope', instance: '10.0.3.17:3000' } as const;
const RUNBOOK = 'https://github.com/zonescope/zonescope/blob/main/docs/alerts.md#';

type Labels = Record<string, string>;
interface ExpAlert {
  exp_labels: Labels;
  exp_annotations: Labels;
}
interface AlertCase {
  alertname: string;
  /** Minutes after the first scrape. */
  at: number;
  alerts: ExpAlert[];
}

let workDir = '';
/** alertname → whether some case expected it firing / expected it silent. */
const covered = new Map<string, { fires: boolean; silent: boolean }>();

beforeAll(async () => {
  if (!existsSync(PROMTOOL)) throw new Error(`${PROMTOOL} not found: install Debian's prometheus package (apt-get install prometheus), or set PROMTOOL_BIN`);
  workDir = await mkdtemp(path.join(tmpdir(), 'zonescope-promtool-'));
});

afterAll(async () => {
  if (workDir !== '') await rm(workDir, { recursive: true, force: true });
});

function promtool(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(PROMTOOL, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/**
 * Writes `<name>.test.yaml` with input series from `scrapes` (one a minute) and the cases, runs
 * `promtool test rules` on it, and fails with promtool's output when it fails.
 */
async function runPromtool(name: string, scrapes: readonly (string | null)[], cases: readonly AlertCase[]): Promise<void> {
  const file = path.join(workDir, `${name}.test.yaml`);
  const test = {
    rule_files: [RULES_FILE],
    evaluation_interval: '1m',
    tests: [
      {
        name,
        interval: '1m',
        input_series: scrapesToInputSeries(scrapes, { targetLabels: TARGET }),
        alert_rule_test: cases.map((c) => ({ eval_time: `${c.at}m`, alertname: c.alertname, exp_alerts: c.alerts })),
      },
    ],
  };
  await writeFile(file, stringify(test, { lineWidth: 0 }));
  const { status, output } = promtool('test', 'rules', file);
  if (status !== 0) throw new Error(`promtool test rules ${file} failed (exit ${String(status)}):\n${output}`);
  for (const c of cases) {
    const entry = covered.get(c.alertname) ?? { fires: false, silent: false };
    if (c.alerts.length > 0) entry.fires = true;
    else entry.silent = true;
    covered.set(c.alertname, entry);
  }
}

/** `n` copies of a scrape (the state held that long). */
const hold = (scrape: string, minutes: number): string[] => Array.from({ length: minutes }, () => scrape);

/** Go's `humanizePercentage` (`%.4g` of v×100) for the ratios the tests meet. */
const percentage = (ratio: number): string => `${Number((ratio * 100).toPrecision(4))}%`;

/** Go's `humanizeDuration` for 1 s ≤ v < 1 day. */
function humanizeDuration(seconds: number): string {
  const whole = Math.trunc(seconds);
  const [h, m, s] = [Math.trunc(whole / 3600) % 24, Math.trunc(whole / 60) % 60, whole % 60];
  if (h !== 0) return `${h}h ${m}m ${s}s`;
  if (m !== 0) return `${m}m ${s}s`;
  return `${Number(seconds.toPrecision(4))}s`;
}

// The annotations each alert should carry, written out as an SRE reads them.

function hintsOff(namespace: string, service: string, reason: string, ratio = 0): ExpAlert {
  return {
    exp_labels: { severity: 'warning', namespace, service, reason, ...TARGET },
    exp_annotations: {
      summary: `Topology hints are off for ${namespace}/${service} (${reason})`,
      description:
        `Service ${namespace}/${service} asks for Topology Aware Routing, but only ${percentage(ratio)} of its ready endpoints carry a zone hint, ` +
        `so kube-proxy sends its traffic to any zone (cross-zone cost and latency). Reason: ${reason}. Check the Service's History panel in zonescope and ` +
        `\`kubectl get endpointslices -n ${namespace} -l kubernetes.io/service-name=${service} -o yaml\`; for insufficient-number-of-endpoints or ` +
        `min-allocation-exceeds-overload-threshold raise the replicas (or the HPA's minReplicas) or spread them like the zones' CPU.`,
      runbook_url: `${RUNBOOK}zonescopeservicehintsoff`,
    },
  };
}

function outOfSync(namespace: string, service: string, reason: string, ratio: number, shouldWrite: boolean): ExpAlert {
  return {
    exp_labels: { severity: 'warning', namespace, service, reason, ...TARGET },
    exp_annotations: {
      summary: `Topology hints of ${namespace}/${service} differ from what the controller should write`,
      description:
        `The EndpointSlices of ${namespace}/${service} carry zone hints on ${percentage(ratio)} of the ready endpoints, but the EndpointSlice controller should ` +
        `${shouldWrite ? 'write hints for every endpoint' : 'write no hints'} (reason: ${reason}). The controller did not re-sync the Service ` +
        `(kubernetes/kubernetes#114215: hints removed after node churn are not restored until the Service's endpoints change again). Compare ` +
        `\`kubectl get endpointslices -n ${namespace} -l kubernetes.io/service-name=${service} -o yaml\` with the Service page in zonescope; any change ` +
        `to the Service's pods (e.g. \`kubectl rollout restart\`) makes the controller write them again.`,
      runbook_url: `${RUNBOOK}zonescopeservicehintsoutofsync`,
    },
  };
}

function ineligibleNode(node: string, cause: 'missing-zone' | 'missing-cpu'): ExpAlert {
  return {
    exp_labels: { severity: 'critical', node, cause, ...TARGET },
    exp_annotations: {
      summary: `Node ${node} turns Topology Aware Routing off cluster-wide (${cause})`,
      description:
        `Node ${node} is Ready but ${cause === 'missing-zone' ? 'has no topology.kubernetes.io/zone label' : 'reports no allocatable CPU'}, ` +
        `so the EndpointSlice controller has no CPU ratios and removes the hints of every Service using topology-mode Auto: their traffic goes to any zone. ` +
        `Check \`kubectl get node ${node} --show-labels\` (a self-managed or still-initialising node; a node group without the cloud provider's labels) ` +
        `and label or drain it; zonescope's Overview names it too.`,
      runbook_url: `${RUNBOOK}zonescopeclusterineligiblenode`,
    },
  };
}

function ineligible(cause: string): ExpAlert {
  return {
    exp_labels: { severity: 'warning', cause, ...TARGET },
    exp_annotations: {
      summary: `Topology Aware Routing cannot work in this cluster (${cause})`,
      description:
        `The topology cache has no CPU ratios (${cause === 'single-zone' ? 'every counted node is in one zone' : 'no Ready worker node with CPU is counted'}), ` +
        `so no Service using topology-mode Auto gets hints, though some ask for them. Check the Overview's zone map in zonescope and ` +
        `\`kubectl get nodes -L topology.kubernetes.io/zone\`; spread the nodes over two zones or more, or remove the annotations where one zone is intended.`,
      runbook_url: `${RUNBOOK}zonescopeclusterineligible`,
    },
  };
}

function overBudget(now: number, budget: number, best: number): ExpAlert {
  return {
    // The comparison drops `scenario` (matched with ignoring): one alert per zonescope target.
    exp_labels: { severity: 'warning', ...TARGET },
    exp_annotations: {
      summary: `Cross-zone traffic is predicted to cost $${now.toFixed(0)}/month, over the budget`,
      description:
        `zonescope predicts $${now.toFixed(2)}/month of cross-zone data transfer at today's routing, above the budget of $${budget.toFixed(2)}/month ` +
        `(ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS); at each Service's best mechanism it would be $${best.toFixed(2)}/month. ` +
        `The Overview's zone traffic lists the Services costing and saving most with their smallest fix.`,
      runbook_url: `${RUNBOOK}zonescopecrosszonespendoverbudget`,
    },
  };
}

function ipvsDeprecated(cluster: string, version: string): ExpAlert {
  return {
    exp_labels: { severity: 'info', cluster, kubernetes_version: version, platform: 'eks', proxy_mode: 'ipvs', ...TARGET },
    exp_annotations: {
      summary: `kube-proxy runs in IPVS mode on Kubernetes ${version}, which deprecates it`,
      description:
        `Cluster ${cluster} runs Kubernetes ${version} with kube-proxy in IPVS mode, deprecated since 1.35. Plan the move to nftables (or iptables) mode: ` +
        `check the Overview's dataplane panel in zonescope and \`kubectl -n kube-system get configmap kube-proxy-config -o yaml\` (EKS) or ` +
        `\`kube-proxy\` (kubeadm) for \`mode:\`.`,
      runbook_url: `${RUNBOOK}zonescopekubeproxyipvsdeprecated`,
    },
  };
}

const NOT_SYNCED: ExpAlert = {
  exp_labels: { severity: 'warning', ...TARGET },
  exp_annotations: {
    summary: 'zonescope has not finished its first sync of the cluster',
    description:
      `zonescope (${TARGET.instance}) has not listed every resource type for 15 minutes, so it exports no per-Service series and the other zonescope ` +
      'alerts cannot fire. Check `zonescope_informer_state`, the Pod\'s logs (`kubectl -n zonescope logs deploy/zonescope`) and its RBAC ' +
      '(deploy/kubernetes/base/rbac-read.yaml).',
    runbook_url: `${RUNBOOK}zonescopenotsynced`,
  },
};

function informerUnhealthy(resource: string, state: 'stale' | 'forbidden'): ExpAlert {
  return {
    exp_labels: { severity: 'warning', resource, state, ...TARGET },
    exp_annotations: {
      summary: `zonescope's ${resource} data is ${state}`,
      description:
        `zonescope (${TARGET.instance}) cannot keep ${resource} up to date: ` +
        (state === 'forbidden'
          ? 'the API server refuses its list/watch (RBAC: apply deploy/kubernetes/base/rbac-read.yaml, or check the ClusterRole zonescope-read)'
          : 'its watch keeps failing (API server unreachable, throttled or timing out)') +
        '. Its figures and the other zonescope alerts may be out of date. The dashboard\'s header says since when; the Pod\'s logs name the error.',
      runbook_url: `${RUNBOOK}zonescopeinformerunhealthy`,
    },
  };
}

function dataStale(ageSeconds: number): ExpAlert {
  const age = humanizeDuration(ageSeconds);
  return {
    exp_labels: { severity: 'warning', ...TARGET },
    exp_annotations: {
      summary: `zonescope's data is ${age} old`,
      description:
        `zonescope (${TARGET.instance}) last heard from the API server about one of its resource types ${age} ago, so what it exports may no longer be true. ` +
        'Check `zonescope_informer_last_event_timestamp_seconds` for the type, the Pod\'s logs, and the API server\'s health.',
      runbook_url: `${RUNBOOK}zonescopedatastale`,
    },
  };
}

const METRICS_ABSENT: ExpAlert = {
  exp_labels: { severity: 'warning', job: 'zonescope' },
  exp_annotations: {
    summary: 'Prometheus has no zonescope series',
    description:
      'No zonescope_build_info{job="zonescope"} for 15 minutes: zonescope is down, or Prometheus does not scrape it, so none of the zonescope alerts can fire. ' +
      'Check `up{job="zonescope"}`, the Pod (`kubectl -n zonescope get pods`) and that the ServiceMonitor\'s selector matches the Service (deploy/kubernetes/monitoring).',
    runbook_url: `${RUNBOOK}zonescopemetricsabsent`,
  },
};

/** Every alert name in the rules file. */
function ruleAlertNames(): string[] {
  const rules = parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { rules: { alert?: string }[] }[] };
  return rules.groups.flatMap((g) => g.rules.flatMap((r) => (r.alert === undefined ? [] : [r.alert]))).sort();
}

/** Runs `body` against a started cluster and always stops it. */
async function withCluster(options: ScrapedClusterOptions, body: (cluster: ScrapedCluster) => Promise<void>): Promise<void> {
  const cluster = await startScrapedCluster(options);
  try {
    await body(cluster);
  } finally {
    await cluster.stop();
  }
}

const ratioOf = (text: string, namespace: string, service: string) => sampleValue(text, 'zonescope_service_hints_observed_ratio', { namespace, service });
/** eks-demo's Services that ask for hints and that the controller leaves off, with their reasons. */
const EKS_DEMO_OFF = [
  hintsOff('shop', 'api-gateway', 'min-allocation-exceeds-overload-threshold'),
  hintsOff('shop', 'cart', 'insufficient-number-of-endpoints'),
  hintsOff('shop', 'catalog', 'min-allocation-exceeds-overload-threshold'),
];
const QUIET_ON_EKS_DEMO = ruleAlertNames().filter((name) => name !== 'ZonescopeServiceHintsOff');

describe('deploy/prometheus/zonescope-rules.yaml', () => {
  it('passes promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', RULES_FILE);
    expect(status, output).toBe(0);
    expect(output).toContain(`SUCCESS: ${ruleAlertNames().length} rules found`);
  });

  it('healthy eks-demo: only the Services the controller leaves without hints alert, after 30 minutes; nothing else fires', async () => {
    await withCluster({ scenario: 'eks-demo' }, async (cluster) => {
      const scrape = await cluster.scrape();
      await runPromtool('eks-demo-healthy', hold(scrape, 121), [
        { alertname: 'ZonescopeServiceHintsOff', at: 29, alerts: [] },
        { alertname: 'ZonescopeServiceHintsOff', at: 30, alerts: EKS_DEMO_OFF },
        { alertname: 'ZonescopeServiceHintsOff', at: 120, alerts: EKS_DEMO_OFF },
        ...QUIET_ON_EKS_DEMO.map((alertname) => ({ alertname, at: 120, alerts: [] })),
      ]);
    });
  }, 60_000);

  it('a Deployment scaled below the minimums: the controller turns its hints off and the alert fires after 30 minutes, and clears once scaled back', async () => {
    await withCluster({ scenario: 'eks-demo' }, async (cluster) => {
      const before = await cluster.scrape();
      expect(ratioOf(before, 'shop', 'checkout')).toBe(1);
      const deployment = '/apis/apps/v1/namespaces/shop/deployments/checkout/scale';
      await cluster.patch(deployment, { spec: { replicas: 2 } });
      const off = await cluster.scrapeUntil((text) => ratioOf(text, 'shop', 'checkout') === 0, 'the hints of shop/checkout to go off');
      await cluster.patch(deployment, { spec: { replicas: 9 } });
      const on = await cluster.scrapeUntil((text) => ratioOf(text, 'shop', 'checkout') === 1, 'the hints of shop/checkout to come back');
      // 0–9 min hints on, 10–49 off, 50–59 on again.
      const scrapes = [...hold(before, 10), ...hold(off, 40), ...hold(on, 10)];
      const checkout = hintsOff('shop', 'checkout', 'insufficient-number-of-endpoints');
      await runPromtool('eks-demo-scale-down', scrapes, [
        { alertname: 'ZonescopeServiceHintsOff', at: 39, alerts: EKS_DEMO_OFF },
        { alertname: 'ZonescopeServiceHintsOff', at: 40, alerts: [...EKS_DEMO_OFF, checkout] },
        { alertname: 'ZonescopeServiceHintsOff', at: 55, alerts: EKS_DEMO_OFF },
        // The controller wrote what it should at every step.
        { alertname: 'ZonescopeServiceHintsOutOfSync', at: 59, alerts: [] },
      ]);
    });
  }, 60_000);

  it('a node without a zone label: one alert naming it after 15 minutes; once it is gone, hints the controller never restores raise the drift alert', async () => {
    await withCluster({ scenario: 'missing-zone-label' }, async (cluster) => {
      const ineligible = await cluster.scrape();
      expect(sampleValue(ineligible, 'zonescope_cluster_ineligible_node_info', { node: 'self-managed-node-1', cause: 'missing-zone' })).toBe(1);
      // The node leaves (as after a Spot interruption): the cluster is eligible again, but upstream's
      // controller re-syncs only overloaded Services on node changes, so web and api stay without hints.
      const response = await fetch(`${cluster.sim.url}/api/v1/nodes/self-managed-node-1`, { method: 'DELETE', headers: { Authorization: `Bearer ${cluster.sim.token}` } });
      expect(response.ok).toBe(true);
      const drifted = await cluster.scrapeUntil(
        (text) => sampleValue(text, 'zonescope_cluster_eligible') === 1 && sampleValue(text, 'zonescope_service_hints_in_sync', { namespace: 'shop', service: 'web' }) === 0,
        'eligibility back and web out of sync',
      );
      const scrapes = [...hold(ineligible, 20), ...hold(drifted, 40)];
      await runPromtool('missing-zone-label', scrapes, [
        { alertname: 'ZonescopeClusterIneligibleNode', at: 14, alerts: [] },
        { alertname: 'ZonescopeClusterIneligibleNode', at: 15, alerts: [ineligibleNode('self-managed-node-1', 'missing-zone')] },
        { alertname: 'ZonescopeClusterIneligibleNode', at: 25, alerts: [] },
        // The node explains it: no node-less ineligibility alert.
        { alertname: 'ZonescopeClusterIneligible', at: 19, alerts: [] },
        // Off for 20 minutes only (the controller's decision), then the drift alert's business.
        { alertname: 'ZonescopeServiceHintsOff', at: 50, alerts: [] },
        { alertname: 'ZonescopeServiceHintsOutOfSync', at: 34, alerts: [] },
        {
          alertname: 'ZonescopeServiceHintsOutOfSync',
          at: 35,
          alerts: [outOfSync('shop', 'api', 'enabled', 0, true), outOfSync('shop', 'web', 'enabled', 0, true)],
        },
      ]);
    });
  }, 60_000);

  it('every node in one zone: the node-less ineligibility alert fires after 15 minutes with its cause', async () => {
    await withCluster({ scenario: 'single-zone' }, async (cluster) => {
      const scrape = await cluster.scrape();
      await runPromtool('single-zone', hold(scrape, 31), [
        { alertname: 'ZonescopeClusterIneligible', at: 14, alerts: [] },
        { alertname: 'ZonescopeClusterIneligible', at: 15, alerts: [ineligible('single-zone')] },
        { alertname: 'ZonescopeClusterIneligibleNode', at: 30, alerts: [] },
        { alertname: 'ZonescopeServiceHintsOff', at: 30, alerts: [hintsOff('shop', 'web', 'insufficient-node-info')] },
      ]);
    });
  }, 60_000);

  it('IPVS mode: alerts on 1.35 after an hour, not on 1.31', async () => {
    await withCluster({ scenario: 'ipvs', version: 'v1.35.0' }, async (cluster) => {
      const scrape = await cluster.scrape();
      await runPromtool('ipvs-1.35', hold(scrape, 61), [
        { alertname: 'ZonescopeKubeProxyIpvsDeprecated', at: 59, alerts: [] },
        { alertname: 'ZonescopeKubeProxyIpvsDeprecated', at: 60, alerts: [ipvsDeprecated('zonescope-sim', '1.35')] },
      ]);
    });
    await withCluster({ scenario: 'ipvs' }, async (cluster) => {
      const scrape = await cluster.scrape();
      expect(sampleValue(scrape, 'zonescope_cluster_info', { cluster: 'zonescope-sim', kubernetes_version: '1.31', platform: 'eks', proxy_mode: 'ipvs' })).toBe(1);
      await runPromtool('ipvs-1.31', hold(scrape, 121), [{ alertname: 'ZonescopeKubeProxyIpvsDeprecated', at: 120, alerts: [] }]);
    });
  }, 60_000);

  it('cross-zone spend: alerts after an hour above ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS, not below it', async () => {
    await withCluster({ scenario: 'eks-demo', budgetDollars: '10' }, async (cluster) => {
      const scrape = await cluster.scrape();
      const cost = (scenario: string) => sampleValue(scrape, 'zonescope_cross_zone_cost_dollars_per_month', { scenario }) ?? Number.NaN;
      expect(sampleValue(scrape, 'zonescope_cross_zone_budget_dollars_per_month')).toBe(10);
      expect(cost('now')).toBeGreaterThan(10);
      await runPromtool('budget-exceeded', hold(scrape, 61), [
        { alertname: 'ZonescopeCrossZoneSpendOverBudget', at: 59, alerts: [] },
        { alertname: 'ZonescopeCrossZoneSpendOverBudget', at: 60, alerts: [overBudget(cost('now'), 10, cost('best'))] },
      ]);
    });
    await withCluster({ scenario: 'eks-demo', budgetDollars: '1000' }, async (cluster) => {
      const scrape = await cluster.scrape();
      await runPromtool('budget-kept', hold(scrape, 121), [{ alertname: 'ZonescopeCrossZoneSpendOverBudget', at: 120, alerts: [] }]);
    });
  }, 60_000);

  it('a resource type whose first list never answers: not-synced alert after 15 minutes', async () => {
    await withCluster({ scenario: 'eks-demo', faults: [{ type: 'hang', verbs: ['list'], resources: ['pods'] }], waitForSync: false }, async (cluster) => {
      const scrape = await cluster.scrapeUntil((text) => sampleValue(text, 'zonescope_informer_state', { resource: 'nodes', state: 'synced' }) === 1, 'the nodes to sync');
      expect(sampleValue(scrape, 'zonescope_cluster_synced')).toBe(0);
      await runPromtool('not-synced', hold(scrape, 31), [
        { alertname: 'ZonescopeNotSynced', at: 14, alerts: [] },
        { alertname: 'ZonescopeNotSynced', at: 15, alerts: [NOT_SYNCED] },
        // Still syncing is not unhealthy.
        { alertname: 'ZonescopeInformerUnhealthy', at: 30, alerts: [] },
      ]);
    });
  }, 60_000);

  it('a resource type zonescope may not list: the informer alert names it after 10 minutes', async () => {
    await withCluster({ scenario: 'eks-demo', rbac: { deny: [{ verbs: ['list', 'watch'], resources: ['horizontalpodautoscalers'] }] } }, async (cluster) => {
      const scrape = await cluster.scrapeUntil((text) => sampleValue(text, 'zonescope_informer_state', { resource: 'hpas', state: 'forbidden' }) === 1, 'hpas forbidden');
      await runPromtool('forbidden', hold(scrape, 11), [
        { alertname: 'ZonescopeInformerUnhealthy', at: 9, alerts: [] },
        { alertname: 'ZonescopeInformerUnhealthy', at: 10, alerts: [informerUnhealthy('hpas', 'forbidden')] },
      ]);
    });
  }, 60_000);

  it('the API server goes away: every informer goes stale (alert after 10 minutes) and the data ages past 30 minutes (alert 5 minutes later)', async () => {
    await withCluster({ scenario: 'eks-demo' }, async (cluster) => {
      const t0 = Date.now();
      const at = (minute: number) => cluster.scrapeAt(t0 + minute * 60_000);
      const scrapes: string[] = [];
      for (let minute = 0; minute < 5; minute++) scrapes.push(await at(minute));
      await cluster.stopSimulator();
      const ids = Object.keys(RESOURCES);
      await cluster.scrapeUntil((text) => ids.every((resource) => sampleValue(text, 'zonescope_informer_state', { resource, state: 'stale' }) === 1), 'every informer stale');
      // The clock moves on a minute per scrape; nothing else changes.
      for (let minute = 5; minute <= 40; minute++) scrapes.push(await at(minute));
      const age = (minute: number) => sampleValue(scrapes[minute] ?? '', 'zonescope_sync_age_seconds') ?? Number.NaN;
      // The last event came just before t0: the age passes 30 minutes at minute 30 (31 had an
      // event slipped in before the simulator stopped).
      const crossing = scrapes.findIndex((_, minute) => age(minute) > 1800);
      expect([30, 31]).toContain(crossing);
      await runPromtool('api-server-gone', scrapes, [
        { alertname: 'ZonescopeInformerUnhealthy', at: 14, alerts: [] },
        { alertname: 'ZonescopeInformerUnhealthy', at: 15, alerts: ids.map((resource) => informerUnhealthy(resource, 'stale')) },
        { alertname: 'ZonescopeDataStale', at: crossing + 4, alerts: [] },
        { alertname: 'ZonescopeDataStale', at: crossing + 5, alerts: [dataStale(age(crossing + 5))] },
      ]);
    });
  }, 60_000);

  it('the target stops answering: the absent-series alert fires once the series are gone for 15 minutes', async () => {
    await withCluster({ scenario: 'eks-demo' }, async (cluster) => {
      const scrape = await cluster.scrape();
      // Scrapes at 0–9 min, then none: Prometheus marks the series stale at the first failed scrape.
      const scrapes = [...hold(scrape, 10), ...Array<null>(30).fill(null)];
      await runPromtool('target-gone', scrapes, [
        { alertname: 'ZonescopeMetricsAbsent', at: 9, alerts: [] },
        { alertname: 'ZonescopeMetricsAbsent', at: 24, alerts: [] },
        { alertname: 'ZonescopeMetricsAbsent', at: 25, alerts: [METRICS_ABSENT] },
      ]);
    });
  }, 60_000);

  it('every alert in the rules file is tested firing and silent', () => {
    const names = ruleAlertNames();
    expect([...covered.keys()].sort()).toEqual(names);
    for (const name of names) expect(covered.get(name), name).toEqual({ fires: true, silent: true });
  });
});

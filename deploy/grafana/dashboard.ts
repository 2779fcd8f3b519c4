/**
 * The Grafana dashboard on zonescope's `/metrics` series (docs/metrics.md), as Grafana's classic
 * dashboard JSON model (schemaVersion 39: Grafana 10 and 11 import it as is). deploy/grafana/zonescope.json
 * is this module's output; `npx tsx deploy/grafana/dashboard.ts` rewrites it after a change here
 * (deploy/grafana/dashboard.test.ts fails while the two differ). The same file is the Grafana
 * sidecar's ConfigMap through deploy/grafana/kustomization.yaml.
 *
 * Every query filters on the template variables `job`, `cluster` (the label a fleet's Prometheus
 * puts on each installation's series; absent on a single installation, so its All matches series
 * without it) and `instance`; the per-Service panels also on `namespace`. The data source is a
 * variable too, so the JSON needs no `__inputs` and works unchanged when provisioned by the sidecar.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import type { Dashboard, DataSourceRef, GridPos, Panel, Target, Variable } from './model';

export const DASHBOARD_FILE = 'deploy/grafana/zonescope.json';

const DS: DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

/** The installation(s) chosen by the variables. */
const T = 'job=~"$job", cluster=~"$cluster", instance=~"$instance"';
/** …and the namespaces. */
const NS = `${T}, namespace=~"$namespace"`;
/** ALERTS series: ZonescopeMetricsAbsent has no instance or cluster label, so an empty one matches too. */
const AL = 'alertname=~"Zonescope.*", job=~"$job|", cluster=~"$cluster|", instance=~"$instance|"';

type TargetOptions = Partial<Pick<Target, 'legendFormat' | 'format' | 'instant'>>;

function target(refId: string, expr: string, options: TargetOptions = {}): Target {
  const instant = options.instant ?? options.format === 'table';
  return { datasource: DS, refId, expr, legendFormat: options.legendFormat ?? '__auto', instant, range: !instant, format: options.format ?? 'time_series' };
}

/** A table query: one instant value per series, its labels as columns. */
const row = (refId: string, expr: string): Target => target(refId, expr, { format: 'table', instant: true });

type Mapping = Record<string, unknown>;
const YES_NO: Mapping = { type: 'value', options: { '0': { text: 'no', color: 'red', index: 0 }, '1': { text: 'yes', color: 'green', index: 1 } } };
const HINTS_STATE: Mapping[] = [
  { type: 'value', options: { '0': { text: 'off', color: 'red', index: 0 }, '1': { text: 'on', color: 'green', index: 1 } } },
  { type: 'range', options: { from: 0.000001, to: 0.999999, result: { text: 'partial (ignored by kube-proxy)', color: 'orange', index: 2 } } },
];
const ALERT_STATE: Mapping = { type: 'value', options: { '1': { text: 'pending', color: 'yellow', index: 0 }, '2': { text: 'firing', color: 'red', index: 1 } } };

const thresholds = (...steps: [number | null, string][]): Mapping => ({ mode: 'absolute', steps: steps.map(([value, color]) => ({ value, color })) });
const override = (name: string, properties: Record<string, unknown>): Mapping => ({
  matcher: { id: 'byName', options: name },
  properties: Object.entries(properties).map(([id, value]) => ({ id, value })),
});

interface PanelSpec {
  readonly type: 'stat' | 'timeseries' | 'table' | 'state-timeline';
  readonly title: string;
  readonly description: string;
  readonly w: number;
  readonly targets: readonly Target[];
  readonly defaults?: Mapping;
  readonly overrides?: readonly Mapping[];
  readonly options?: Mapping;
  readonly transformations?: readonly { id: string; options: Mapping }[];
}

const STAT_OPTIONS: Mapping = {
  reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
  colorMode: 'value',
  graphMode: 'area',
  justifyMode: 'auto',
  orientation: 'auto',
  textMode: 'auto',
  wideLayout: true,
  showPercentChange: false,
};
const TIMESERIES_OPTIONS: Mapping = {
  legend: { displayMode: 'table', placement: 'right', showLegend: true, calcs: ['lastNotNull', 'max'] },
  tooltip: { mode: 'multi', sort: 'desc' },
};
const TABLE_OPTIONS: Mapping = { showHeader: true, cellHeight: 'sm', footer: { show: false, reducer: ['sum'], countRows: false, fields: '' } };
const STATE_TIMELINE_OPTIONS: Mapping = {
  mergeValues: true,
  showValue: 'never',
  alignValue: 'left',
  rowHeight: 0.9,
  legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
  tooltip: { mode: 'single', sort: 'none' },
};
const CUSTOM: Record<PanelSpec['type'], Mapping> = {
  stat: {},
  table: { align: 'auto', cellOptions: { type: 'auto' }, inspect: false },
  timeseries: { drawStyle: 'line', lineInterpolation: 'stepAfter', lineWidth: 1, fillOpacity: 0, showPoints: 'never', spanNulls: false, axisSoftMin: 0, thresholdsStyle: { mode: 'off' } },
  'state-timeline': { lineWidth: 0, fillOpacity: 75, spanNulls: false },
};

/** Hides the columns every table query brings along, renames the others, in this order. */
function organize(hide: readonly string[], rename: Readonly<Record<string, string>>): { id: string; options: Mapping } {
  return {
    id: 'organize',
    options: {
      excludeByName: Object.fromEntries(['Time', 'job', ...hide].map((name) => [name, true])),
      indexByName: Object.fromEntries(Object.keys(rename).map((name, index) => [name, index])),
      renameByName: rename,
    },
  };
}
const MERGE = { id: 'merge', options: {} };
const sortBy = (field: string, desc: boolean) => ({ id: 'sortBy', options: { sort: [{ field, desc }] } });

/** Lays panels out on Grafana's 24-column grid, one band of equal height after another. */
class Layout {
  readonly panels: Panel[] = [];
  private y = 0;
  private id = 1;

  row(title: string): void {
    this.panels.push({ id: this.id++, type: 'row', title, collapsed: false, gridPos: { x: 0, y: this.y, w: 24, h: 1 }, panels: [] } as Panel);
    this.y += 1;
  }

  band(h: number, specs: readonly PanelSpec[]): void {
    let x = 0;
    for (const spec of specs) {
      const gridPos: GridPos = { x, y: this.y, w: spec.w, h };
      x += spec.w;
      const panel = {
        id: this.id++,
        type: spec.type,
        title: spec.title,
        description: spec.description,
        datasource: DS,
        gridPos,
        targets: spec.targets,
        fieldConfig: {
          defaults: { color: { mode: spec.type === 'timeseries' ? 'palette-classic' : 'thresholds' }, custom: CUSTOM[spec.type], mappings: [], thresholds: thresholds([null, 'green']), ...spec.defaults },
          overrides: spec.overrides ?? [],
        },
        options: { ...{ stat: STAT_OPTIONS, timeseries: TIMESERIES_OPTIONS, table: TABLE_OPTIONS, 'state-timeline': STATE_TIMELINE_OPTIONS }[spec.type], ...spec.options },
        ...(spec.transformations !== undefined ? { transformations: spec.transformations } : {}),
      };
      this.panels.push(panel as Panel);
    }
    if (x > 24) throw new Error(`the band ${specs.map((s) => s.title).join(', ')} is ${x} columns wide`);
    this.y += h;
  }
}

function queryVariable(name: string, label: string, query: string, all: boolean, current: string | null): Variable {
  const saved = all ? { allValue: '.*', current: { selected: true, text: ['All'], value: ['$__all'] } } : { current: current === null ? {} : { selected: true, text: current, value: current } };
  return {
    type: 'query',
    name,
    label,
    datasource: DS,
    definition: query,
    query,
    refresh: 2,
    sort: 1,
    regex: '',
    hide: 0,
    options: [],
    includeAll: all,
    multi: all,
    ...saved,
  };
}

function panels(): Panel[] {
  const layout = new Layout();
  const scenario = (name: string) => `sum(zonescope_cross_zone_cost_dollars_per_month{${T}, scenario="${name}"})`;
  const usd = { unit: 'currencyUSD', decimals: 2 };

  layout.row('Cluster');
  layout.band(5, [
    {
      type: 'stat',
      title: 'Cross-zone $/month',
      description: 'What cross-zone traffic costs per month at today\'s routing, after the EndpointSlice controller\'s next sync, and with every Service at its best mechanism (the Overview\'s zone-traffic figures).',
      w: 9,
      targets: [
        target('A', scenario('now'), { legendFormat: 'Now', instant: true }),
        target('B', scenario('after_sync'), { legendFormat: 'After the next sync', instant: true }),
        target('C', scenario('best'), { legendFormat: 'Each Service at its best', instant: true }),
      ],
      defaults: { ...usd, color: { mode: 'fixed', fixedColor: 'text' } },
    },
    {
      type: 'stat',
      title: 'Topology cache',
      description: 'Eligible: the topology cache has CPU ratios, so topology-mode Auto can allocate hints. Ineligible: no Auto Service gets hints (the Cluster table says why).',
      w: 5,
      targets: [target('A', `zonescope_cluster_eligible{${T}}`, { legendFormat: '{{instance}}', instant: true })],
      defaults: {
        mappings: [{ type: 'value', options: { '0': { text: 'Ineligible', color: 'red', index: 0 }, '1': { text: 'Eligible', color: 'green', index: 1 } } }],
      },
      options: { graphMode: 'none' },
    },
    {
      type: 'stat',
      title: 'Services',
      description: 'All Services, those the controller should write hints for, those with hints on every ready endpoint now, and those the Overview lists as needing attention.',
      w: 10,
      targets: [
        target('A', `sum(zonescope_services{${T}})`, { legendFormat: 'Services', instant: true }),
        target('B', `sum(zonescope_services_hints_expected{${T}})`, { legendFormat: 'Hints expected', instant: true }),
        target('C', `sum(zonescope_services_hints_observed{${T}})`, { legendFormat: 'Hints on', instant: true }),
        target('D', `sum(zonescope_services_needing_attention{${T}})`, { legendFormat: 'Need attention', instant: true }),
      ],
      defaults: { color: { mode: 'fixed', fixedColor: 'text' }, decimals: 0 },
      overrides: [override('Need attention', { color: { mode: 'fixed', fixedColor: 'orange' } })],
    },
  ]);
  layout.band(5, [
    {
      type: 'table',
      title: 'Cluster',
      description: 'Per installation: the cluster\'s name, Kubernetes release, platform and kube-proxy mode; whether the topology cache is eligible and, if not, why; the ready nodes that make it ineligible; how old the data may be.',
      w: 18,
      targets: [
        // zonescope_cluster_info's own `cluster` label is the display name; the fleet's label is matched through the target.
        row('A', `zonescope_cluster_info{job=~"$job", instance=~"$instance"} and on (job, instance) zonescope_cluster_synced{${T}}`),
        row('B', `max by (job, instance) (zonescope_cluster_eligible{${T}})`),
        row('C', `max by (job, instance, cause) (zonescope_cluster_insufficient_cause_info{${T}} == 1)`),
        row('D', `max by (job, instance) (zonescope_cluster_ineligible_nodes{${T}})`),
        row('E', `max by (job, instance) (zonescope_sync_age_seconds{${T}})`),
      ],
      overrides: [
        override('Eligible', { mappings: [YES_NO], 'custom.cellOptions': { type: 'color-text' } }),
        override('Ineligible nodes', { decimals: 0 }),
        override('Data age', { unit: 's', 'custom.cellOptions': { type: 'color-text' }, thresholds: thresholds([null, 'green'], [300, 'orange'], [1800, 'red']) }),
      ],
      transformations: [
        MERGE,
        organize(['Value #A', 'Value #C'], {
          cluster: 'Cluster',
          kubernetes_version: 'Kubernetes',
          platform: 'Platform',
          proxy_mode: 'kube-proxy mode',
          'Value #B': 'Eligible',
          cause: 'Why not',
          'Value #D': 'Ineligible nodes',
          'Value #E': 'Data age',
          instance: 'Instance',
        }),
      ],
    },
    {
      type: 'stat',
      title: 'Data age',
      description: 'How old zonescope\'s view may be: the longest time any resource type has not heard from the API server. ZonescopeDataStale fires above 30 minutes.',
      w: 6,
      targets: [target('A', `max(zonescope_sync_age_seconds{${T}})`, { legendFormat: 'Data age', instant: true })],
      defaults: { unit: 's', thresholds: thresholds([null, 'green'], [300, 'orange'], [1800, 'red']) },
      options: { graphMode: 'none' },
    },
  ]);

  layout.row('Cross-zone cost');
  layout.band(8, [
    {
      type: 'timeseries',
      title: 'Cross-zone $/month: now, after the next sync, at best',
      description: 'The three scenarios over time, with the budget (ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS) when one is set. Now above the budget for an hour fires ZonescopeCrossZoneSpendOverBudget; the gap between now and best is what the fixes would save.',
      w: 24,
      targets: [
        target('A', scenario('now'), { legendFormat: 'Now' }),
        target('B', scenario('after_sync'), { legendFormat: 'After the next sync' }),
        target('C', scenario('best'), { legendFormat: 'Each Service at its best' }),
        target('D', `sum(zonescope_cross_zone_budget_dollars_per_month{${T}})`, { legendFormat: 'Budget' }),
      ],
      defaults: usd,
      overrides: [override('Budget', { color: { mode: 'fixed', fixedColor: 'red' }, 'custom.lineStyle': { fill: 'dash', dash: [10, 10] } })],
    },
  ]);
  layout.band(8, [
    {
      type: 'timeseries',
      title: 'Cross-zone $/month by Service (top 10)',
      description: 'The ten Services whose cross-zone traffic costs most now (the Services table\'s $/month).',
      w: 12,
      targets: [target('A', `topk(10, zonescope_service_cross_zone_cost_dollars_per_month{${NS}})`, { legendFormat: '{{namespace}}/{{service}}' })],
      defaults: usd,
    },
    {
      type: 'timeseries',
      title: 'Cross-zone traffic',
      description: 'The same scenarios as traffic that crosses zones, in bytes per second.',
      w: 12,
      targets: [target('A', `sum by (scenario) (zonescope_cross_zone_bytes_per_second{${T}})`, { legendFormat: '{{scenario}}' })],
      defaults: { unit: 'Bps' },
    },
  ]);

  layout.row('Hints by Service');
  layout.band(10, [
    {
      type: 'table',
      title: 'Services: hints and cost',
      description: 'Per Service: its mechanism, whether it asks for hints, whether the controller should write them, the share of ready endpoints that carry one now (kube-proxy ignores partial hints), whether the slices match what the controller should write, the reason, the predicted cross-zone share and its $/month.',
      w: 24,
      targets: [
        row('A', `zonescope_service_info{${NS}}`),
        row('B', `zonescope_service_hints_requested{${NS}}`),
        row('C', `zonescope_service_hints_expected{${NS}}`),
        row('D', `zonescope_service_hints_observed_ratio{${NS}}`),
        row('E', `zonescope_service_hints_in_sync{${NS}}`),
        row('F', `zonescope_service_hints_reason_info{${NS}}`),
        row('G', `zonescope_service_predicted_cross_zone_ratio{${NS}}`),
        row('H', `zonescope_service_cross_zone_cost_dollars_per_month{${NS}}`),
      ],
      overrides: [
        ...['Asks for hints', 'Expected', 'In sync'].map((name) => override(name, { mappings: [YES_NO], 'custom.cellOptions': { type: 'color-text' } })),
        override('Hints now', { mappings: HINTS_STATE, 'custom.cellOptions': { type: 'color-text' } }),
        override('Predicted cross-zone', { unit: 'percentunit', decimals: 0 }),
        override('$/month', usd),
      ],
      transformations: [
        MERGE,
        organize(['Value #A', 'Value #F', 'type', 'traffic_distribution', 'topology_mode'], {
          namespace: 'Namespace',
          service: 'Service',
          mechanism: 'Mechanism',
          'Value #B': 'Asks for hints',
          'Value #C': 'Expected',
          'Value #D': 'Hints now',
          'Value #E': 'In sync',
          reason: 'Reason',
          'Value #G': 'Predicted cross-zone',
          'Value #H': '$/month',
          instance: 'Instance',
        }),
        sortBy('$/month', true),
      ],
    },
  ]);
  layout.band(10, [
    {
      type: 'state-timeline',
      title: 'Hints on Services that ask for them',
      description: 'For each Service that asks for hints: on (every ready endpoint carries a zone hint), partial (kube-proxy ignores them) or off, over time. The table above and the Service\'s History panel in zonescope give the reason.',
      w: 24,
      targets: [target('A', `zonescope_service_hints_observed_ratio{${NS}} and (zonescope_service_hints_requested{${NS}} == 1)`, { legendFormat: '{{namespace}}/{{service}}' })],
      defaults: { mappings: HINTS_STATE, thresholds: thresholds([null, 'red'], [0.000001, 'orange'], [1, 'green']) },
    },
  ]);

  layout.row('Ready endpoints against the minimums (topology-mode Auto)');
  const ready = `sum without (zone) (zonescope_service_ready_endpoints{${NS}})`;
  const minimums = `sum without (zone) (zonescope_service_zone_minimum_endpoints{${NS}})`;
  const margin = thresholds([null, 'red'], [0, 'green']);
  layout.band(8, [
    {
      type: 'table',
      title: 'Ready endpoints against the sum of per-zone minimums',
      description: 'For Services where Auto allocates: ready endpoints, the sum of the zones\' minimums ceil(ready × zone CPU ratio / 1.2), and the margin. Below 0 the controller cannot give every zone its minimum without overloading one, and turns hints off (min-allocation-exceeds-overload-threshold).',
      w: 10,
      targets: [row('A', `${ready} and ${minimums}`), row('B', minimums), row('C', `${ready} - ${minimums}`)],
      overrides: [override('Margin', { thresholds: margin, 'custom.cellOptions': { type: 'color-text' } })],
      transformations: [MERGE, organize([], { namespace: 'Namespace', service: 'Service', 'Value #A': 'Ready', 'Value #B': 'Sum of minimums', 'Value #C': 'Margin', instance: 'Instance' }), sortBy('Margin', false)],
    },
    {
      type: 'timeseries',
      title: 'Margin over the minimums',
      description: 'Ready endpoints minus the sum of the per-zone minimums, per Service, over time: a scale-down (HPA, a rollout, a lost node) that takes it below 0 turns the Service\'s hints off.',
      w: 14,
      targets: [target('A', `${ready} - ${minimums}`, { legendFormat: '{{namespace}}/{{service}}' })],
      defaults: { decimals: 0, thresholds: margin, custom: { ...CUSTOM.timeseries, axisSoftMin: null, thresholdsStyle: { mode: 'line' } } },
    },
  ]);
  layout.band(8, [
    {
      type: 'table',
      title: 'Per zone',
      description: 'Ready endpoints in each zone and the zone\'s minimum, for Services where Auto allocates. A zone below its minimum borrows (is donated) endpoints from the others.',
      w: 24,
      targets: [row('A', `zonescope_service_ready_endpoints{${NS}} and zonescope_service_zone_minimum_endpoints{${NS}}`), row('B', `zonescope_service_zone_minimum_endpoints{${NS}}`)],
      transformations: [MERGE, organize([], { namespace: 'Namespace', service: 'Service', zone: 'Zone', 'Value #A': 'Ready', 'Value #B': 'Minimum', instance: 'Instance' })],
    },
  ]);

  layout.row('Alerts');
  layout.band(8, [
    {
      type: 'state-timeline',
      title: 'zonescope alerts',
      description: 'The alerts of deploy/prometheus/zonescope-rules.yaml that were pending or firing, over time (Prometheus\' ALERTS series: empty while none is). Each one\'s runbook is in docs/alerts.md.',
      w: 24,
      targets: [
        target('A', `max by (alertname, namespace, service, reason, node, cause, instance) (ALERTS{${AL}, alertstate="firing"} * 2 or ALERTS{${AL}, alertstate="pending"})`, {
          legendFormat: '{{alertname}} {{namespace}} {{service}} {{node}} {{cause}}',
        }),
      ],
      defaults: { mappings: [ALERT_STATE], thresholds: thresholds([null, 'yellow'], [2, 'red']) },
    },
  ]);
  layout.band(7, [
    {
      type: 'table',
      title: 'Alerts now',
      description: 'The zonescope alerts pending or firing now, with their labels.',
      w: 24,
      targets: [row('A', `ALERTS{${AL}}`)],
      transformations: [
        organize(['Value #A', 'Value', '__name__'], {
          alertname: 'Alert',
          alertstate: 'State',
          severity: 'Severity',
          namespace: 'Namespace',
          service: 'Service',
          reason: 'Reason',
          node: 'Node',
          cause: 'Cause',
          instance: 'Instance',
        }),
      ],
    },
  ]);
  return layout.panels;
}

/** The dashboard, as Grafana's JSON model. */
export function buildDashboard(): Dashboard {
  const synced = (name: string) => `zonescope_cluster_synced{job=~"$job"${name === 'instance' ? ', cluster=~"$cluster"' : ''}}`;
  return {
    annotations: { list: [] },
    description: 'Kubernetes Topology Aware Routing as zonescope sees it: cross-zone cost, eligibility, hints by Service, ready endpoints against the per-zone minimums, and its alerts. Series: docs/metrics.md.',
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: [],
    panels: panels(),
    refresh: '1m',
    schemaVersion: 39,
    tags: ['zonescope', 'kubernetes', 'topology-aware-routing'],
    templating: {
      list: [
        { type: 'datasource', name: 'datasource', label: 'Data source', query: 'prometheus', refresh: 1, regex: '', hide: 0, current: {}, options: [] },
        queryVariable('job', 'Job', 'label_values(zonescope_build_info, job)', false, 'zonescope'),
        queryVariable('cluster', 'Cluster', `label_values(${synced('cluster')}, cluster)`, true, null),
        queryVariable('instance', 'Instance', `label_values(${synced('instance')}, instance)`, true, null),
        queryVariable('namespace', 'Namespace', `label_values(zonescope_service_info{${T}}, namespace)`, true, null),
      ],
    },
    time: { from: 'now-24h', to: 'now' },
    timepicker: {},
    timezone: 'browser',
    title: 'zonescope: Topology Aware Routing',
    uid: 'zonescope-tar',
    version: 1,
    weekStart: '',
  };
}

/** The JSON text of deploy/grafana/zonescope.json. */
export function renderDashboard(): string {
  return `${JSON.stringify(buildDashboard(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(DASHBOARD_FILE, renderDashboard());
  console.log(`wrote ${DASHBOARD_FILE}`);
}

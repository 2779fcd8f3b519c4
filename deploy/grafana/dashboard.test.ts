/**
 * The Grafana dashboard's JSON (deploy/grafana/zonescope.json) as Grafana reads it: generated from
 * deploy/grafana/dashboard.ts, structurally sound (ids, grid, data source, targets, variables),
 * and built on series zonescope exports. deploy/grafana/dashboard.int.test.ts runs every query
 * against a real Prometheus.
 */
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { buildDashboard, DASHBOARD_FILE, renderDashboard } from './dashboard';
import type { Dashboard, Variable, VariableValue } from './model';
import { dashboardProblems, dataPanels, substitute, variableNames } from './model';

const committed = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
const documented = readFileSync('docs/metrics.md', 'utf8');

describe('the Grafana dashboard', () => {
  it('is the generator\'s output (run `npx tsx deploy/grafana/dashboard.ts` after changing it)', () => {
    expect(readFileSync(DASHBOARD_FILE, 'utf8')).toBe(renderDashboard());
  });

  it('is a Grafana 10/11 dashboard with no structural problem', () => {
    expect(committed.schemaVersion).toBe(39);
    expect(dashboardProblems(committed)).toEqual([]);
    // No `__inputs`: the data source is a variable, which the sidecar's provisioning resolves too.
    expect(committed).not.toHaveProperty('__inputs');
    expect(committed.templating.list.map((v) => v.name)).toEqual(['datasource', 'job', 'cluster', 'instance', 'namespace']);
  });

  it('has the panels the issue asks for, in real Grafana panel types', () => {
    const byTitle = new Map(dataPanels(committed).map((p) => [p.title, p]));
    const exprs = (title: string) => (byTitle.get(title)?.targets ?? []).map((t) => t.expr).join('\n');
    expect(byTitle.get('Cross-zone $/month: now, after the next sync, at best')?.type).toBe('timeseries');
    for (const scenario of ['now', 'after_sync', 'best']) expect(exprs('Cross-zone $/month: now, after the next sync, at best')).toContain(`scenario="${scenario}"`);
    expect(byTitle.get('Topology cache')?.type).toBe('stat');
    expect(exprs('Cluster')).toMatch(/zonescope_cluster_info/);
    expect(byTitle.get('Services: hints and cost')?.type).toBe('table');
    expect(byTitle.get('Hints on Services that ask for them')?.type).toBe('state-timeline');
    expect(exprs('Ready endpoints against the sum of per-zone minimums')).toMatch(/zonescope_service_zone_minimum_endpoints/);
    expect(exprs('zonescope alerts')).toMatch(/ALERTS\{/);
    expect(byTitle.get('zonescope alerts')?.type).toBe('state-timeline');
  });

  it('queries only series docs/metrics.md documents (or Prometheus\' ALERTS)', () => {
    const names = new Set<string>();
    for (const panel of dataPanels(committed)) for (const target of panel.targets ?? []) for (const match of target.expr.matchAll(/\b(zonescope_\w+|ALERTS)\b/g)) names.add(match[1] ?? '');
    for (const variable of committed.templating.list) for (const match of variable.query.matchAll(/\b(zonescope_\w+)\b/g)) names.add(match[1] ?? '');
    expect(names.size).toBeGreaterThan(15);
    for (const name of names) if (name !== 'ALERTS') expect(documented, name).toContain(`\`${name}\``);
  });

  it('every panel and target uses the data source variable, every variable a query uses is defined', () => {
    for (const panel of dataPanels(committed)) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const target of panel.targets ?? []) {
        expect(target.datasource).toEqual(panel.datasource);
        for (const name of variableNames(target.expr)) expect(['job', 'cluster', 'instance', 'namespace'], `${panel.title}: $${name}`).toContain(name);
      }
    }
  });
});

describe('dashboardProblems', () => {
  const base = buildDashboard();
  const firstData = dataPanels(base)[0];
  if (firstData === undefined) throw new Error('no data panel');
  const withPanels = (panels: Dashboard['panels']): Dashboard => ({ ...base, panels });
  const withVariables = (list: Dashboard['templating']['list']): Dashboard => ({ ...base, templating: { list } });

  it('names a repeated id, an overlap, a panel beyond the grid and an unknown type', () => {
    const problems = dashboardProblems(
      withPanels([
        ...base.panels,
        { ...firstData, gridPos: { x: 20, y: 0, w: 10, h: 2 } },
        { ...firstData, id: 998, type: 'graph', gridPos: { x: 0, y: 500, w: 3, h: 2 } },
      ]),
    );
    expect(problems.join('\n')).toMatch(new RegExp(`id ${firstData.id} is used twice`));
    expect(problems.join('\n')).toMatch(/overlaps panel 1 \(Cluster\)/);
    expect(problems.join('\n')).toMatch(/is not inside the 24-column grid/);
    expect(problems.join('\n')).toMatch(/type graph is not a core panel type/);
  });

  it('names a panel on a fixed data source, a target without refId or expr, and an undefined variable', () => {
    const bad = {
      ...firstData,
      id: 999,
      gridPos: { x: 0, y: 500, w: 3, h: 2 },
      datasource: { type: 'prometheus', uid: 'P1809F7CD0C75ACF3' },
      targets: [
        { ...(firstData.targets?.[0] ?? { datasource: firstData.datasource ?? { type: '', uid: '' } }), refId: 'a', expr: '' },
        { datasource: { type: 'prometheus', uid: '${datasource}' }, refId: 'B', expr: 'up{pod=~"$pod"}' },
      ],
    };
    const problems = dashboardProblems(withPanels([...base.panels, bad])).join('\n');
    expect(problems).toMatch(/panel 999 .*datasource must be/);
    expect(problems).toMatch(/refId "a" is not a letter/);
    expect(problems).toMatch(/a: no expr/);
    expect(problems).toMatch(/\$pod is not a variable of the dashboard/);
  });

  it('names a variable that uses one defined below it, an All without allValue, and a missing data source variable', () => {
    const [datasource, job, cluster, ...rest] = base.templating.list as Variable[];
    if (datasource === undefined || job === undefined || cluster === undefined) throw new Error('variables missing');
    expect(dashboardProblems(withVariables([datasource, cluster, job, ...rest])).join('\n')).toMatch(/variable cluster uses \$job, which is not defined above it/);
    const { allValue: _dropped, ...noAllValue } = cluster;
    expect(dashboardProblems(withVariables([datasource, job, noAllValue, ...rest])).join('\n')).toMatch(/includes All without an allValue/);
    expect(dashboardProblems(withVariables([job, cluster, ...rest]))).toContain('no data source variable of type prometheus');
  });
});

describe('substitute', () => {
  const variables = buildDashboard().templating.list;
  const values = new Map<string, VariableValue>([
    ['job', { values: ['zonescope'] }],
    ['cluster', { all: true }],
    ['instance', { values: ['10.0.3.17:3000', '10.0.4.2:3000'] }],
    ['namespace', { values: ['shop'] }],
  ]);

  it('sets a value regex-escaped, several as an alternation, All as the allValue', () => {
    expect(substitute('x{job=~"$job", cluster=~"$cluster", instance=~"${instance}", namespace=~"[[namespace]]"}', variables, values, {})).toBe(
      'x{job=~"zonescope", cluster=~".*", instance=~"(10\\\\.0\\\\.3\\\\.17:3000|10\\\\.0\\\\.4\\\\.2:3000)", namespace=~"shop"}',
    );
    expect(substitute('rate(x[$__rate_interval])', variables, values, { __rate_interval: '1m' })).toBe('rate(x[1m])');
  });

  it('refuses a variable it has no value for', () => {
    expect(() => substitute('x{pod=~"$pod"}', variables, values, {})).toThrow(/\$pod in x\{pod=~"\$pod"\} has no value/);
  });
});

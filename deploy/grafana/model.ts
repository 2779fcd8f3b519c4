/**
 * The parts of Grafana's classic dashboard JSON model (schemaVersion 39, Grafana 10/11) that the
 * zonescope dashboard uses, and what the tests need to read it: every panel's targets, the
 * template variables a query names, Grafana's substitution of those variables into PromQL, and a
 * list of structural problems (one sentence each) for a dashboard that Grafana would refuse or
 * render wrongly. Model: https://grafana.com/docs/grafana/latest/dashboards/build-dashboards/view-dashboard-json-model/
 */

export interface DataSourceRef {
  readonly type: string;
  readonly uid: string;
}

export interface GridPos {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface Target {
  readonly refId: string;
  readonly expr: string;
  readonly legendFormat?: string;
  readonly instant?: boolean;
  readonly range?: boolean;
  readonly format?: 'time_series' | 'table';
  readonly datasource: DataSourceRef;
}

export interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly description?: string;
  readonly gridPos: GridPos;
  readonly datasource?: DataSourceRef;
  readonly targets?: readonly Target[];
  readonly transformations?: readonly { readonly id: string; readonly options: Readonly<Record<string, unknown>> }[];
  readonly fieldConfig?: unknown;
  readonly options?: unknown;
  readonly collapsed?: boolean;
  readonly panels?: readonly Panel[];
}

export interface Variable {
  readonly type: 'datasource' | 'query' | 'custom' | 'constant' | 'interval' | 'textbox';
  readonly name: string;
  readonly label?: string;
  readonly query: string;
  readonly definition?: string;
  readonly datasource?: DataSourceRef;
  readonly includeAll?: boolean;
  readonly allValue?: string;
  readonly multi?: boolean;
  /** The value saved with the dashboard (`{}`: none, Grafana picks the first option). */
  readonly current?: { readonly selected?: boolean; readonly text?: string | string[]; readonly value?: string | string[] };
  /** 1: on dashboard load, 2: on time range change. */
  readonly refresh?: 1 | 2;
  /** 1: alphabetical. */
  readonly sort?: number;
  readonly regex?: string;
  /** 0: shown with its label. */
  readonly hide?: 0 | 1 | 2;
  readonly options?: readonly unknown[];
}

export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly schemaVersion: number;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly Variable[] };
  readonly [key: string]: unknown;
}

/** Panel types of Grafana's core that this dashboard may use. */
export const PANEL_TYPES = new Set(['row', 'stat', 'timeseries', 'table', 'state-timeline', 'text', 'bargauge']);

/** Variables Grafana itself provides (https://grafana.com/docs/grafana/latest/dashboards/variables/add-template-variables/#global-variables). */
export const GLOBAL_VARIABLES = new Set(['__interval', '__interval_ms', '__range', '__range_s', '__range_ms', '__rate_interval', '__rate_interval_ms', '__from', '__to', '__dashboard', '__org', '__user']);

/** Every panel that is not a row, in order, including those inside collapsed rows. */
export function dataPanels(dashboard: Dashboard): Panel[] {
  return dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]).filter((panel) => panel.type !== 'row');
}

/** The names of the variables `text` refers to: `$name`, `${name}`, `${name:format}` and `[[name]]`. */
export function variableNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(/\$(\w+)|\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]/g)) names.add(match[1] ?? match[2] ?? match[3] ?? '');
  return [...names];
}

/** What a variable is set to: one value, several, or All. */
export type VariableValue = { readonly all: true } | { readonly values: readonly string[] };

/** Escapes a value as Grafana's Prometheus data source does for a regex matcher (`=~"$var"`). */
function regexEscape(value: string): string {
  return value.replace(/[\\^$*+?.()|{}[\]]/g, '\\\\$&');
}

/**
 * `expr` with the dashboard's variables set as Grafana sets them for a Prometheus query: a single
 * value regex-escaped, several as `(a|b)`, All as the variable's `allValue` (or every value), and
 * the interval variables as given.
 * @throws Error for a variable that is neither the dashboard's nor in `globals`.
 */
export function substitute(
  expr: string,
  variables: readonly Variable[],
  values: ReadonlyMap<string, VariableValue>,
  globals: Readonly<Record<string, string>>,
): string {
  return expr.replace(/\$(\w+)|\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]/g, (whole, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c ?? '';
    const global = globals[name];
    if (global !== undefined) return global;
    const variable = variables.find((v) => v.name === name);
    const value = values.get(name);
    if (variable === undefined || value === undefined) throw new Error(`${whole} in ${expr} has no value`);
    if ('all' in value) return variable.allValue ?? '.*';
    if (value.values.length === 1) return regexEscape(value.values[0] ?? '');
    return `(${value.values.map(regexEscape).join('|')})`;
  });
}

function overlaps(a: GridPos, b: GridPos): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** What is wrong with `dashboard` as Grafana reads it, one sentence per problem (empty when nothing). */
export function dashboardProblems(dashboard: Dashboard): string[] {
  const problems: string[] = [];
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(dashboard.uid)) problems.push(`uid ${JSON.stringify(dashboard.uid)} must be 1–40 letters, digits, - or _`);
  if (dashboard.title.trim() === '') problems.push('the dashboard has no title');
  if (!Number.isInteger(dashboard.schemaVersion) || dashboard.schemaVersion < 36) problems.push(`schemaVersion ${dashboard.schemaVersion} is older than Grafana 9's`);

  const variables = dashboard.templating.list;
  const datasourceVariable = variables.find((v) => v.type === 'datasource');
  if (datasourceVariable === undefined || datasourceVariable.query !== 'prometheus') problems.push('no data source variable of type prometheus');
  const dsRef = `\${${datasourceVariable?.name ?? 'datasource'}}`;
  const goodRef = (ref: DataSourceRef | undefined): boolean => ref?.type === 'prometheus' && ref.uid === dsRef;
  const seenVariables = new Set<string>();
  for (const variable of variables) {
    if (seenVariables.has(variable.name)) problems.push(`variable ${variable.name} is defined twice`);
    if (variable.type === 'query') {
      if (!goodRef(variable.datasource)) problems.push(`variable ${variable.name} does not query the data source variable`);
      if (variable.definition !== undefined && variable.definition !== variable.query) problems.push(`variable ${variable.name}: definition and query differ`);
      // A variable's query may only use variables above it (Grafana resolves them in order).
      for (const name of variableNames(variable.query)) if (!seenVariables.has(name)) problems.push(`variable ${variable.name} uses $${name}, which is not defined above it`);
    }
    if (variable.includeAll === true && variable.allValue === undefined) problems.push(`variable ${variable.name} includes All without an allValue (Grafana would list every value in the query)`);
    seenVariables.add(variable.name);
  }

  const ids = new Set<number>();
  const placed: { title: string; pos: GridPos }[] = [];
  for (const panel of dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])])) {
    const name = `panel ${panel.id} (${panel.title})`;
    if (!Number.isInteger(panel.id) || panel.id < 1) problems.push(`${name}: id must be a whole number ≥ 1`);
    if (ids.has(panel.id)) problems.push(`${name}: id ${panel.id} is used twice`);
    ids.add(panel.id);
    if (!PANEL_TYPES.has(panel.type)) problems.push(`${name}: type ${panel.type} is not a core panel type`);
    if (panel.title.trim() === '') problems.push(`${name}: no title`);
    const { x, y, w, h } = panel.gridPos;
    if (![x, y, w, h].every(Number.isInteger) || x < 0 || y < 0 || w < 1 || h < 1 || x + w > 24) problems.push(`${name}: gridPos ${JSON.stringify(panel.gridPos)} is not inside the 24-column grid`);
    const clash = placed.find((other) => overlaps(other.pos, panel.gridPos));
    if (clash !== undefined) problems.push(`${name} overlaps ${clash.title}`);
    placed.push({ title: name, pos: panel.gridPos });
    if (panel.type === 'row') {
      if ((panel.targets ?? []).length > 0) problems.push(`${name}: a row has no queries`);
      continue;
    }
    if (!goodRef(panel.datasource)) problems.push(`${name}: datasource must be {type: prometheus, uid: ${dsRef}}`);
    const targets = panel.targets ?? [];
    if (targets.length === 0) problems.push(`${name}: no targets`);
    const refIds = new Set<string>();
    for (const target of targets) {
      if (!/^[A-Z]$/.test(target.refId)) problems.push(`${name}: refId ${JSON.stringify(target.refId)} is not a letter A–Z`);
      if (refIds.has(target.refId)) problems.push(`${name}: refId ${target.refId} is used twice`);
      refIds.add(target.refId);
      if (typeof target.expr !== 'string' || target.expr.trim() === '') problems.push(`${name} ${target.refId}: no expr`);
      if (!goodRef(target.datasource)) problems.push(`${name} ${target.refId}: datasource must be the data source variable`);
      for (const variable of variableNames(target.expr)) {
        if (!seenVariables.has(variable) && !GLOBAL_VARIABLES.has(variable)) problems.push(`${name} ${target.refId}: $${variable} is not a variable of the dashboard`);
      }
    }
    // Renamed or hidden `Value #X` columns must belong to a query of the panel.
    for (const transformation of panel.transformations ?? []) {
      const text = JSON.stringify(transformation.options);
      for (const match of text.matchAll(/Value #([A-Z])/g)) if (!refIds.has(match[1] ?? '')) problems.push(`${name}: transformation ${transformation.id} names Value #${match[1] ?? ''}, but the panel has no query ${match[1] ?? ''}`);
    }
  }
  return problems;
}

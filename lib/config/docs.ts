/**
 * docs/configuration.md, written from the variable table (./variables.ts): `npm run docs:config`
 * (scripts/config-docs.ts) writes it, and a unit test fails when the checked-in file differs.
 * Pure: the text is a function of the table alone.
 */
import type { Group, Reader, Variable } from './variables';
import { GROUPS, VARIABLE_NAMES, VARIABLES } from './variables';

/** Where the file lives, from the repository's root. */
export const CONFIGURATION_DOC = 'docs/configuration.md';

/** The parts of zonescope that read variables, as the page explains them. */
const READERS: Readonly<Record<Reader, string>> = {
  dashboard: 'the dashboard server however it is started (`npm start`, `npm run dev`, `npm run demo`, the container image\'s `server.js`, `next start`)',
  CLI: '`npm run analyze`',
  'npm start': 'the start script (scripts/start.mjs), before it loads the server',
  'npm run demo': 'the demo script (scripts/demo.ts), before it starts anything',
  build: '`next build` (next.config.js)',
  'e2e suite': '`npm run test:e2e` and its Playwright configuration',
  benchmark: '`npm run bench`',
  'image test': '`npm run image:test` (scripts/image)',
};

/** Variables other tools read, which zonescope neither defines nor checks. */
const ELSEWHERE: readonly (readonly [string, string])[] = [
  ['HOSTNAME', "The address Next.js's standalone server binds; `npm start` and `npm run demo` set it from `ZONESCOPE_HOST`, which is what zonescope reads (many shells set `HOSTNAME` to the machine's name)."],
  ['NODE_ENV, NEXT_RUNTIME', 'Set by Next.js.'],
  ['PROMETHEUS_BIN', 'The Prometheus binary `npm run demo` and the tests start (else `prometheus` on `PATH`, else /usr/bin/prometheus).'],
  ['PROMTOOL_BIN', 'The promtool binary the alert-rule tests and the benchmark run (default /usr/bin/promtool).'],
  ['CHROMIUM_PATH', 'The chromium the end-to-end suite and the benchmark drive (default /usr/bin/chromium).'],
  ['KUBECTL', 'The kubectl some simulator tests run (default /usr/bin/kubectl).'],
];

/** A table cell: pipes escaped, line breaks flattened. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** What one variable's values may be (flags as the page's introduction says). */
function accepts(variable: Variable<unknown>): string {
  const { type, accepts: what } = variable.kind;
  if (type === 'boolean') return 'flag (on or off)';
  return what === 'any text' ? 'text' : what;
}

function row(name: string, variable: Variable<unknown>): string {
  const cells = [`\`${name}\``, accepts(variable), variable.default, variable.readers.join(', '), variable.description];
  return `| ${cells.map(cell).join(' | ')} |`;
}

function section(group: Group): string[] {
  const names = VARIABLE_NAMES.filter((name) => VARIABLES[name].group === group);
  const { title, intro } = GROUPS[group];
  return [
    `## ${title}`,
    '',
    intro,
    '',
    '| Variable | Value | Default | Read by | What it does |',
    '|---|---|---|---|---|',
    ...names.map((name) => row(name, VARIABLES[name] as Variable<unknown>)),
    '',
  ];
}

/** The whole page, as `npm run docs:config` writes it. */
export function configurationDoc(): string {
  const groups = Object.keys(GROUPS) as Group[];
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from lib/config/variables.ts by `npm run docs:config`; edit the table there, not this file. A unit test fails when they differ. -->',
    '',
    'zonescope is configured with environment variables, all listed here. Each part reads them once, when it starts, and checks every one:',
    'a value it cannot use stops the start with a message on stderr naming the variable and what it accepts, and a non-zero exit',
    "(2 for the dashboard server, `npm start`, `npm run demo` and `npm run analyze`) — never a page error later. Besides that, only what",
    "can't be known from the value alone is reported while running: a token, CA or volumes file that cannot be read, or a",
    '`ZONESCOPE_PROMETHEUS_BY_CONTEXT` entry that does not fit its cluster (each cluster\'s traffic status says why).',
    '',
    'How values are read:',
    '',
    '- **Blank is unset.** An empty or all-space value counts as not set, and the default applies.',
    '- **Flags** (type boolean) are on with `1`, `true`, `yes` or `on` and off with `0`, `false`, `no` or `off`, in any case; anything else is refused.',
    '- **Numbers** must be within the range given; text around a number is refused, surrounding spaces are not.',
    '- **Lists** are comma-separated; spaces around entries and empty entries are ignored.',
    '- **URLs and credentials**: a message never quotes a URL (it may carry `user:password@`), a token or the JSON of `ZONESCOPE_PROMETHEUS_BY_CONTEXT`.',
    '- **Unknown `ZONESCOPE_*` names** are not refused, but each start warns of them (with the closest known name): a misspelt variable is otherwise silently ignored.',
    '',
    'Who reads them:',
    '',
    ...(Object.keys(READERS) as Reader[]).map((reader) => `- **${reader}**: ${READERS[reader]}.`),
    '',
    ...groups.map((group) => `- [${GROUPS[group].title}](#${anchor(GROUPS[group].title)})`),
    '- [Read elsewhere](#read-elsewhere)',
    '',
    ...groups.flatMap(section),
    '## Read elsewhere',
    '',
    'Variables that other tools read, or that only the development scripts and tests look at; zonescope neither defines nor checks them.',
    '',
    '| Variable | What reads it |',
    '|---|---|',
    ...ELSEWHERE.map(([name, what]) => `| ${name.split(', ').map((n) => `\`${n}\``).join(', ')} | ${cell(what)} |`),
    '',
  ];
  return lines.join('\n');
}

/** GitHub's anchor of a heading. */
function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

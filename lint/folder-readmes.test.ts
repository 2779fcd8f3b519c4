/**
 * Each lib layer folder (lib/topology, lib/shared, lib/config, lib/k8s, …: `LIB_LAYERS`) has a
 * README.md that names every file it holds, says its job, and says whether it is server-only; so
 * do cli/, sim/ and scripts/bench/ (no server-only column there: none of their files is).
 *
 * Checked, for every folder of `LIB_LAYERS` that exists:
 * - every non-test `.ts`/`.tsx` file under the folder (recursively; `*.test.ts(x)` and `_testing/`
 *   left out, test-support files included) is named in the README;
 * - every file the README names exists;
 * - the README's server-only marker agrees with the file (server-only = it has
 *   `import 'server-only'`).
 *
 * How a README names a file: in a Markdown table, the first cell holds the file in backticks
 * (several files may share a row); or a list item starts with it (`- \`x.ts\` …`). A name without
 * a `/` is relative to the folder named by the nearest heading that starts with one (`## model/ …`,
 * as in lib/topology/README.md), else to the lib folder; a name with a `/` is relative to the lib
 * folder. The marker: a table column headed `server-only` holding `yes` or `no` (also `✓`, `—`,
 * empty); without such a column, the row or item is server-only when its text says "server-only"
 * (and not "not server-only").
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIB_LAYERS } from './project-layers.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');

/** One file a README names, and what it says of it. */
export interface NamedFile {
  /** Path relative to the lib folder, `/`-separated. */
  readonly file: string;
  /** What the README says: server-only or not; `null` when the marker cannot be read. */
  readonly serverOnly: boolean | null;
  /** 1-based line of the README. */
  readonly line: number;
  /** The marker's text when it cannot be read. */
  readonly badMarker?: string;
}

const FILE_NAME = /^[\w.@()[\]-]+(?:\/[\w.@()[\]-]+)*\.tsx?$/;
const YES = new Set(['yes', 'y', '✓', '✔', 'x', 'server-only']);
const NO = new Set(['no', 'n', '', '—', '–', '-']);

function cellsOf(row: string): string[] {
  const trimmed = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '').filter((name) => FILE_NAME.test(name));
}

function saysServerOnly(text: string): boolean {
  return /server-only/i.test(text) && !/\bnot\s+server-only/i.test(text);
}

/** The files a README names, with their markers (see the header comment for the format). */
export function filesNamedIn(readme: string): NamedFile[] {
  const named: NamedFile[] = [];
  const lines = readme.split('\n');
  let prefix = '';
  let fence = false;
  let table: { serverOnlyColumn: number } | null = null;
  const resolve = (name: string): string => (name.includes('/') ? name : `${prefix}${name}`).replace(/^\.\//, '');

  lines.forEach((raw, index) => {
    const line = index + 1;
    if (/^\s{0,3}(```|~~~)/.test(raw)) {
      fence = !fence;
      table = null;
      return;
    }
    if (fence) return;

    const heading = /^\s{0,3}(#{1,6})\s+(.*)$/.exec(raw);
    if (heading) {
      table = null;
      const folder = /^`?([\w.-]+(?:\/[\w.-]+)*)\/`?(?:\s|$)/.exec(heading[2] ?? '');
      prefix = (heading[1] ?? '').length > 1 && folder ? `${folder[1]}/` : '';
      return;
    }

    if (/^\s*\|/.test(raw)) {
      const next = lines[index + 1] ?? '';
      if (table === null && /^\s*\|?\s*:?-{3,}/.test(next)) {
        const header = cellsOf(raw).map((cell) => cell.replace(/`/g, '').toLowerCase());
        table = { serverOnlyColumn: header.indexOf('server-only') };
        return;
      }
      if (table === null || /^\s*\|?\s*:?-{3,}/.test(raw)) return;
      const cells = cellsOf(raw);
      const files = backticked(cells[0] ?? '');
      if (files.length === 0) return;
      let serverOnly: boolean | null;
      let badMarker: string | undefined;
      if (table.serverOnlyColumn >= 0) {
        const marker = (cells[table.serverOnlyColumn] ?? '').replace(/[`*]/g, '').trim().toLowerCase();
        serverOnly = YES.has(marker) ? true : NO.has(marker) ? false : null;
        if (serverOnly === null) badMarker = marker;
      } else {
        serverOnly = saysServerOnly(cells.slice(1).join(' '));
      }
      for (const file of files) named.push({ file: resolve(file), serverOnly, line, ...(badMarker !== undefined ? { badMarker } : {}) });
      return;
    }
    table = null;

    const item = /^\s*[-*+]\s+`([^`]+)`(.*)$/.exec(raw);
    if (item && FILE_NAME.test(item[1] ?? '')) named.push({ file: resolve(item[1] ?? ''), serverOnly: saysServerOnly(item[2] ?? ''), line });
  });
  return named;
}

/** The non-test source files of a folder, relative to it, `/`-separated. */
export function sourceFilesOf(folder: string): string[] {
  const out: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(folder, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '_testing' && entry.name !== 'node_modules') walk(child);
      } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
        out.push(child);
      }
    }
  };
  walk('');
  return out.sort();
}

/** Whether a source text marks its module server-only. */
export function isServerOnly(source: string): boolean {
  return /^\s*import\s+['"]server-only['"]\s*;?\s*$/m.test(source);
}

/** What is wrong with a folder's README, as sentences naming the file. */
export function readmeProblems(
  folderName: string,
  readme: string | null,
  files: readonly string[],
  serverOnlyOf: (file: string) => boolean,
): string[] {
  const where = `${folderName}/README.md`;
  if (readme === null) return files.length === 0 ? [] : [`${where} is missing: it must name the folder's ${files.length} files`];
  const problems: string[] = [];
  const named = filesNamedIn(readme);
  const namedFiles = new Set(named.map((n) => n.file));
  const existing = new Set(files);
  for (const file of files) if (!namedFiles.has(file)) problems.push(`${folderName}/${file} is not named in ${where}`);
  for (const entry of named) {
    // A README may also describe the folder's tests; only source files are held to it.
    if (/\.test\.tsx?$/.test(entry.file)) continue;
    if (!existing.has(entry.file)) {
      problems.push(`${where}:${entry.line} names ${entry.file}, which is not a source file of ${folderName}/`);
      continue;
    }
    const actual = serverOnlyOf(entry.file);
    if (entry.serverOnly === null) problems.push(`${where}:${entry.line}: the server-only marker of ${entry.file} is "${entry.badMarker ?? ''}"; write yes or no`);
    else if (entry.serverOnly !== actual) {
      problems.push(`${where}:${entry.line} says ${entry.file} is ${entry.serverOnly ? '' : 'not '}server-only, but it ${actual ? 'imports' : 'does not import'} 'server-only'`);
    }
  }
  return problems;
}

const layerFolders = LIB_LAYERS.filter((layer) => existsSync(path.join(ROOT, 'lib', layer)));

describe('lib folder READMEs', () => {
  it('covers the lib layers that exist', () => {
    expect(layerFolders).toEqual(expect.arrayContaining(['topology', 'k8s', 'server', 'views']));
  });

  it.each(layerFolders)('lib/%s/README.md names every file, and only existing ones, with the right server-only marker', (layer) => {
    const folder = path.join(ROOT, 'lib', layer);
    const readmePath = path.join(folder, 'README.md');
    const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : null;
    const problems = readmeProblems(`lib/${layer}`, readme, sourceFilesOf(folder), (file) => isServerOnly(readFileSync(path.join(folder, file), 'utf8')));
    expect(problems).toEqual([]);
  });
});

/** Folders outside lib/ that keep a README naming every file: the CLI, the simulator, the benchmark. */
const OTHER_FOLDERS = ['cli', 'sim', 'scripts/bench'] as const;

describe('READMEs of the CLI, the simulator and the benchmark', () => {
  it.each(OTHER_FOLDERS)('%s/README.md names every file, and only existing ones', (name) => {
    const folder = path.join(ROOT, name);
    const readmePath = path.join(folder, 'README.md');
    const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : null;
    const problems = readmeProblems(name, readme, sourceFilesOf(folder), (file) => isServerOnly(readFileSync(path.join(folder, file), 'utf8')));
    expect(problems).toEqual([]);
  });
});

describe('the README check', () => {
  const readme = [
    '# lib/x',
    '',
    '| file | server-only | job |',
    '|---|---|---|',
    '| `a.ts` | no | a |',
    '| `b.ts` | yes | b |',
    '| `gone.ts` | no | removed meanwhile |',
    '| `sub/c.ts` | maybe | c |',
    '',
    '## model/ — a sub-folder',
    '',
    '| file | what |',
    '|---|---|',
    '| `d.ts`, `e.tsx` | d and e |',
    '',
    '- `f.ts` server-only: f',
    '',
    '```',
    '| `in-a-fence.ts` | yes | not read |',
    '```',
  ].join('\n');

  it('reads tables, section folders and list items', () => {
    expect(filesNamedIn(readme).map((n) => [n.file, n.serverOnly])).toEqual([
      ['a.ts', false],
      ['b.ts', true],
      ['gone.ts', false],
      ['sub/c.ts', null],
      ['model/d.ts', false],
      ['model/e.tsx', false],
      ['model/f.ts', true],
    ]);
  });

  it('reports a file left out, a file that is gone, and markers that are wrong or unreadable', () => {
    const files = ['a.ts', 'b.ts', 'sub/c.ts', 'model/d.ts', 'model/e.tsx', 'model/f.ts', 'new.ts'];
    const serverOnly = new Set(['a.ts', 'model/f.ts']);
    expect(readmeProblems('lib/x', readme, files, (file) => serverOnly.has(file))).toEqual([
      'lib/x/new.ts is not named in lib/x/README.md',
      "lib/x/README.md:5 says a.ts is not server-only, but it imports 'server-only'",
      "lib/x/README.md:6 says b.ts is server-only, but it does not import 'server-only'",
      'lib/x/README.md:7 names gone.ts, which is not a source file of lib/x/',
      'lib/x/README.md:8: the server-only marker of sub/c.ts is "maybe"; write yes or no',
    ]);
  });

  it('requires a README once the folder has files', () => {
    expect(readmeProblems('lib/x', null, ['a.ts'], () => false)).toEqual(['lib/x/README.md is missing: it must name the folder\'s 1 files']);
    expect(readmeProblems('lib/x', null, [], () => false)).toEqual([]);
  });

  it('recognises the server-only import', () => {
    expect(isServerOnly("/** doc */\nimport 'server-only';\nexport const x = 1;\n")).toBe(true);
    expect(isServerOnly('import "server-only"\n')).toBe(true);
    expect(isServerOnly("// not: import 'server-only';\nexport const x = 1;\n")).toBe(false);
  });
});

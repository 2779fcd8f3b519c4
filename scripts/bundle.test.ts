import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

import { cachedBundle, PROJECT_ROOT } from './bundle.mjs';

// Entries must be inside the project (bundleEntry resolves them from it); node_modules/.cache is where tools keep such files.
const base = path.join(PROJECT_ROOT, 'node_modules', '.cache');
mkdirSync(base, { recursive: true });
const dir = mkdtempSync(path.join(base, 'zonescope-bundle-test-'));
const relative = path.relative(PROJECT_ROOT, dir);
const cache = path.join(dir, 'cache');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a source file with a modification time `secondsAgo` in the past (negative: in the future). */
function source(name: string, text: string, secondsAgo: number): void {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  const when = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, when, when);
}

async function valueOf(file: string): Promise<string> {
  return ((await import(`${pathToFileURL(file).href}?v=${Date.now()}`)) as { readonly value: string }).value;
}

describe('cachedBundle (npm run analyze keeps its bundle between runs)', () => {
  it('builds once, reuses the bundle while its files are unchanged, and builds again when one changes', async () => {
    source('entry.ts', "import { word } from './dep';\nexport const value: string = `dep says ${word}`;\n", 120);
    source('dep.ts', "export const word = 'one';\n", 120);
    const entry = `${relative}/entry.ts`;

    const first = await cachedBundle(entry, cache);
    expect(first.reused).toBe(false);
    expect(await valueOf(first.file)).toBe('dep says one');

    const second = await cachedBundle(entry, cache);
    expect(second).toEqual({ file: first.file, reused: true });

    // An import of the entry changes: its size and time differ from what the manifest holds.
    source('dep.ts', "export const word = 'three';\n", 60);
    const third = await cachedBundle(entry, cache);
    expect(third.reused).toBe(false);
    expect(third.file).not.toBe(first.file);
    expect(await valueOf(third.file)).toBe('dep says three');
    expect((await cachedBundle(entry, cache)).reused).toBe(true);

    // Same size, another time (a checkout rewrote it): built again.
    source('dep.ts', "export const word = 'thrEE';\n", 30);
    const fourth = await cachedBundle(entry, cache);
    expect(fourth.reused).toBe(false);
    expect(await valueOf(fourth.file)).toBe('dep says thrEE');
  });

  it('does not keep a bundle one of whose files may have changed while it was built', async () => {
    source('entry.ts', "export const value: string = 'edited during the build';\n", -60);
    const entry = `${relative}/entry.ts`;
    const first = await cachedBundle(entry, path.join(dir, 'cache-2'));
    expect(await valueOf(first.file)).toBe('edited during the build');
    const again = await cachedBundle(entry, path.join(dir, 'cache-2'));
    expect(again.reused).toBe(false);
    expect(readdirSync(path.join(dir, 'cache-2')).filter((name) => name.endsWith('.json'))).toEqual([]);
  });
});

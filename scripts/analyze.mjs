/**
 * `npm run analyze -- …`: `cli/analyze.ts` bundled by esbuild (as the package's `zonescope analyze`
 * is, scripts/pack/build.ts) and run in this process, instead of compiled module by module by tsx.
 *
 * Why: tsx compiles with esbuild's `keepNames`, which wraps every function the engine creates per
 * Service in a `__name()` call the shipped builds do not have, and compiles ~1,200 modules one by
 * one at start. Against the realistic-L simulator (9,913 Services, two runs each, interleaved):
 * start-up to the first request 1.23–1.30 s under tsx, 1.07–1.08 s here (the bundle included);
 * the analysis 3.17–3.36 s against 2.96–3.09 s; the sync and the writing the same. The in-process
 * pass alone (scripts/bench/analyze-all.ts) is ~20 % faster bundled. The output is byte-identical.
 *
 * The bundle is cached in `node_modules/.cache/zonescope/` and built again only when a file it was
 * built from changed (scripts/bundle.mjs `cachedBundle`): building it takes ~0.75 s of every run
 * otherwise. Where that folder cannot be written, the bundle goes to a fresh temporary folder,
 * removed once the module is loaded. Plain JavaScript so that Node runs it as it is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { bundleEntry, cachedBundle, PROJECT_ROOT } from './bundle.mjs';

const ENTRY = 'cli/analyze.ts';
const OPTIONS = /** @type {const} */ ({ sourcemap: 'inline', logLevel: 'silent' });

/** @param {unknown} error */
function cannotBuild(error) {
  process.stderr.write(`analyze: could not build the command from ${ENTRY}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(3);
}

/** @returns {Promise<string | null>} the cached bundle, `null` when the cache folder cannot be written */
async function fromCache() {
  try {
    return (await cachedBundle(ENTRY, path.join(PROJECT_ROOT, 'node_modules', '.cache', 'zonescope'), OPTIONS)).file;
  } catch (error) {
    if (error && typeof error === 'object' && 'code' in error && ['EACCES', 'EPERM', 'EROFS'].includes(String(error.code))) return null;
    return cannotBuild(error);
  }
}

const cached = await fromCache();
if (cached !== null) {
  await import(pathToFileURL(cached).href);
} else {
  const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-analyze-'));
  const outfile = path.join(dir, 'analyze.mjs');
  try {
    await bundleEntry(ENTRY, outfile, OPTIONS);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    cannotBuild(error);
  }
  try {
    await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

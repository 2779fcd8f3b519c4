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
 * The bundle goes to a fresh temporary folder, which is removed once the module is loaded (it is
 * then in memory). Plain JavaScript so that Node runs it as it is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { bundleEntry } from './bundle.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-analyze-'));
const outfile = path.join(dir, 'analyze.mjs');
try {
  await bundleEntry('cli/analyze.ts', outfile, { sourcemap: 'inline', logLevel: 'silent' });
} catch (error) {
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`analyze: could not build the command from cli/analyze.ts: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(3);
}
try {
  await import(pathToFileURL(outfile).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

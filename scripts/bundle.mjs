/**
 * The one esbuild recipe for zonescope's commands (types in bundle.d.mts): a TypeScript entry of
 * the project bundled with its dependencies into one ES module for Node 20+. Used by the package's
 * `dist/` (scripts/pack/build.ts), by `npm run analyze` (scripts/analyze.mjs) and by the bench's
 * in-process analysis timing, so all three run the same code the same way. Plain JavaScript so
 * that scripts/analyze.mjs can import it without tsx.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { build, version as esbuildVersion } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Bundles `entry` (relative to the project) into `outfile`.
 * @param {string} entry
 * @param {string} outfile
 * @param {{ sourcemap?: boolean | 'inline'; logLevel?: 'silent' | 'warning' }} [options]
 * @returns {Promise<string[]>} the files the bundle was built from, relative to the project
 */
export async function bundleEntry(entry, outfile, options = {}) {
  const result = await build({
    entryPoints: [path.join(ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: options.logLevel ?? 'warning',
    sourcemap: options.sourcemap ?? false,
    // tr46 and whatwg-url require('punycode'): the npm package, not Node's deprecated module (Node 22+
    // warns on stderr when code outside node_modules loads it, which a bundle is).
    alias: { punycode: 'punycode/' },
    // CommonJS dependencies inside an ES module bundle call require().
    banner: { js: "import { createRequire as zonescopeCreateRequire } from 'node:module'; const require = zonescopeCreateRequire(import.meta.url);" },
    absWorkingDir: ROOT,
    metafile: true,
  });
  // Paths relative to the project, as esbuild writes them with absWorkingDir.
  return Object.keys(result.metafile.inputs);
}

/** The project folder (where package.json is). */
export const PROJECT_ROOT = ROOT;

/**
 * What a cached bundle depends on besides its inputs: the recipe above (bump when it changes),
 * esbuild's version, and the project files that steer module resolution.
 */
const RECIPE = 1;
const RESOLUTION_FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];

/**
 * @param {string} file relative to the project
 * @returns {[string, number, number] | null} the file with its size and modification time, `null` when it is gone
 */
function stamp(file) {
  try {
    const stat = statSync(path.resolve(ROOT, file));
    return [file, stat.size, stat.mtimeMs];
  } catch {
    return null;
  }
}

/**
 * `entry` bundled as {@link bundleEntry} bundles it, kept in `cacheDir` and built again only when
 * one of the files it was built from (or the recipe, esbuild, package.json, the lock file or
 * tsconfig.json) changed size or modification time since. A build goes to a file of its own and
 * the manifest that names it is replaced in one rename, so concurrent runs never read a half-written
 * bundle. Bundles older than the current one are removed after ten minutes (a run may still be
 * loading one).
 * @param {string} entry relative to the project
 * @param {string} cacheDir
 * @param {{ sourcemap?: boolean | 'inline'; logLevel?: 'silent' | 'warning' }} [options]
 * @returns {Promise<{ file: string; reused: boolean }>} the bundle, and whether it came from the cache
 */
export async function cachedBundle(entry, cacheDir, options = {}) {
  const name = entry.replace(/[^A-Za-z0-9]+/g, '-');
  const manifestFile = path.join(cacheDir, `${name}.json`);
  const key = JSON.stringify({ recipe: RECIPE, esbuild: esbuildVersion, entry, sourcemap: options.sourcemap ?? false });
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  } catch {
    manifest = null;
  }
  if (manifest !== null && manifest.key === key && Array.isArray(manifest.inputs) && typeof manifest.bundle === 'string') {
    const file = path.join(cacheDir, manifest.bundle);
    const current = manifest.inputs.every((/** @type {[string, number, number]} */ known) => {
      const now = stamp(known[0]);
      return now !== null && now[1] === known[1] && now[2] === known[2];
    });
    if (current && existsSync(file)) return { file, reused: true };
  }
  mkdirSync(cacheDir, { recursive: true });
  const bundle = `${name}-${process.pid}-${Date.now()}.mjs`;
  const file = path.join(cacheDir, bundle);
  const started = Date.now();
  const inputs = await bundleEntry(entry, file, options);
  const stamps = [...RESOLUTION_FILES, ...inputs].map(stamp).filter((s) => s !== null);
  // A file edited while esbuild ran may be in the bundle as it was before: this build is used once, not kept.
  if (stamps.some((s) => s[2] >= started - 1000)) return { file, reused: false };
  const temporary = `${manifestFile}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ key, bundle, inputs: stamps }));
  renameSync(temporary, manifestFile);
  const stale = Date.now() - 10 * 60_000;
  for (const other of readdirSync(cacheDir)) {
    if (other === bundle || !other.startsWith(`${name}-`) || !other.endsWith('.mjs')) continue;
    try {
      if (statSync(path.join(cacheDir, other)).mtimeMs < stale) rmSync(path.join(cacheDir, other), { force: true });
    } catch {
      // Removed by a concurrent run.
    }
  }
  return { file, reused: false };
}

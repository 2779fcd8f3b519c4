import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { APP_PORT, DASHBOARD_LOG, E2E_KUBECONFIG, SIM_PORT } from './e2e/clusters';
import { PRODUCTION_DIST_DIR } from './scripts/build-folder';
import { SERVER_NODE_FLAGS, serverEnvPrefix } from './scripts/node-flags';

/**
 * End-to-end tests: Debian's chromium drives the production build of the dashboard, which reads
 * the simulated cluster (eks-demo) over real HTTP. Browser downloads are impossible here, so the
 * system chromium is used.
 *
 * The build is the production build the benchmark shares (`ZONESCOPE_DIST_DIR=.next-prod`, see
 * scripts/build-folder.ts), apart from a developer's `.next`: `npm run test:e2e` (scripts/e2e.ts)
 * builds it when the sources changed, then runs this. The dashboard runs as `npm start` runs it
 * (scripts/start.mjs: one Node process). Every test starts from a freshly reset simulator
 * (e2e/fixtures.ts). Screenshots for the README are taken only with `UPDATE_SCREENSHOTS=1`
 * (`npm run screenshots`).
 *
 * The kubeconfig has more contexts than eks-demo's (e2e/clusters.ts: another scenario, an
 * unreachable cluster, one forbidding Nodes) for e2e/fleet.spec.ts; eks-demo is its
 * current-context, the dashboard's default cluster, which every other spec reads.
 * `ZONESCOPE_E2E_DIST_DIR` picks another build folder (scripts/e2e.ts passes it on), and
 * `ZONESCOPE_E2E_SIM_PORT`/`ZONESCOPE_E2E_APP_PORT` other ports, to run beside another suite.
 */
const DIST_DIR = process.env.ZONESCOPE_E2E_DIST_DIR?.trim() || PRODUCTION_DIST_DIR;

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  // The README's screenshots: only `npm run screenshots` (UPDATE_SCREENSHOTS=1) takes them.
  testIgnore: process.env.UPDATE_SCREENSHOTS === '1' ? [] : ['**/screenshots.spec.ts'],
  // One test at a time against one dashboard (every test resets the simulator); scripts/e2e.ts runs
  // shards side by side, each with its own stack and its share of the spec files.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  retries: 0,
  reporter: [['list']],
  // scripts/e2e.ts gives each shard its own (`--output`: Playwright empties it at the start).
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${APP_PORT}`,
    viewport: { width: 1280, height: 800 },
    // A failed test keeps its trace (actions, network, console, sources), its screenshot and its page
    // as an accessibility tree (error-context.md). Not the screencast nor a DOM snapshot per action:
    // both are recorded for every test and thrown away when it passes; the screencast was a third of
    // the browser’s CPU over the suite, the snapshots about a tenth of a spec’s CPU on a 2-core host (the
    // suite is CPU-bound there: chromium is half of it). `npx playwright test --trace on` records them.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: false, sources: true },
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: [
    {
      // eks-demo as `npm run sim` serves it, with watch bookmarks every second, and the other
      // clusters of the kubeconfig (see e2e/sim-server.ts).
      command: `npx --no-install tsx e2e/sim-server.ts ${E2E_KUBECONFIG}`,
      url: `http://127.0.0.1:${SIM_PORT}/version`,
      reuseExistingServer: false,
      timeout: 60_000,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      // stdout (the audit lines of every write among it) goes to a file fleet.spec.ts reads.
      command: `mkdir -p ${path.dirname(DASHBOARD_LOG)} && ${serverEnvPrefix()} exec node ${SERVER_NODE_FLAGS.join(' ')} scripts/start.mjs -p ${APP_PORT} -H 127.0.0.1 > ${DASHBOARD_LOG}`,
      // 503 until every resource type is listed: the suite starts on a synced dashboard.
      url: `http://127.0.0.1:${APP_PORT}/api/health/ready`,
      reuseExistingServer: false,
      timeout: 120_000,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
      env: {
        ZONESCOPE_DIST_DIR: DIST_DIR,
        KUBECONFIG: E2E_KUBECONFIG,
        ZONESCOPE_SNAPSHOT: '',
        ZONESCOPE_CONTEXT: '',
        // Every context of the kubeconfig, the defaults for idling and the open limit, none read-only.
        ZONESCOPE_CONTEXTS: '',
        ZONESCOPE_CLUSTER_IDLE_MINUTES: '',
        ZONESCOPE_MAX_OPEN_CLUSTERS: '',
        ZONESCOPE_READ_ONLY_CONTEXTS: '',
        ZONESCOPE_READ_ONLY: '0',
        ZONESCOPE_TRUSTED_ORIGINS: '',
        ZONESCOPE_AUTH_PROXY: '',
        // As npm start passes it: the server is bound to loopback (writes allowed without an auth proxy).
        ZONESCOPE_HOST: '127.0.0.1',
        ZONESCOPE_ALLOWED_HOSTS: '',
        ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: '',
        NEXT_TELEMETRY_DISABLED: '1',
      },
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});

import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { APP_PORT, DASHBOARD_LOG, E2E_KUBECONFIG, SIM_PORT } from './e2e/clusters';

/**
 * End-to-end tests: Debian's chromium drives the production build of the dashboard, which reads
 * the simulated cluster (eks-demo) over real HTTP. Browser downloads are impossible here, so the
 * system chromium is used.
 *
 * The build lives in its own folder (`ZONESCOPE_DIST_DIR=.next-e2e`, see next.config.js) so it
 * never races a build of `.next`: `npm run test:e2e` (scripts/e2e.ts) builds it when the sources
 * changed, then runs this. Every test starts from a freshly reset simulator (e2e/fixtures.ts).
 *
 * The kubeconfig has more contexts than eks-demo's (e2e/clusters.ts: another scenario, an
 * unreachable cluster, one forbidding Nodes) for e2e/fleet.spec.ts; eks-demo is its
 * current-context, the dashboard's default cluster, which every other spec reads.
 * `ZONESCOPE_E2E_DIST_DIR` picks another build folder (scripts/e2e.ts passes it on), and
 * `ZONESCOPE_E2E_SIM_PORT`/`ZONESCOPE_E2E_APP_PORT` other ports, to run beside another suite.
 */
const DIST_DIR = process.env.ZONESCOPE_E2E_DIST_DIR?.trim() || '.next-e2e';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${APP_PORT}`,
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
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
      command: `mkdir -p ${path.dirname(DASHBOARD_LOG)} && npx --no-install next start -p ${APP_PORT} -H 127.0.0.1 > ${DASHBOARD_LOG}`,
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

import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests: Debian's chromium drives the production build of the dashboard, which reads
 * the simulated cluster (eks-demo) over real HTTP. Browser downloads are impossible here, so the
 * system chromium is used.
 *
 * The build lives in its own folder (`ZONESCOPE_DIST_DIR=.next-e2e`, see next.config.js) so it
 * never races a build of `.next`: `npm run test:e2e` (scripts/e2e.ts) builds it when the sources
 * changed, then runs this. Every test starts from a freshly reset simulator (e2e/fixtures.ts).
 */
const SIM_PORT = 6590;
const APP_PORT = 3210;
const DIST_DIR = '.next-e2e';

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
      // eks-demo as `npm run sim` serves it, with watch bookmarks every second (see e2e/sim-server.ts).
      command: `npx --no-install tsx e2e/sim-server.ts ${SIM_PORT} .sim/e2e-kubeconfig`,
      url: `http://127.0.0.1:${SIM_PORT}/version`,
      reuseExistingServer: false,
      timeout: 60_000,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `npx --no-install next start -p ${APP_PORT} -H 127.0.0.1`,
      // 503 until every resource type is listed: the suite starts on a synced dashboard.
      url: `http://127.0.0.1:${APP_PORT}/api/health/ready`,
      reuseExistingServer: false,
      timeout: 120_000,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
      env: {
        ZONESCOPE_DIST_DIR: DIST_DIR,
        KUBECONFIG: '.sim/e2e-kubeconfig',
        ZONESCOPE_SNAPSHOT: '',
        ZONESCOPE_CONTEXT: '',
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

/**
 * The suite's Prometheus, for specs that test measured traffic and its fallback. `npm run
 * test:e2e` (scripts/e2e.ts) starts a real Prometheus scraping the simulator and a small control
 * server, and passes `ZONESCOPE_PROMETHEUS_URL` and `ZONESCOPE_E2E_PROMETHEUS_CONTROL` to
 * Playwright; without them (`--no-prometheus`, or `playwright test` run directly) specs that need
 * Prometheus skip:
 *
 * ```ts
 * test('falls back to the model when Prometheus stops', async ({ page }) => {
 *   test.skip(!PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON);
 *   await stopPrometheus();
 *   try {
 *     // … the header says "unreachable", figures are assumed …
 *   } finally {
 *     await startPrometheus();
 *   }
 * });
 * ```
 */

/** Where the dashboard reads measured traffic from during the suite (`undefined` without Prometheus). */
export const PROMETHEUS_URL = process.env.ZONESCOPE_PROMETHEUS_URL;
const CONTROL = process.env.ZONESCOPE_E2E_PROMETHEUS_CONTROL;

/** Whether the suite runs with its Prometheus. */
export const PROMETHEUS_AVAILABLE = CONTROL !== undefined && CONTROL !== '' && PROMETHEUS_URL !== undefined;

/** Why a spec that needs Prometheus skips. */
export const PROMETHEUS_SKIP_REASON = 'needs the suite\'s Prometheus: run npm run test:e2e (without --no-prometheus) with prometheus installed';

/** State of the suite's Prometheus, as the control server reports it. */
export interface PrometheusState {
  readonly state: 'running' | 'stopped';
  readonly url: string;
}

async function control(method: 'GET' | 'POST', path: string): Promise<PrometheusState> {
  if (!PROMETHEUS_AVAILABLE) throw new Error(PROMETHEUS_SKIP_REASON);
  const response = await fetch(`${CONTROL}${path}`, { method, signal: AbortSignal.timeout(60_000) });
  const body = (await response.json()) as PrometheusState & { error?: string };
  if (!response.ok) throw new Error(`e2e Prometheus control ${method} ${path}: ${response.status} ${body.error ?? ''}`);
  return body;
}

/** Whether the suite's Prometheus runs now. */
export function prometheusState(): Promise<PrometheusState> {
  return control('GET', '/');
}

/** Stops the suite's Prometheus; resolves once it has exited (the dashboard then finds it unreachable). */
export function stopPrometheus(): Promise<PrometheusState> {
  return control('POST', '/stop');
}

/** Starts it again on the same address and data (samples kept); resolves once it is ready and the flow series are back. */
export function startPrometheus(): Promise<PrometheusState> {
  return control('POST', '/start');
}

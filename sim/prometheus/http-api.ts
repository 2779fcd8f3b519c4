/**
 * Queries of a running Prometheus through its HTTP API: instant queries, readiness
 * (`/-/ready`), what the scrape targets report (`/api/v1/targets`, for error messages), and
 * waiting until a metric has a series.
 */

/** One element of an instant vector. */
export interface PrometheusSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

/** How a Prometheus process ended, for messages (`null` while it runs). */
export type ExitReport = () => { readonly how: string; readonly output: string } | null;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function getJson(url: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // Not JSON (e.g. /-/ready's plain text).
  }
  return { status: response.status, body };
}

interface TargetsBody {
  data?: { activeTargets?: { scrapeUrl?: string; health?: string; lastError?: string }[] };
}

/** Whether Prometheus at `url` answers `/-/ready` with 200 (false while it is not listening yet). */
export async function answersReady(url: string): Promise<boolean> {
  try {
    const { status } = await getJson(`${url}/-/ready`, 2_000);
    return status === 200;
  } catch {
    return false;
  }
}

/** An instant query: the `data.result` vector. @throws Error when Prometheus answers an error or not a vector. */
export async function instantQuery(url: string, expression: string): Promise<readonly PrometheusSample[]> {
  const { status, body } = await getJson(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`, 10_000);
  const parsed = body as { status?: string; error?: string; data?: { resultType?: string; result?: PrometheusSample[] } };
  if (status !== 200 || parsed.status !== 'success') throw new Error(`Prometheus query ${expression} failed (${status}): ${parsed.error ?? JSON.stringify(body).slice(0, 200)}`);
  if (parsed.data?.resultType !== 'vector') throw new Error(`Prometheus query ${expression} is not an instant vector (${String(parsed.data?.resultType)})`);
  return parsed.data.result ?? [];
}

/** One line per scrape target: its URL, health and last error (never throws: says why it cannot tell). */
async function targetsReport(url: string): Promise<string> {
  try {
    const { body } = await getJson(`${url}/api/v1/targets`, 5_000);
    const targets = (body as TargetsBody).data?.activeTargets ?? [];
    if (targets.length === 0) return 'no active targets';
    return targets.map((t) => `${t.scrapeUrl ?? '?'} ${t.health ?? '?'}${t.lastError ? ` (${t.lastError})` : ''}`).join('; ');
  } catch (error) {
    return `targets unknown: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Resolves once a series of `metric` exists (an instant query answers at least one sample).
 * @throws Error for a name that is no metric name, when the process exits meanwhile (`exited`),
 * or after `timeoutMs`, saying what the scrape targets report.
 */
export async function waitForSeries(url: string, metric: string, timeoutMs: number, exited: ExitReport): Promise<void> {
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric)) throw new Error(`not a metric name: ${JSON.stringify(metric)}`);
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const exit = exited();
    if (exit !== null) throw new Error(`Prometheus ${exit.how} while waiting for ${metric}${exit.output}`);
    try {
      if ((await instantQuery(url, `count(${metric})`)).length > 0) return;
      last = 'no series yet';
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await delay(200);
  }
  throw new Error(`no series of ${metric} in Prometheus at ${url} after ${timeoutMs} ms (${last}); scrape targets: ${await targetsReport(url)}`);
}

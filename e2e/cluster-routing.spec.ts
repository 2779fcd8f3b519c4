/**
 * `/c/{id}/…` is served in the dashboard's own process (issue 29). It used to be an HTTP request of
 * the server to itself whenever the dashboard listened on loopback, as here (docs/fleet.md, "How
 * `/c/{id}` is served"); such a request shows as a TCP connection the dashboard's process holds to
 * its own port (scripts/bench/self-connections.ts reads them from /proc). The dashboard is found by
 * its listening socket. Pages under the prefix keep their client-side navigation and their script
 * nonces. The same figures under load: `npx tsx scripts/bench/cluster-routing.ts`.
 */
import { listeningPid, selfConnections } from '../scripts/bench/self-connections';
import { AppShell } from './pages/app-shell';
import { APP_PORT, IPVS_CLUSTER } from './clusters';
import { expect, test } from './fixtures';

/** ipvs-lab's URL id: its context name is a slug. */
const ID = IPVS_CLUSTER.context;

test("a second cluster's API and pages are served in the process: the dashboard opens no connection to itself", async ({ page, request }) => {
  const pid = listeningPid(APP_PORT);
  test.skip(pid === null || selfConnections(pid, APP_PORT) === null, "needs Linux's /proc to see the dashboard's connections");
  if (pid === null) return;
  // Opened on first use: 503 while it syncs.
  await expect.poll(async () => (await request.get(`/c/${ID}/api/v1/cluster`)).status(), { message: `/c/${ID} is open and synced`, timeout: 30_000 }).toBe(200);
  // Whatever connection of the dashboard to itself there was before closes first (none is expected).
  await expect.poll(() => selfConnections(pid, APP_PORT), { message: 'the dashboard holds no connection to itself', timeout: 15_000 }).toBe(0);

  let most = 0;
  const sample = () => {
    most = Math.max(most, selfConnections(pid, APP_PORT) ?? 0);
  };
  const sampler = setInterval(sample, 20);
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  try {
    // A burst of reads of the second cluster's API, every one answered by that cluster.
    const answers = await Promise.all(Array.from({ length: 16 }, () => request.get(`/c/${ID}/api/v1/cluster`)));
    expect(answers.map((a) => a.status())).toEqual(answers.map(() => 200));
    for (const answer of answers) expect(((await answer.json()) as { cluster: { proxyMode: string } }).cluster.proxyMode).toBe('ipvs');

    // A page under the prefix, then client-side navigation that stays in the cluster.
    const response = await page.goto(`/c/${ID}/services`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    const shell = new AppShell(page);
    await expect(page.locator('header').getByTestId('cluster-name')).toHaveText(`Cluster: ${IPVS_CLUSTER.displayName}`);
    await page.evaluate(() => ((window as unknown as { sameDocument?: boolean }).sameDocument = true));
    await shell.nav.getByRole('link', { name: 'Overview', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/c/${ID}/?$`));
    await expect(page).toHaveTitle(`Overview · ${IPVS_CLUSTER.displayName} · zonescope`);
    // No full page load: the window is the same document.
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    sample();
  } finally {
    clearInterval(sampler);
  }
  expect(most, 'connections the dashboard opened to its own port').toBe(0);
  expect(violations).toEqual([]);
});

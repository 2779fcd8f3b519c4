/**
 * Many clusters behind one kubeconfig (e2e/clusters.ts): the default eks-demo, `ipvs-lab`
 * (another scenario), `decommissioned` (a closed port) and the `restricted` EKS context (RBAC
 * denies Nodes). The fleet page, the header's switcher, deep links under `/c/{id}/`, each
 * cluster's own freshness and errors, and a toggle in one cluster while another is down.
 *
 * Only the default cluster is reset between tests (e2e/fixtures.ts); the toggle test puts back
 * what it changes in `ipvs-lab`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { expectNoSeriousAxeViolations } from './axe';
import { DASHBOARD_LOG, DEFAULT_CLUSTER, DOWN_CLUSTER, IPVS_CLUSTER, RESTRICTED_CLUSTER } from './clusters';
import { expect, test } from './fixtures';
import { ClusterSwitcher } from './pages/cluster-switcher';
import { FleetPage } from './pages/fleet-page';
import { ServicePage } from './pages/service-page';
import { ServicesPage } from './pages/services-page';
import { annotateService, getService, simStats } from './sim';
import { PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON, startPrometheus } from './prometheus';

const NAMES = [DEFAULT_CLUSTER, IPVS_CLUSTER, DOWN_CLUSTER, RESTRICTED_CLUSTER].map((c) => c.displayName);
const MODE = 'service.kubernetes.io/topology-mode';
/** What the dashboard says about the closed port (lib/k8s/errors.ts). */
const REFUSED = /connection refused/i;

interface FleetRowBody {
  id: string;
  context: string | null;
  displayName: string;
  isDefault: boolean;
  state: string;
  href: string;
  freshness: { kind: string; label: string; message: string | null };
  proxyMode: string | null;
  release: string | null;
  crossZoneMonthly: number | null;
  measured: boolean | null;
  topService: { namespace: string; name: string; href: string | null } | null;
  commonAttention: { reason: string; services: number; message: string; causes: { code: string; services: number }[]; href: string } | null;
}

interface ClustersBody {
  clusters: FleetRowBody[];
  defaultId: string;
}

/** `/api/v1/clusters`, keyed by context. */
async function fleetRows(request: APIRequestContext): Promise<Map<string, FleetRowBody>> {
  const response = await request.get('/api/v1/clusters');
  expect(response.status()).toBe(200);
  const body = (await response.json()) as ClustersBody;
  return new Map(body.clusters.map((row) => [row.context ?? '', row]));
}

/**
 * The URL id of every e2e cluster (the restricted one's is a slug of its ARN, not the context),
 * once every cluster is open and settled (`/api/v1/clusters` opens them): the three reachable
 * ones synced, the closed port failing. So each test works on its own, whatever ran before.
 */
async function clusterIds(request: APIRequestContext): Promise<{ ipvs: string; down: string; restricted: string }> {
  const settled = async () => {
    const rows = await fleetRows(request);
    return [DEFAULT_CLUSTER, IPVS_CLUSTER, DOWN_CLUSTER, RESTRICTED_CLUSTER].map((c) => `${c.displayName}: ${rows.get(c.context)?.freshness.kind ?? 'missing'}`);
  };
  await expect
    .poll(settled, { message: 'every cluster of the e2e kubeconfig is open and settled', timeout: 30_000, intervals: [250, 500, 1000] })
    .toEqual([`${DEFAULT_CLUSTER.displayName}: synced`, `${IPVS_CLUSTER.displayName}: synced`, `${DOWN_CLUSTER.displayName}: error`, `${RESTRICTED_CLUSTER.displayName}: synced`]);
  const rows = await fleetRows(request);
  const id = (context: string) => {
    const row = rows.get(context);
    if (row === undefined) throw new Error(`/api/v1/clusters has no row for context ${context}`);
    return row.id;
  };
  return { ipvs: id(IPVS_CLUSTER.context), down: id(DOWN_CLUSTER.context), restricted: id(RESTRICTED_CLUSTER.context) };
}

/** The dashboard's audit lines so far (its stdout goes to DASHBOARD_LOG, see playwright.config.ts). */
function auditLines(): Record<string, unknown>[] {
  const file = path.join(__dirname, '..', DASHBOARD_LOG);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"zonescope.audit"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('the fleet page lists every cluster with its state, sorts by cross-zone $/month, and each row opens its cluster', async ({ page, request }) => {
  const fleet = new FleetPage(page);
  await fleet.goto();
  await expect(fleet.rows).toHaveCount(4);
  await expect(page).toHaveTitle(/^Fleet\b.*zonescope$/);

  // The closed port: its own error, nothing else wrong.
  await expect(fleet.row(DOWN_CLUSTER.displayName)).toContainText(REFUSED, { timeout: 30_000 });
  // The cluster forbidding Nodes says which type and what that leaves unknown.
  await expect(fleet.row(RESTRICTED_CLUSTER.displayName)).toContainText('could not read Nodes (forbidden)');
  await expect(fleet.platform(RESTRICTED_CLUSTER.displayName)).toHaveText(/ 1\.30\s*Cilium eBPF/);
  // The healthy ones: release, proxy mode, synced.
  await expect(fleet.platform(IPVS_CLUSTER.displayName)).toHaveText(/ 1\.31\s*ipvs$/);
  await expect(fleet.platform(DEFAULT_CLUSTER.displayName)).toHaveText(/^EKS 1\.\d+\s*iptables$/);
  await expect(fleet.row(IPVS_CLUSTER.displayName)).toContainText('Synced');
  await expect(fleet.row(DEFAULT_CLUSTER.displayName)).toContainText('Synced');
  for (const name of [DEFAULT_CLUSTER.displayName, IPVS_CLUSTER.displayName, RESTRICTED_CLUSTER.displayName]) await expect(fleet.row(name)).not.toContainText(REFUSED);

  // The API says the same.
  const rows = await fleetRows(request);
  expect(rows.get(DOWN_CLUSTER.context)?.freshness).toMatchObject({ kind: 'error', message: expect.stringMatching(REFUSED) });
  expect(rows.get(IPVS_CLUSTER.context)).toMatchObject({ proxyMode: 'ipvs', release: '1.31', freshness: { kind: 'synced' } });
  expect(rows.get(DEFAULT_CLUSTER.context)).toMatchObject({ isDefault: true, freshness: { kind: 'synced' } });
  // Both healthy clusters have a figure; the unreachable one has none.
  const cost = (context: string) => rows.get(context)?.crossZoneMonthly ?? null;
  const ipvsCost = cost(IPVS_CLUSTER.context);
  expect(ipvsCost).toBeGreaterThan(0);
  expect(cost(DEFAULT_CLUSTER.context)).toBeGreaterThan(0);
  expect(cost(DOWN_CLUSTER.context)).toBeNull();
  // ipvs-lab's volumes are assumed (Prometheus is the default cluster's only), so its figure is steady.
  await expect(fleet.row(IPVS_CLUSTER.displayName).getByRole('cell').filter({ hasText: `$${(ipvsCost ?? 0).toFixed(2)}` }).first()).toBeVisible();

  // Sorted by cross-zone $/month, most first; the clusters without a figure come last.
  const costed = [DEFAULT_CLUSTER, IPVS_CLUSTER, RESTRICTED_CLUSTER].filter((c) => cost(c.context) !== null);
  const descending = [...costed].sort((a, b) => (cost(b.context) ?? 0) - (cost(a.context) ?? 0)).map((c) => c.displayName);
  const costHeader = fleet.columnHeader(/cross-zone/i).first();
  await expect(costHeader).toHaveAttribute('aria-sort', 'descending');
  const shown = await fleet.order(NAMES);
  expect(shown.slice(0, descending.length)).toEqual(descending);
  expect(shown[shown.length - 1]).toBe(DOWN_CLUSTER.displayName);

  // The sort button works with the keyboard: fewest first, still without a figure last.
  const sort = costHeader.getByRole('button', { name: /^Now/ });
  await sort.focus();
  await page.keyboard.press('Enter');
  await expect(costHeader).toHaveAttribute('aria-sort', 'ascending');
  const ascending = await fleet.order(NAMES);
  expect(ascending.slice(0, descending.length)).toEqual([...descending].reverse());
  expect(ascending[ascending.length - 1]).toBe(DOWN_CLUSTER.displayName);
  // The answer above the table names the costliest cluster, and why: its costliest Service, linked into that cluster.
  const answer = page.getByRole('region', { name: 'Who spends most' });
  await expect(answer.getByRole('link', { name: descending[0] ?? '', exact: true })).toBeVisible();
  const leader = [...rows.values()].find((r) => r.displayName === descending[0]);
  const top = leader?.topService;
  expect(top?.href).toBeTruthy();
  await expect(answer).toContainText(`Costliest Service: ${top?.namespace}/${top?.name}`);
  await expect(answer.getByRole('link', { name: `${top?.namespace}/${top?.name}`, exact: true })).toHaveAttribute('href', top?.href ?? '');

  // Another column sorts too, and says so.
  const nameHeader = fleet.columnHeader('Cluster', true);
  await nameHeader.getByRole('button').click();
  await expect(nameHeader).toHaveAttribute('aria-sort', /ascending|descending/);
  await expect(costHeader).not.toHaveAttribute('aria-sort', /ascending|descending/);

  // A row's link opens that cluster's Overview under /c/{id}/.
  const ids = await clusterIds(request);
  await fleet.link(IPVS_CLUSTER.displayName).click();
  await expect(page).toHaveURL(new RegExp(`/c/${ids.ipvs}/?$`));
  await expect(page.locator('header').getByTestId('cluster-name')).toHaveText(`Cluster: ${IPVS_CLUSTER.displayName}`);
  await expect(page).toHaveTitle(`Overview · ${IPVS_CLUSTER.displayName} · zonescope`);
  await expect(page.getByRole('region', { name: 'Eligibility' })).toContainText('Eligible');
});

test('the header switcher searches the clusters and switches with the keyboard, keeping the view', async ({ page, request }) => {
  const ids = await clusterIds(request);
  const services = new ServicesPage(page);
  await services.goto();
  await services.waitForHydration();
  const switcher = new ClusterSwitcher(page);
  await expect(switcher.button).toContainText(DEFAULT_CLUSTER.displayName);

  // Open, search, arrow down, Enter: the same view in the other cluster.
  await switcher.openWithKeyboard();
  await expect(switcher.options).toHaveCount(4);
  // Each cluster with its state: the down one with its error, the others open and synced.
  await expect(switcher.option(DOWN_CLUSTER.displayName)).toContainText('error');
  await expect(switcher.option(DOWN_CLUSTER.displayName)).toContainText(REFUSED);
  await expect(switcher.option(IPVS_CLUSTER.displayName)).toContainText('open · synced');
  await expect(switcher.option(RESTRICTED_CLUSTER.displayName)).toContainText(RESTRICTED_CLUSTER.context);
  await page.keyboard.type('ipvs');
  await expect(switcher.options).toHaveCount(1);
  await page.keyboard.press('ArrowDown');
  await expect(switcher.option(IPVS_CLUSTER.displayName)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/c/${ids.ipvs}/services$`));
  await expect(services.count).toHaveText('3 Services');
  await expect(switcher.button).toContainText(IPVS_CLUSTER.displayName);
  // Choosing loads the page in full: Enter on the button does nothing until it is hydrated again
  // (under the two-shard CI load, the server-rendered button was there seconds before its handler).
  await services.waitForHydration();

  // Escape closes the list and gives the focus back to the button.
  await switcher.openWithKeyboard();
  await page.keyboard.press('Escape');
  await expect(switcher.panel).toBeHidden();
  await expect(switcher.button).toBeFocused();

  // From a Service page, the other cluster's Services searched for its name.
  await page.goto(`/c/${ids.ipvs}/services/shop/web`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('shop/web');
  await services.waitForHydration();
  await switcher.openWithKeyboard();
  await page.keyboard.type(DEFAULT_CLUSTER.displayName);
  await expect(switcher.options).toHaveCount(1);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/services\?q=web$/);
  await expect(page).not.toHaveURL(/\/c\//);
  await expect(services.search).toHaveValue('web');

  // "All clusters" leads to the fleet page.
  await switcher.button.click();
  await switcher.allClusters.click();
  await expect(page).toHaveURL(/\/fleet$/);
});

test('deep links under /c/{id}/ load that cluster directly; the default cluster keeps its URLs', async ({ page, request }) => {
  const ids = await clusterIds(request);
  const response = await page.goto(`/c/${ids.ipvs}/services/shop/web`);
  expect(response?.status()).toBe(200);
  const service = new ServicePage(page);
  await expect(service.heading).toHaveText('shop/web');
  await expect(page).toHaveTitle(`shop/web · Services · ${IPVS_CLUSTER.displayName} · zonescope`);
  await expect(page.locator('header').getByTestId('cluster-name')).toHaveText(`Cluster: ${IPVS_CLUSTER.displayName}`);
  // The navigation stays in the cluster, and shows where we are.
  await expect(service.nav.getByRole('link', { name: 'Services', exact: true })).toHaveAttribute('href', `/c/${ids.ipvs}/services`);
  await expect(service.nav.getByRole('link', { name: 'Services', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(service.nav.getByRole('link', { name: 'Overview', exact: true })).toHaveAttribute('href', new RegExp(`^/c/${ids.ipvs}/?$`));

  // eks-demo has no shop/web: the default cluster's URL is a 404, the API's too.
  expect((await page.goto('/services/shop/web'))?.status()).toBe(404);
  expect((await request.get(`/c/${ids.ipvs}/api/v1/services/shop/web`)).status()).toBe(200);
  expect((await request.get('/api/v1/services/shop/web')).status()).toBe(404);
  // A client cannot pick the cluster with the internal header.
  expect((await request.get('/api/v1/services/shop/web', { headers: { 'x-zonescope-cluster': ids.ipvs } })).status()).toBe(404);
  // The default cluster's own Services under its id, and an unknown cluster.
  expect((await request.get('/api/v1/services/payments/ledger')).status()).toBe(200);
  // An unknown cluster: a 404 page listing the clusters there are (pages with a loading skeleton
  // have sent their 200 before the page knows; the content says it all the same), and a 404 API.
  expect((await page.goto('/c/no-such-cluster/services/shop/web'))?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cluster not found');
  await page.goto('/c/no-such-cluster/services');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cluster not found');
  await expect(page.locator('main').getByRole('link', { name: IPVS_CLUSTER.displayName, exact: true })).toHaveAttribute('href', `/c/${ids.ipvs}`);
  expect((await request.get('/c/no-such-cluster/api/v1/services')).status()).toBe(404);
  // What is not per cluster has no /c/ address.
  expect((await request.get(`/c/${ids.ipvs}/fleet`)).status()).toBe(404);

  // The restricted cluster's id is a slug of its ARN context; its pages load by it.
  expect(ids.restricted).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/);
  expect((await page.goto(`/c/${ids.restricted}/services`))?.status()).toBe(200);
  await expect(page.locator('header').getByTestId('cluster-name')).toHaveText(`Cluster: ${RESTRICTED_CLUSTER.displayName}`);
});

test('each cluster has its own freshness: the down cluster\'s error and the forbidden Nodes stay in their clusters', async ({ page, request }) => {
  const ids = await clusterIds(request);
  const header = page.locator('header');
  const forbiddenBanner = page.getByText('zonescope could not read Nodes (forbidden)', { exact: true });
  const refused = page.getByText(REFUSED).filter({ visible: true });

  // The unreachable cluster: its pages say why, and keep trying.
  await page.goto(`/c/${ids.down}/`);
  await expect(page.getByRole('alert').filter({ hasText: 'The cluster cannot be read' })).toContainText(REFUSED, { timeout: 30_000 });

  // The cluster forbidding Nodes: synced, with the forbidden type named in the header and banner.
  await page.goto(`/c/${ids.restricted}/`);
  await expect(header.getByText(/^Synced, 1 type\(s\) forbidden$/)).toBeVisible();
  await expect(forbiddenBanner).toBeVisible();
  await expect(refused).toHaveCount(0);

  // The others are live and know nothing of either problem.
  for (const url of ['/', `/c/${ids.ipvs}/`]) {
    await page.goto(url);
    await expect(header.getByText('Live, synced', { exact: true })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Eligibility' })).toContainText('Eligible');
    await expect(forbiddenBanner).toHaveCount(0);
    await expect(refused).toHaveCount(0);
  }
  expect((await request.get('/api/health/ready')).status()).toBe(200);
});

test('toggling topology mode in one cluster while another is down writes to that cluster only, and the audit line names it', async ({ page, request }) => {
  // The down cluster is open and failing (clusterIds waits for that).
  const ids = await clusterIds(request);
  const auditBefore = auditLines().length;
  expect((await getService('shop', 'web', IPVS_CLUSTER.port)).metadata.annotations?.[MODE]).toBe('Auto');
  const defaultPatchesBefore = (await simStats()).requests.services?.patch ?? 0;

  try {
    const service = new ServicePage(page);
    await page.goto(`/c/${ids.ipvs}/services/shop/web`);
    await service.waitForToggle();
    await expect(service.currentValue).toContainText('Auto');
    await service.disableButton.click();
    // The confirmation names the cluster it writes to.
    await expect(service.confirmGroup).toContainText(IPVS_CLUSTER.displayName);
    await service.confirmButton.click();
    // Done, or refused: a refusal fails here with its message rather than after the wait.
    const done = service.toggle.getByRole('status').filter({ hasText: 'Topology mode disabled; the slices carry 0 hints.' });
    const refusal = service.toggle.getByRole('alert');
    await expect(done.or(refusal).first()).toBeVisible({ timeout: 40_000 });
    expect(await refusal.allInnerTexts(), 'the toggle refused the write').toEqual([]);
    await expect(done).toBeVisible();

    // Written to ipvs-lab, not to the default cluster.
    // Disable removes the annotation: absence means off.
    expect((await getService('shop', 'web', IPVS_CLUSTER.port)).metadata.annotations ?? {}).not.toHaveProperty(MODE);
    expect((await simStats()).requests.services?.patch ?? 0).toBe(defaultPatchesBefore);
    // One audit line, naming the cluster as the header and the confirmation do, and its context.
    await expect.poll(() => auditLines().slice(auditBefore).filter((line) => line.service === 'shop/web')).toHaveLength(1);
    expect(auditLines().slice(auditBefore).find((line) => line.service === 'shop/web')).toMatchObject({ action: 'set-topology-mode', outcome: 'applied', to: null, cluster: IPVS_CLUSTER.displayName, context: IPVS_CLUSTER.context });

    // The default cluster carries on.
    await page.goto('/');
    await expect(page.locator('header').getByText('Live, synced', { exact: true })).toBeVisible();
  } finally {
    await annotateService('shop', 'web', { [MODE]: 'Auto' }, IPVS_CLUSTER.port);
  }
});

test.describe('on a 1280 px screen', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('the "why" is in view without scrolling sideways, its common reason in words that hold for every Service it counts', async ({ page, request }) => {
    const fleet = new FleetPage(page);
    await fleet.goto();
    await expect(fleet.rows).toHaveCount(4);
    // Neither the table nor the page scrolls sideways, and the "why" column ends inside the screen.
    const region = page.getByRole('region', { name: 'Clusters table' });
    expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    const why = fleet.why(DEFAULT_CLUSTER.displayName);
    for (const box of [await fleet.columnHeader(/^Why/).boundingBox(), await why.boundingBox()]) {
      expect(box).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? Infinity)).toBeLessThanOrEqual(1280);
    }

    // The most common reason: its label and count, linked to those Services, never one Service's message.
    const common = (await fleetRows(request)).get(DEFAULT_CLUSTER.context)?.commonAttention;
    expect(common).toBeTruthy();
    const link = why.getByRole('link', { name: new RegExp(`\\(${common?.services} Services?\\b`) });
    await expect(link).toHaveAttribute('href', common?.href ?? '');
    const theirs = (await (await request.get(`/api/v1/services?attention=1&reason=${common?.reason}&limit=500`)).json()) as { total: number; items: { attention: { message: string } | null }[] };
    expect(theirs.total).toBe(common?.services);
    const shown = (await why.textContent()) ?? '';
    for (const message of theirs.items.map((item) => item.attention?.message)) if (message) expect(shown).not.toContain(message);
    expect(theirs.items.map((item) => item.attention?.message)).not.toContain(common?.message);
  });
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('each cluster is a card with its figures and its "why", sorted by the "Sort by" list', async ({ page }) => {
    await page.goto('/fleet');
    await new FleetPage(page).waitForHydration();
    const cards = page.getByRole('list', { name: 'Clusters' }).locator('li[data-cluster-card]');
    await expect(cards).toHaveCount(4);
    await expect(page.getByRole('region', { name: 'Clusters table' })).toBeHidden();
    const first = cards.first();
    await expect(first.getByRole('link', { name: DEFAULT_CLUSTER.displayName, exact: true })).toBeVisible();
    await expect(first).toContainText('Most common:');
    // The "why" is on screen, not beyond its right edge.
    const box = await first.getByText('Most common:').boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? Infinity)).toBeLessThanOrEqual(390);
    // Sorted by name: the names in order.
    await page.getByLabel('Sort by').selectOption({ label: 'Cluster, A–Z' });
    const names = await cards.evaluateAll((items) => items.map((item) => item.querySelector('a')?.textContent ?? ''));
    expect(names).toEqual([...names].sort());
  });
});

test('the fleet page has no serious or critical axe violations, light and dark', async ({ page }) => {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const fleet = new FleetPage(page);
    await fleet.goto();
    await expect(fleet.rows).toHaveCount(4);
    await expect(fleet.row(DOWN_CLUSTER.displayName)).toContainText(REFUSED);
    await fleet.waitForHydration();
    await expectNoSeriousAxeViolations(page, undefined, scheme);
  }
});

test('with the default cluster measured through Prometheus and the others assumed, the answer says its figures are not alike', async ({ page, request }) => {
  test.skip(!PROMETHEUS_AVAILABLE, PROMETHEUS_SKIP_REASON);
  await startPrometheus();
  await expect
    .poll(async () => (await fleetRows(request)).get(DEFAULT_CLUSTER.context)?.measured ?? null, { message: 'the default cluster has measured volumes', timeout: 60_000 })
    .toBe(true);
  expect((await fleetRows(request)).get(IPVS_CLUSTER.context)?.measured).toBe(false);
  const fleet = new FleetPage(page);
  await fleet.goto();
  const caveat = page.getByRole('region', { name: 'Who spends most' }).getByTestId('fleet-mixed-volumes');
  await expect(caveat).toContainText(`Compare with care: traffic volumes are measured for ${DEFAULT_CLUSTER.displayName} but set or assumed`);
  await expect(caveat).toContainText(IPVS_CLUSTER.displayName);
});

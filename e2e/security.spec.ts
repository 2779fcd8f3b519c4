/**
 * Web hardening as a browser meets it: the security headers on a page, and the topology-mode write
 * refused when it does not come from the dashboard's own pages.
 */
import { APP_PORT } from './clusters';
import { expect, test } from './fixtures';
import { getService, simStats } from './sim';
import { CURRENT_VALUE } from './pages/service-page';

const TOGGLE = '/api/v1/services/shop/recommendations/topology-mode';

test('a page carries CSP (frame-ancestors none, script nonce), nosniff, Referrer-Policy, and no X-Powered-By', async ({ page }) => {
  const response = await page.goto('/services/shop/recommendations');
  if (response === null) throw new Error('no response for the page');
  const headers = await response.allHeaders();
  const csp = headers['content-security-policy'] ?? '';
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
  expect(csp).toContain("object-src 'none'");
  expect(csp).not.toContain("'unsafe-eval'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-powered-by']).toBeUndefined();
  // The page works under its own policy: no CSP violation while it hydrates and loads the toggle.
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.reload();
  await expect(page.getByRole('region', { name: 'Topology mode' }).getByText(CURRENT_VALUE)).toBeVisible();
  expect(violations).toEqual([]);
});

test('API responses carry the locked-down policy too', async ({ request }) => {
  const response = await request.get('/api/v1/cluster');
  expect(response.ok()).toBe(true);
  const headers = response.headers();
  expect(headers['content-security-policy']).toContain("default-src 'none'");
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-powered-by']).toBeUndefined();
  expect(headers['cache-control']).toContain('no-store');
});

test('a cross-site PUT to the toggle is refused before it reaches the cluster', async ({ page, request }) => {
  // What the page itself would send, with the resourceVersion it rendered.
  await page.goto('/services/shop/recommendations');
  const { resourceVersion } = (await getService('shop', 'recommendations')).metadata;
  const attempts: Record<string, string>[] = [
    { Origin: 'http://evil.example' },
    { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    { Origin: 'null' },
    {},
    { Origin: `http://127.0.0.1:${APP_PORT}`, 'Sec-Fetch-Site': 'cross-site' },
    { Origin: `http://127.0.0.1:${APP_PORT}`, 'x-middleware-subrequest': 'middleware' },
  ];
  for (const extra of attempts) {
    const response = await request.put(TOGGLE, {
      headers: { 'Content-Type': 'application/json', 'If-Match': `"${resourceVersion}"`, ...extra },
      data: '{"mode":"Auto"}',
    });
    expect(response.status(), JSON.stringify(extra)).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code, JSON.stringify(extra)).toBe('cross-site:topology-mode');
  }
  // A form post from another site cannot even get past the content type.
  const form = await request.put(TOGGLE, {
    headers: { Origin: `http://127.0.0.1:${APP_PORT}`, 'Content-Type': 'application/x-www-form-urlencoded', 'If-Match': `"${resourceVersion}"` },
    data: 'mode=Auto',
  });
  expect(form.status()).toBe(415);

  // Nothing reached the API server: no PATCH, and the Service is unchanged.
  expect((await simStats()).requests.services?.patch ?? 0).toBe(0);
  const after = await getService('shop', 'recommendations');
  expect(after.metadata.resourceVersion).toBe(resourceVersion);
  expect(after.metadata.annotations ?? {}).not.toHaveProperty(['service.kubernetes.io/topology-mode']);
});

test('the page\'s own same-origin request is the one that is accepted', async ({ page }) => {
  await page.goto('/services/shop/recommendations');
  const { resourceVersion } = (await getService('shop', 'recommendations')).metadata;
  // fetch() from the page: the browser sets Origin and Sec-Fetch-Site itself (same-origin).
  const status = await page.evaluate(
    async ([url, rv]) => {
      const response = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'application/json', 'If-Match': `"${rv}"` }, body: '{"mode":"Auto"}' });
      return response.status;
    },
    [TOGGLE, resourceVersion] as const,
  );
  expect(status).toBe(200);
  expect((await getService('shop', 'recommendations')).metadata.annotations?.['service.kubernetes.io/topology-mode']).toBe('Auto');
});

test.describe('requests no route should see (against the production server)', () => {
  const SECURITY = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin' };

  test('a Host that is not on the allow-list (DNS rebinding) gets 421: JSON for the API, a page for pages, with the security headers', async ({ request }) => {
    for (const host of [`rebind.evil.example:${APP_PORT}`, 'rebind.evil.example', 'localhost:9999']) {
      const api = await request.get('/api/v1/cluster', { headers: { Host: host } });
      expect(api.status(), host).toBe(421);
      expect(api.headers()).toMatchObject(SECURITY);
      expect(api.headers()['content-security-policy']).toContain("default-src 'none'");
      const body = (await api.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('untrusted-host:api');
      expect(body.error.message).toContain('ZONESCOPE_ALLOWED_HOSTS');
    }
    const page = await request.get('/services/shop/recommendations', { headers: { Host: `rebind.evil.example:${APP_PORT}` } });
    expect(page.status()).toBe(421);
    expect(page.headers()).toMatchObject(SECURITY);
    expect(page.headers()['content-type']).toContain('text/html');
    expect(await page.text()).toContain('ZONESCOPE_ALLOWED_HOSTS');
    // The toggle cannot be reached under a foreign name either.
    const put = await request.put(TOGGLE, { headers: { Host: `rebind.evil.example:${APP_PORT}`, Origin: `http://rebind.evil.example:${APP_PORT}`, 'Content-Type': 'application/json', 'If-Match': '"1"' }, data: '{"mode":"Auto"}' });
    expect(put.status()).toBe(421);
    expect((await simStats()).requests.services?.patch ?? 0).toBe(0);
    // The loopback names with the server's port are served.
    for (const host of [`localhost:${APP_PORT}`, `127.0.0.1:${APP_PORT}`, `[::1]:${APP_PORT}`]) expect((await request.get('/api/v1/cluster', { headers: { Host: host } })).status(), host).toBe(200);
  });

  test('a malformed % sequence in the path is a 400: JSON for the API, a page for pages, with the security headers', async ({ request }) => {
    for (const path of ['/api/v1/services/%zz/x', '/api/v1/services/shop/%E0%A4%A', '/api/v1/cluster%zz']) {
      const response = await request.get(path);
      expect(response.status(), path).toBe(400);
      expect(response.headers()).toMatchObject(SECURITY);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe('bad-request:api');
    }
    for (const path of ['/services/%E0%A4%A/x', '/services/shop/%zz', '/services/%E0%A4%A']) {
      const response = await request.get(path);
      expect(response.status(), path).toBe(400);
      expect(response.headers()).toMatchObject(SECURITY);
      expect(response.headers()['content-type']).toContain('text/html');
      expect(await response.text()).toContain('malformed percent-encoding');
    }
  });

  test('TRACE and other odd methods get 405 with Allow, not a 500', async ({ request }) => {
    for (const [method, path, allow] of [
      ['TRACE', '/', 'GET, HEAD'],
      ['TRACE', '/api/v1/cluster', 'GET'],
      ['TRACE', TOGGLE, 'GET, PUT'],
      ['PROPFIND', '/services', 'GET, HEAD'],
      ['PROPFIND', '/api/v1/cluster', 'GET'],
      ['PATCH', '/', 'GET, HEAD'],
      ['POST', '/services/shop/recommendations', 'GET, HEAD'],
      ['DELETE', '/dataplane', 'GET, HEAD'],
    ] as const) {
      const response = await request.fetch(path, { method });
      expect(response.status(), `${method} ${path}`).toBe(405);
      expect(response.headers().allow, `${method} ${path}`).toBe(allow);
      expect(response.headers()).toMatchObject(SECURITY);
    }
    // The API's own methods keep their JSON 405s.
    const post = await request.post('/api/v1/cluster');
    expect(post.status()).toBe(405);
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('method-not-allowed:cluster');
  });
});

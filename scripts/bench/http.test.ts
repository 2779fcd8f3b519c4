/**
 * The benchmark's page view: the page's HTML and then the data the page loads from its own
 * address (the Services page's rows), both counted — a page whose rows moved out of its HTML must
 * not look faster than a browser finds it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DroppingServer } from './dropping-server';
import { startDroppingServer } from './dropping-server';
import { closeConnections, timedPageView, timedRequest } from './http';

let server: http.Server;
let base = '';
const asked: string[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    asked.push(request.url ?? '');
    if (request.url === '/services') response.end('<html><script>self.__next_f.push([1,"{\\"src\\":\\"/api/v1/services/table?v=2k\\"}"])</script></html>');
    else if (request.url === '/api/v1/services/table?v=2k') response.end('x'.repeat(1000));
    else if (request.url === '/') response.end('<html>overview</html>');
    else if (request.url === '/broken') response.end('<html>"/api/v1/services/table?v=zz"</html>');
    else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  closeConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('timedPageView', () => {
  it('fetches the data a page names after its HTML and counts both', async () => {
    asked.length = 0;
    const view = await timedPageView(`${base}/services`);
    expect(asked).toEqual(['/services', '/api/v1/services/table?v=2k']);
    expect(view.status).toBe(200);
    expect(view.bytes).toBe(1000 + Buffer.byteLength('<html><script>self.__next_f.push([1,"{\\"src\\":\\"/api/v1/services/table?v=2k\\"}"])</script></html>'));
    expect(view.ms).toBeGreaterThan(0);
  });

  it('is the page alone when it names no data, and reports a failing data request', async () => {
    asked.length = 0;
    const view = await timedPageView(`${base}/`);
    expect(asked).toEqual(['/']);
    expect(view.bytes).toBe('<html>overview</html>'.length);
    const broken = await timedPageView(`${base}/broken`);
    expect(broken.status).toBe(404);
  });
});

describe('timedRequest on a kept connection the server closes', () => {
  let dropping: DroppingServer;
  let url = '';

  beforeAll(async () => {
    dropping = await startDroppingServer((request, response) => response.end(request.method));
    url = `${dropping.base}/`;
  });

  afterAll(async () => {
    closeConnections();
    await dropping.close();
  });

  it('sends a GET once more on a new connection, and not a POST', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await timedRequest(url, { agent })).body).toBe('GET');
    // The kept connection is reused and dropped: the GET is answered on a new one.
    expect((await timedRequest(url, { agent })).body).toBe('GET');
    expect(dropping.connections).toEqual(['serve', 'drop', 'serve']);
    // A POST on the kept connection is not repeated: its error is the caller's.
    await expect(timedRequest(url, { agent, method: 'POST', body: '{}' })).rejects.toThrow(/socket hang up|ECONNRESET/);
    agent.destroy();
  });
});

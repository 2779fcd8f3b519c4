/**
 * What zonescope sends a real API server, over real HTTP: a User-Agent that names it (audit logs
 * and apiserver metrics otherwise show an empty client), `Accept-Encoding: gzip` on buffered
 * requests (list pages: the API server compresses large ones, ~20× at size L) but not on watches,
 * and list pages the simulator gzips — as kube-apiserver does above 128 KiB — decoded, with the
 * size limit counted on the decoded bytes and a corrupt body failing with a clear error.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { service } from '../../sim/test-support';
import { createConnection } from './connection';
import { USER_AGENT } from './transport/http-connection';
import type { KubeConnection } from './connection';
import { ResponseTooLargeError } from './errors';

const sims: Simulator[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function connect(kubeconfigText: string): KubeConnection {
  const result = createConnection({ kubeconfigText, requestTimeoutMs: 5000 });
  if (!result.ok) throw new Error(result.message);
  return result.connection;
}

/** A kubeconfig for a plain-HTTP server at `url` (as the simulator's own kubeconfig is shaped). */
function kubeconfigFor(url: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{ name: c, cluster: { server: "' + url + '", insecure-skip-tls-verify: true } }]',
    'users: [{ name: u, user: { token: t0ken } }]',
    'contexts: [{ name: x, context: { cluster: c, user: u } }]',
    'current-context: x',
    '',
  ].join('\n');
}

/** A loopback server that records each request's headers and answers with `answer`. */
async function recordingServer(answer: (headers: IncomingHttpHeaders) => { body: Buffer; headers: Record<string, string> }): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const { body, headers } = answer(req.headers);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length), ...headers });
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, seen };
}

describe('what zonescope sends the API server', () => {
  it('names itself and asks for gzip on buffered requests, not on watches', async () => {
    const { url, seen } = await recordingServer(() => ({ body: Buffer.from('{"kind":"ServiceList","items":[]}\n'), headers: {} }));
    const connection = connect(kubeconfigFor(url));
    const response = await connection.request({ path: '/api/v1/services' });
    expect(response.status).toBe(200);
    expect(USER_AGENT).toMatch(/^zonescope\/\d+\.\d+\.\d+ \(\w+\/\w+\) node\/v\d+/);
    expect(seen[0]?.['user-agent']).toBe(USER_AGENT);
    expect(seen[0]?.['accept-encoding']).toBe('gzip');

    const lines: string[] = [];
    const opened = await connection.openStream({ path: '/api/v1/services?watch=1' }, (line) => lines.push(line));
    if (opened.ok) opened.stream.close();
    expect(seen[1]?.['user-agent']).toBe(USER_AGENT);
    expect(seen[1]?.['accept-encoding']).toBeUndefined();
  });

  it('decodes a list page the simulator gzips (above 128 KiB, like kube-apiserver) into the same objects', async () => {
    // 400 Services with a long annotation each: a list of ~400 KiB.
    const padding = 'x'.repeat(900);
    const objects = Array.from({ length: 400 }, (_, i) => {
      const svc = service(`svc-${i}`);
      (svc.metadata as { annotations?: Record<string, string> }).annotations = { note: padding };
      return svc;
    });
    const sim = await startSimulator({ port: 0, log: () => undefined, objects });
    sims.push(sim);
    const connection = connect(sim.kubeconfig());
    const response = await connection.request({ path: '/api/v1/services' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    const list = JSON.parse(response.body) as { items: { metadata: { name: string; annotations?: Record<string, string> } }[] };
    expect(list.items.filter((item) => item.metadata.name.startsWith('svc-'))).toHaveLength(400);
    expect(list.items.find((item) => item.metadata.name === 'svc-399')?.metadata.annotations?.note).toBe(padding);
    expect(Number(response.headers['content-length'])).toBeLessThan(Buffer.byteLength(response.body) / 5);
  });

  it('counts the size limit on the decoded body, and fails clearly on a body that does not decode', async () => {
    const big = Buffer.from(JSON.stringify({ kind: 'ServiceList', items: [], pad: 'y'.repeat(200_000) }));
    const { url } = await recordingServer(() => ({ body: gzipSync(big), headers: { 'Content-Encoding': 'gzip' } }));
    const connection = connect(kubeconfigFor(url));
    // ~0.4 KiB on the wire, 200 KB decoded: over a 100 KB limit.
    await expect(connection.request({ path: '/api/v1/services', maxResponseBytes: 100_000 })).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(JSON.parse((await connection.request({ path: '/api/v1/services' })).body).pad).toHaveLength(200_000);

    const corrupt = await recordingServer(() => ({ body: Buffer.from('not gzip at all'), headers: { 'Content-Encoding': 'gzip' } }));
    await expect(connect(kubeconfigFor(corrupt.url)).request({ path: '/api/v1/services' })).rejects.toThrow(/gzip body that does not decode/);
  });
});

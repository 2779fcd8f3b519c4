import { mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../lib/config/config';
import { isBoundBeyondLoopback } from '../lib/server/exposure';
import { browseUrl, prepareStandalone, startPlan, StartUsageError, waitForServer } from './start.mjs';

describe('npm start', () => {
  it('binds 127.0.0.1:3000 by default and tells the server so', () => {
    const plan = startPlan([], { PATH: '/bin', HOSTNAME: 'build-box' }, '/srv');
    expect(plan).toMatchObject({ host: '127.0.0.1', port: 3000, url: 'http://127.0.0.1:3000' });
    expect(plan.env).toMatchObject({ HOSTNAME: '127.0.0.1', PORT: '3000', ZONESCOPE_HOST: '127.0.0.1', NODE_ENV: 'production' });
    expect(isBoundBeyondLoopback(configFromEnv(plan.env))).toBe(false);
  });

  it('binds ZONESCOPE_HOST when set (beyond loopback) and announces a loopback address to open', () => {
    const plan = startPlan(['-p', '4000'], { ZONESCOPE_HOST: '0.0.0.0' }, '/srv');
    expect(plan).toMatchObject({ host: '0.0.0.0', port: 4000, url: 'http://127.0.0.1:4000' });
    expect(isBoundBeyondLoopback(configFromEnv(plan.env))).toBe(true);
  });

  it('an explicit -H / --hostname wins and is passed on; PORT and --port=N choose the port', () => {
    expect(startPlan(['-H', '10.0.0.5'], {}, '/srv').env.ZONESCOPE_HOST).toBe('10.0.0.5');
    const long = startPlan(['--hostname=::1', '--port=8080'], { ZONESCOPE_HOST: '0.0.0.0', PORT: '9' }, '/srv');
    expect(long).toMatchObject({ host: '::1', port: 8080, url: 'http://[::1]:8080' });
    expect(long.env.HOSTNAME).toBe('::1');
    expect(startPlan([], { PORT: '4321' }, '/srv').port).toBe(4321);
  });

  it('keeps idle connections 65 s unless KEEP_ALIVE_TIMEOUT says otherwise', () => {
    expect(startPlan([], {}, '/srv').env.KEEP_ALIVE_TIMEOUT).toBe('65000');
    expect(startPlan([], { KEEP_ALIVE_TIMEOUT: '120000' }, '/srv').env.KEEP_ALIVE_TIMEOUT).toBe('120000');
  });

  it('refuses unknown arguments and bad ports with a clear message', () => {
    expect(() => startPlan(['--turbo'], {}, '/srv')).toThrow(new StartUsageError('unknown argument "--turbo" (npm start takes -p/--port and -H/--hostname)'));
    expect(() => startPlan(['-p', 'http'], {}, '/srv')).toThrow('-p must be a port number (1–65535), not "http"');
    expect(() => startPlan([], { PORT: '70000' }, '/srv')).toThrow('PORT must be a port number');
    expect(() => startPlan(['-H'], {}, '/srv')).toThrow('-H needs a value');
  });

  it('takes an option given again at its last value, and refuses a missing value or a stray argument', () => {
    expect(startPlan(['-p', '4000', '--port=5000', '-H', 'a', '--hostname', 'b'], {}, '/srv')).toMatchObject({ host: 'b', port: 5000 });
    expect(() => startPlan(['-p', 'http', '-p', '4000'], {}, '/srv')).toThrow('-p must be a port number (1–65535), not "http"');
    expect(() => startPlan(['--port'], {}, '/srv')).toThrow(new StartUsageError('--port needs a value'));
    expect(() => startPlan(['--hostname='], {}, '/srv')).toThrow(new StartUsageError('--hostname needs a value'));
    expect(() => startPlan(['-H', '--port', '4000'], {}, '/srv')).toThrow(new StartUsageError('-H needs a value'));
    expect(() => startPlan(['4000'], {}, '/srv')).toThrow(new StartUsageError('unknown argument "4000" (npm start takes -p/--port and -H/--hostname)'));
    expect(() => startPlan(['-x'], {}, '/srv')).toThrow(new StartUsageError('unknown argument "-x" (npm start takes -p/--port and -H/--hostname)'));
  });

  it('makes relative kubeconfig and snapshot paths absolute (the server runs in its own folder)', () => {
    const plan = startPlan([], { KUBECONFIG: `.sim/kubeconfig${path.delimiter}/etc/kube/config`, ZONESCOPE_SNAPSHOT: 'dump.yaml' }, '/srv/zonescope');
    expect(plan.env.KUBECONFIG).toBe(`${path.resolve('/srv/zonescope/.sim/kubeconfig')}${path.delimiter}/etc/kube/config`);
    expect(plan.env.ZONESCOPE_SNAPSHOT).toBe(path.resolve('/srv/zonescope/dump.yaml'));
  });

  it('browses wildcard binds on loopback and brackets IPv6', () => {
    expect(browseUrl('::', 3000)).toBe('http://[::1]:3000');
    expect(browseUrl('192.168.1.4', 80)).toBe('http://192.168.1.4:80');
  });
});

describe('the standalone build', () => {
  let root = '';
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('gets its static files linked next to server.js, once', () => {
    root = mkdtempSync(path.join(tmpdir(), 'zonescope-start-'));
    const dist = path.join(root, '.next');
    mkdirSync(path.join(dist, 'standalone', '.next'), { recursive: true });
    mkdirSync(path.join(dist, 'static', 'chunks'), { recursive: true });
    mkdirSync(path.join(root, 'public'));
    writeFileSync(path.join(dist, 'standalone', 'server.js'), '');
    expect(prepareStandalone(root, dist)).toBe(path.join(dist, 'standalone', 'server.js'));
    expect(readlinkSync(path.join(dist, 'standalone', '.next', 'static'))).toBe(path.join(dist, 'static'));
    expect(readlinkSync(path.join(dist, 'standalone', 'public'))).toBe(path.join(root, 'public'));
    // A second start leaves them as they are.
    expect(() => prepareStandalone(root, dist)).not.toThrow();
  });

  it('says to build first when there is no standalone server', () => {
    root = mkdtempSync(path.join(tmpdir(), 'zonescope-start-'));
    expect(() => prepareStandalone(root, path.join(root, '.next'))).toThrow('there is no production build in .next (no standalone/server.js): run npm run build first');
  });
});

describe('waiting for the server', () => {
  it('counts any answer as ready and leaves no connection open to the server (it polls from the server\'s own process)', async () => {
    const server = createServer((_request, response) => response.writeHead(503).end('syncing'));
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      expect(await waitForServer(`http://127.0.0.1:${port}`, () => true, 10_000)).toBe(true);
      const open = () => new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
      await expect.poll(open, { timeout: 5_000 }).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('gives up after its time limit when nothing answers', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    expect(await waitForServer(`http://127.0.0.1:${port}`, () => true, 500)).toBe(false);
  });
});

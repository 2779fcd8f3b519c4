/**
 * The toggle when the dashboard listens beyond loopback (`ZONESCOPE_HOST` unset or not loopback),
 * against eks-demo on the simulator over real HTTP: writes are refused with 403
 * `unauthenticated-write:topology-mode` (nothing is written, nothing audited) and the state says
 * read-only with the reason, unless the authenticating proxy is declared (and its user header is
 * on the request, with the proxy's secret as proof) or unauthenticated writes are explicitly allowed.
 * The secret never reaches an answer or a log line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ApiErrorResponse, TopologyModeResponse } from '../../../../../../../lib/views/api-types';
import { apiRequest, freshClusterPerTest, harnessForFile, readJson, routeContext, sameOriginHeaders } from '../../../../_testing/harness';
import { GET, PUT } from './route';

const harness = harnessForFile();
const logged = freshClusterPerTest(harness);

const SECRET = '9f86d081884c7d659a2feaa0c55ad015';
const secretDir = mkdtempSync(path.join(tmpdir(), 'zonescope-proxy-secret-'));
afterAll(() => rmSync(secretDir, { recursive: true, force: true }));
let secretFiles = 0;
/** Declares the auth proxy, with a new secret file (the secret is read once per file). */
function declareAuthProxy(): void {
  const file = path.join(secretDir, `secret-${secretFiles++}`);
  writeFileSync(file, `${SECRET}\n`);
  process.env.ZONESCOPE_AUTH_PROXY = '1';
  process.env.ZONESCOPE_AUTH_PROXY_SECRET_FILE = file;
}

const NS = 'shop';
const NAME = 'recommendations';
const PATH = `/api/v1/services/${NS}/${NAME}/topology-mode`;
const patches = (): number => harness().sim.stats.count('patch', 'services');

async function state(): Promise<TopologyModeResponse> {
  const response = await GET(apiRequest(PATH), routeContext({ namespace: NS, name: NAME }));
  expect(response.status).toBe(200);
  return readJson<TopologyModeResponse>(response);
}

async function putAuto(extra: Record<string, string> = {}): Promise<Response> {
  const { resourceVersion } = await state();
  return PUT(apiRequest(PATH, { method: 'PUT', body: '{"mode":"Auto"}', headers: sameOriginHeaders(resourceVersion, extra) }), routeContext({ namespace: NS, name: NAME }));
}

describe('beyond loopback', () => {
  for (const [label, host] of [['ZONESCOPE_HOST unset (Next.js binds every interface)', undefined], ['ZONESCOPE_HOST=0.0.0.0', '0.0.0.0']] as const) {
    it(`refuses a same-origin write with 403 unauthenticated-write and says what to configure (${label})`, async () => {
      if (host === undefined) delete process.env.ZONESCOPE_HOST;
      else process.env.ZONESCOPE_HOST = host;
      const toggle = await state();
      expect(toggle.readOnly).toBe(true);
      expect(toggle.canPatch).toBe(false);
      expect(toggle.readOnlyReason).toMatch(/ZONESCOPE_AUTH_PROXY=1.*ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES=1/);
      expect(toggle.notAllowedReason).toBe(toggle.readOnlyReason);
      const response = await putAuto();
      expect(response.status).toBe(403);
      const body = await readJson<ApiErrorResponse>(response);
      expect(body.error.code).toBe('unauthenticated-write:topology-mode');
      expect(body.error.message).toMatch(/ZONESCOPE_AUTH_PROXY=1/);
      expect(patches()).toBe(0);
      expect(logged().filter((line) => line.includes('zonescope.audit'))).toEqual([]);
    });
  }

  it('behind the declared auth proxy: writes with its user header and its secret, refuses without either', async () => {
    process.env.ZONESCOPE_HOST = '0.0.0.0';
    declareAuthProxy();
    const errors = vi.spyOn(console, 'error');
    const warnings = vi.spyOn(console, 'warn');
    const bodies: string[] = [];
    const answer = async (response: Response) => {
      const text = await response.text();
      bodies.push(text, JSON.stringify([...response.headers]));
      return { status: response.status, message: response.status === 200 ? '' : (JSON.parse(text) as ApiErrorResponse).error.message };
    };
    expect((await state()).readOnly).toBe(false);
    const bypass = await answer(await putAuto());
    expect(bypass.status).toBe(403);
    expect(bypass.message).toMatch(/X-Forwarded-User/);
    // A client reaching the Pod directly can send a user header, but not the secret: no user.
    const forged = await answer(await putAuto({ 'x-forwarded-user': 'mallory' }));
    expect(forged).toEqual({ status: 403, message: expect.stringMatching(/names a user, but it carries no X-Zonescope-Proxy-Secret header, so it counts as having no user/) as unknown as string });
    const guessed = await answer(await putAuto({ 'x-forwarded-user': 'mallory', 'x-zonescope-proxy-secret': 'guessed-guessed-guessed' }));
    expect(guessed).toEqual({ status: 403, message: expect.stringMatching(/its X-Zonescope-Proxy-Secret header is not the proxy's secret/) as unknown as string });
    expect(patches()).toBe(0);
    expect(logged().filter((line) => line.includes('zonescope.audit'))).toEqual([]);
    const proxied = await answer(await putAuto({ 'x-forwarded-user': 'alice', 'x-zonescope-proxy-secret': SECRET }));
    expect(proxied.status).toBe(200);
    expect(patches()).toBe(1);
    expect(logged().some((line) => line.includes('"user":"alice"'))).toBe(true);
    // Neither the secret nor a guess at it reaches an answer or a log line.
    const logs = [...logged(), ...[...errors.mock.calls, ...warnings.mock.calls].map((args) => args.map(String).join(' '))];
    for (const text of [...bodies, ...logs, JSON.stringify(await state())]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('guessed');
    }
  });

  it('with ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES=1: writes', async () => {
    process.env.ZONESCOPE_HOST = '0.0.0.0';
    process.env.ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES = '1';
    expect((await state()).readOnly).toBe(false);
    expect((await putAuto()).status).toBe(200);
    expect(patches()).toBe(1);
  });

  it('on loopback (npm start\'s default): writes without a proxy', async () => {
    process.env.ZONESCOPE_HOST = '127.0.0.1';
    expect((await putAuto()).status).toBe(200);
  });
});

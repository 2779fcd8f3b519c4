/**
 * The toggle when the dashboard listens beyond loopback (`ZONESCOPE_HOST` unset or not loopback),
 * against eks-demo on the simulator over real HTTP: writes are refused with 403
 * `unauthenticated-write:topology-mode` (nothing is written, nothing audited) and the state says
 * read-only with the reason, unless the authenticating proxy is declared (and its user header is
 * on the request) or unauthenticated writes are explicitly allowed.
 */
import { describe, expect, it } from 'vitest';
import type { ApiErrorResponse, TopologyModeResponse } from '../../../../../../../lib/views/api-types';
import { apiRequest, freshClusterPerTest, harnessForFile, readJson, routeContext, sameOriginHeaders } from '../../../../_testing/harness';
import { GET, PUT } from './route';

const harness = harnessForFile();
const logged = freshClusterPerTest(harness);

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

  it('behind the declared auth proxy: writes with its user header, refuses without it', async () => {
    process.env.ZONESCOPE_HOST = '0.0.0.0';
    process.env.ZONESCOPE_AUTH_PROXY = '1';
    expect((await state()).readOnly).toBe(false);
    const bypass = await putAuto();
    expect(bypass.status).toBe(403);
    expect((await readJson<ApiErrorResponse>(bypass)).error.message).toMatch(/X-Forwarded-User/);
    expect(patches()).toBe(0);
    const proxied = await putAuto({ 'x-forwarded-user': 'alice' });
    expect(proxied.status).toBe(200);
    expect(patches()).toBe(1);
    expect(logged().some((line) => line.includes('"user":"alice"'))).toBe(true);
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

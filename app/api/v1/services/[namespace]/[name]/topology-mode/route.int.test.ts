/**
 * The topology-mode toggle (`GET`/`PUT …/topology-mode`) against eks-demo on the simulator over
 * real HTTP: state and permission, the version-aware guarded write and the controller's reaction,
 * every refusal (body, precondition, cross-site, read-only, RBAC), concurrency (409, a
 * concurrent label change, a double submit writing once), faults (a hung PATCH, a connection reset
 * before or after the write was applied, a 500/504 with or without it → 504 resolved by re-reading
 * into applied / not-applied / unknown; 429 with Retry-After; 5xx without leaks), the prediction
 * against what the simulator's controller then writes, and the audit log.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiErrorResponse, ServiceResponse, TopologyModePutResponse, TopologyModeResponse } from '../../../../../../../lib/views/api-types';
import { waitForAnalysis } from '../../../../../../../lib/server/analysis';
import { getClusterSource, resetClusterSource } from '../../../../../../../lib/k8s/source';
import {
  apiRequest, BAD_NAMES, eventually, nonWatchRequests, ORIGIN, readJson, routeContext, sameOriginHeaders, freshClusterPerTest, harnessForFile,
} from '../../../../_testing/harness';
import { GET as getService } from '../route';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';

const MODE = 'service.kubernetes.io/topology-mode';
const LEGACY = 'service.kubernetes.io/topology-aware-hints';

const harness = harnessForFile();
const logged = freshClusterPerTest(harness);

/** The auth proxy's secret, and the header with which its requests prove they came through it. */
const PROXY_SECRET = '4b227777d4dd1fc61c6f884f48641d02';
const PROXIED = { 'x-zonescope-proxy-secret': PROXY_SECRET };
const secretDir = mkdtempSync(join(tmpdir(), 'zonescope-proxy-secret-'));
afterAll(() => rmSync(secretDir, { recursive: true, force: true }));
let secretFiles = 0;
/** `ZONESCOPE_AUTH_PROXY=1` with its secret file (a new one each time: the secret is read once per file). */
function declareAuthProxy(): void {
  const file = join(secretDir, `secret-${secretFiles++}`);
  writeFileSync(file, PROXY_SECRET);
  process.env.ZONESCOPE_AUTH_PROXY = '1';
  process.env.ZONESCOPE_AUTH_PROXY_SECRET_FILE = file;
}

const path = (namespace: string, name: string): string => `/api/v1/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/topology-mode`;

async function state(namespace: string, name: string): Promise<TopologyModeResponse> {
  const response = await GET(apiRequest(path(namespace, name)), routeContext({ namespace, name }));
  expect(response.status).toBe(200);
  const body = await readJson<TopologyModeResponse>(response);
  expect(response.headers.get('etag')).toBe(`"${body.resourceVersion}"`);
  return body;
}

function put(namespace: string, name: string, init: { body?: string; headers?: Record<string, string> }): Promise<Response> {
  return PUT(apiRequest(path(namespace, name), { method: 'PUT', ...init }), routeContext({ namespace, name }));
}

function putMode(namespace: string, name: string, mode: string, ifMatch: string, extra: Record<string, string> = {}): Promise<Response> {
  return put(namespace, name, { body: JSON.stringify({ mode }), headers: sameOriginHeaders(ifMatch, extra) });
}

async function expectError(response: Response, status: number, code: string): Promise<ApiErrorResponse> {
  expect(response.status).toBe(status);
  const body = await readJson<ApiErrorResponse>(response);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  return body;
}

const patches = (): number => harness().sim.stats.count('patch', 'services');
const reviews = (): number => harness().sim.stats.count('create', 'selfsubjectaccessreviews');

function auditLines(): Record<string, unknown>[] {
  return logged().filter((line) => line.includes('"zonescope.audit"')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Another client (kubectl, a controller) writing the Service directly. */
async function otherClientPatch(namespace: string, name: string, body: unknown): Promise<void> {
  const response = await fetch(`${harness().sim.url}/api/v1/namespaces/${namespace}/services/${name}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json', authorization: 'Bearer zonescope-sim-token' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}

async function simService(namespace: string, name: string): Promise<{ metadata: { resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string> } }> {
  const response = await fetch(`${harness().sim.url}/api/v1/namespaces/${namespace}/services/${name}`, { headers: { authorization: 'Bearer zonescope-sim-token' } });
  return (await response.json()) as { metadata: { resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string> } };
}

describe('GET …/topology-mode', () => {
  it('shows a Service without annotation: allowed, the 1.27+ key, both edits and the prediction', async () => {
    const body = await state('shop', 'recommendations');
    expect(body).toMatchObject({
      namespace: 'shop',
      name: 'recommendations',
      readOnly: false,
      readOnlyReason: null,
      canPatch: true,
      notAllowedReason: null,
      release: '1.31',
      minor: 31,
      key: MODE,
      current: { effectiveKey: null, value: null, legacyKeyPresent: false, enabled: false, topologyMode: null, topologyAwareHints: null },
      change: { enable: { set: { [MODE]: 'Auto' }, remove: [] }, disable: { set: {}, remove: [] } },
      prediction: { hintsEnabled: true },
    });
    expect(body.current.resourceVersion).toBe(body.resourceVersion);
    expect(body.prediction.crossZoneFractionIfAuto).toBeLessThan(body.prediction.crossZoneFractionNow);
    expect(Object.keys(body.prediction.hintCountsByZone).sort()).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
    expect(body.prediction.monthlyCost.ifAuto.monthlyCost).toBeLessThan(body.prediction.monthlyCost.now.monthlyCost);
  });

  it('caches the SelfSubjectAccessReview per Service so page views do not storm the API server', async () => {
    const before = reviews();
    await state('shop', 'recommendations');
    await state('shop', 'recommendations');
    await Promise.all([state('shop', 'recommendations'), state('shop', 'recommendations')]);
    expect(reviews() - before).toBe(1);
    await state('shop', 'cart');
    expect(reviews() - before).toBe(2);
  });

  it('shows the leftover legacy key, which wins on 1.27+, and the edit that removes it', async () => {
    const body = await state('platform', 'auth');
    expect(body.current).toMatchObject({ effectiveKey: LEGACY, value: 'auto', legacyKeyPresent: true, enabled: true, topologyMode: 'Disabled', topologyAwareHints: 'auto' });
    expect(body.change.enable).toMatchObject({ set: { [MODE]: 'Auto' }, remove: [LEGACY] });
    expect(body.change.enable.annotations).not.toHaveProperty(LEGACY);
  });

  it('says not permitted when RBAC denies patching the Service', async () => {
    harness().sim.faults.deny({ verbs: ['patch'], resources: ['services'], namespaces: ['payments'] });
    const body = await state('payments', 'fraud-check');
    expect(body.canPatch).toBe(false);
    // The identity comes from a SelfSubjectReview: the user the simulator's RBAC knows.
    expect(body.notAllowedReason).toBe(
      'Not permitted: system:serviceaccount:zonescope:zonescope may not patch Services in "payments" in cluster zonescope-sim. The RBAC rule that grants it: apiGroups: [""], resources: ["services"], verbs: ["patch"].',
    );
    expect(body.permissionCheckFailed).toBe(false);
    expect((await state('shop', 'recommendations')).canPatch).toBe(true);
  });

  it('says the permission check could not run (not "not permitted") when the review itself fails', async () => {
    harness().sim.faults.add({ type: 'error', code: 500, verbs: ['create'], resources: ['selfsubjectaccessreviews'], count: 1 });
    const body = await state('shop', 'recommendations');
    expect(body.canPatch).toBe(false);
    expect(body.permissionCheckFailed).toBe(true);
    expect(body.notAllowedReason).toMatch(/^Could not check permissions: the SelfSubjectAccessReview failed \(.+\)\. This is not an RBAC denial; the check is retried in a few seconds\.$/);
  });

  it('says the API server is unreachable, not an RBAC problem, when the permission check cannot reach it', async () => {
    harness().sim.faults.add({ type: 'reset', afterApply: false, verbs: ['create'], resources: ['selfsubjectaccessreviews'], count: 1 });
    const body = await state('shop', 'recommendations');
    expect(body.canPatch).toBe(false);
    expect(body.notAllowedReason).toMatch(/^Could not check permissions: the API server is unreachable \(.+\)\. This is not an RBAC denial; the toggle is enabled once the check succeeds\.$/);
    expect(body.notAllowedReason).not.toMatch(/Not permitted|permission check failed/i);
    expect(body.permissionCheckFailed).toBe(true);
  });

  it('answers 404 not-found:service for an unknown Service', async () => {
    const response = await GET(apiRequest(path('shop', 'ghost')), routeContext({ namespace: 'shop', name: 'ghost' }));
    await expectError(response, 404, 'not-found:service');
  });

  it.each(BAD_NAMES)('answers 400 for a $label (GET and PUT) before any cluster call', async ({ namespace, name }) => {
    const before = nonWatchRequests(harness().sim);
    await expectError(await GET(apiRequest('/api/v1/services/x/y/topology-mode'), routeContext({ namespace, name })), 400, 'bad-request:topology-mode');
    await expectError(await putMode(namespace, name, 'Auto', '1'), 400, 'bad-request:topology-mode');
    expect(nonWatchRequests(harness().sim)).toBe(before);
  });
});

/** Zone-hint counts of ready endpoints on the simulator's own EndpointSlices of a Service (what its controller wrote). */
async function simHintCounts(namespace: string, name: string): Promise<Record<string, number>> {
  const selector = encodeURIComponent(`kubernetes.io/service-name=${name}`);
  const response = await fetch(`${harness().sim.url}/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=${selector}`, { headers: { authorization: 'Bearer zonescope-sim-token' } });
  const list = (await response.json()) as { items: { endpoints?: { conditions?: { ready?: boolean }; hints?: { forZones?: { name: string }[] } }[] }[] };
  const counts: Record<string, number> = {};
  for (const slice of list.items) {
    for (const endpoint of slice.endpoints ?? []) {
      if (endpoint.conditions?.ready !== true) continue;
      for (const zone of endpoint.hints?.forZones ?? []) counts[zone.name] = (counts[zone.name] ?? 0) + 1;
    }
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function serviceDetail(namespace: string, name: string): Promise<ServiceResponse> {
  const response = await getService(apiRequest(`/api/v1/services/${namespace}/${name}`), routeContext({ namespace, name }));
  expect(response.status).toBe(200);
  return readJson<ServiceResponse>(response);
}

describe('the prediction follows the whole mechanism precedence (annotation, legacy key, trafficDistribution, policies)', () => {
  /** PUT the mode, wait until the dashboard sees the controller's slices for the new Service, and return the Service view. */
  async function putAndFollow(namespace: string, name: string, mode: 'Auto' | 'Disabled', ifMatch: string): Promise<ServiceResponse> {
    const response = await putMode(namespace, name, mode, ifMatch);
    expect(response.status).toBe(200);
    const written = await readJson<TopologyModePutResponse>(response);
    return eventually(async () => {
      const detail = await serviceDetail(namespace, name);
      if (detail.resourceVersion !== written.result.resourceVersion || !detail.diff.inSync) return null;
      return JSON.stringify(detail.observed.hintCountsByZone) === JSON.stringify(await simHintCounts(namespace, name)) ? detail : null;
    }, 10_000, 'the controller to rewrite the slices');
  }

  it('Disable on payments/notifier (Auto + trafficDistribution): trafficDistribution keeps hints, as the controller then writes', async () => {
    const before = await state('payments', 'notifier');
    const { now, disable } = before.prediction;
    expect(now).toMatchObject({ mechanism: 'topology-mode', hintsEnabled: true, crossZoneFraction: 0 });
    expect(disable).toMatchObject({ mechanism: 'trafficDistribution', hintsEnabled: true, crossZoneFraction: 0 });
    expect(disable.text).toBe(
      'hints stay on, cross-zone stays 0.0 % (trafficDistribution PreferClose keeps hints when topology mode is disabled)',
    );
    const after = await putAndFollow('payments', 'notifier', 'Disabled', before.resourceVersion);
    expect(after.mechanism).toBe(disable.mechanism);
    expect(after.observed.hintsPresent).toBe(disable.hintsEnabled);
    expect(after.observed.hintCountsByZone).toEqual(disable.hintCountsByZone);
    expect(await simHintCounts('payments', 'notifier')).toEqual(disable.hintCountsByZone);
    expect(after.traffic.crossZoneFraction).toBeCloseTo(disable.crossZoneFraction, 10);
    // The toggle's "now" after the write is what it predicted.
    const later = await state('payments', 'notifier');
    expect(later.prediction.now).toMatchObject({ mechanism: disable.mechanism, hintsEnabled: disable.hintsEnabled, crossZoneFraction: disable.crossZoneFraction });
  });

  it('Enable on payments/fraud-check (trafficDistribution only): the annotation takes over and Auto turns hints off, as the controller then writes', async () => {
    const before = await state('payments', 'fraud-check');
    const { now, enable } = before.prediction;
    expect(now).toMatchObject({ mechanism: 'trafficDistribution', hintsEnabled: true, crossZoneFraction: 0 });
    expect(enable).toMatchObject({ mechanism: 'topology-mode', hintsEnabled: false });
    expect(enable.crossZoneFraction).toBeCloseTo(2 / 3, 3);
    expect(enable.text).toMatch(/^hints turn off, cross-zone 0\.0 % → 66\.7 % \(topology-mode Auto overrides trafficDistribution PreferClose: /);
    expect(before.prediction.hintsEnabled).toBe(false);
    const after = await putAndFollow('payments', 'fraud-check', 'Auto', before.resourceVersion);
    expect(after.mechanism).toBe(enable.mechanism);
    expect(after.observed.hintsPresent).toBe(enable.hintsEnabled);
    expect(after.observed.hintCountsByZone).toEqual(enable.hintCountsByZone);
    expect(await simHintCounts('payments', 'fraud-check')).toEqual(enable.hintCountsByZone);
    expect(after.traffic.crossZoneFraction).toBeCloseTo(enable.crossZoneFraction, 10);
  });

  it('names internalTrafficPolicy Local, which overrides hints either way (platform/node-metrics)', async () => {
    const body = await state('platform', 'node-metrics');
    expect(body.prediction.disable.text).toMatch(/internalTrafficPolicy Local/);
    expect(body.prediction.enable.text).toMatch(/internalTrafficPolicy Local/);
  });

  it('predicts the legacy key\'s removal: Disable on platform/auth (legacy auto shadowing Disabled) turns hints off', async () => {
    const body = await state('platform', 'auth');
    expect(body.prediction.now).toMatchObject({ mechanism: 'legacy-annotation' });
    expect(body.prediction.disable).toMatchObject({ mechanism: 'none', hintsEnabled: false });
    expect(body.prediction.enable).toMatchObject({ mechanism: 'topology-mode' });
  });
});

describe('PUT …/topology-mode', () => {
  it('enables topology mode with one guarded patch, audits it, and the controller then writes hints', async () => {
    const before = await state('shop', 'recommendations');
    const response = await putMode('shop', 'recommendations', 'Auto', before.resourceVersion);
    expect(response.status).toBe(200);
    const body = await readJson<TopologyModePutResponse>(response);
    expect(body).toEqual({
      result: { status: 'applied', resourceVersion: expect.stringMatching(/^\d+$/), annotations: { [MODE]: 'Auto' }, mode: 'Auto', change: { set: { [MODE]: 'Auto' }, remove: [] } },
    });
    expect(body.result.resourceVersion).not.toBe(before.resourceVersion);
    expect(response.headers.get('etag')).toBe(`"${body.result.resourceVersion}"`);
    expect(auditLines()).toEqual([
      {
        ts: expect.any(String), type: 'zonescope.audit', action: 'set-topology-mode', cluster: before.cluster.name, context: 'zonescope-sim', user: 'anonymous', service: 'shop/recommendations', from: null,
        to: `${MODE}=Auto`, ifMatch: before.resourceVersion, outcome: 'applied', resourceVersion: body.result.resourceVersion, auditId: null,
      },
    ]);
    // The simulated EndpointSlice controller reacts as a real one: hints arrive on the slices.
    const detail = await eventually(async () => {
      const res = await getService(apiRequest('/api/v1/services/shop/recommendations'), routeContext({ namespace: 'shop', name: 'recommendations' }));
      const service = await readJson<ServiceResponse>(res);
      return Object.keys(service.observed.hintCountsByZone).length > 0 ? service : null;
    }, 10_000, 'hints on the slices');
    expect(detail.mechanism).toBe('topology-mode');
    expect(detail.observed.hintsPresent).toBe(true);
    expect(detail.resourceVersion).toBe(body.result.resourceVersion);
  });

  it('removes the leftover legacy key in the same patch, and disables again', async () => {
    const before = await state('platform', 'auth');
    const enabled = await readJson<TopologyModePutResponse>(await putMode('platform', 'auth', 'Auto', before.resourceVersion));
    expect(enabled.result.annotations).toEqual({ [MODE]: 'Auto' });
    expect(enabled.result.change).toEqual({ set: { [MODE]: 'Auto' }, remove: [LEGACY] });
    expect((await simService('platform', 'auth')).metadata.annotations).not.toHaveProperty(LEGACY);
    await eventually(async () => (await state('platform', 'auth')).resourceVersion === enabled.result.resourceVersion, 5000, 'the watch to deliver the write');
    const disabled = await readJson<TopologyModePutResponse>(await putMode('platform', 'auth', 'Disabled', enabled.result.resourceVersion));
    expect(disabled.result.annotations).toEqual({});
    expect(auditLines().map((line) => [line.from, line.to, line.outcome])).toEqual([
      [`${LEGACY}=auto`, `${MODE}=Auto`, 'applied'],
      [`${MODE}=Auto`, null, 'applied'],
    ]);
  });

  it('enable then disable on a Service that had no topology annotation leaves it with none, and the audit names the cluster as the header does', async () => {
    const before = await state('shop', 'recommendations');
    expect(before.current.topologyMode).toBeNull();
    const enabled = await readJson<TopologyModePutResponse>(await putMode('shop', 'recommendations', 'Auto', before.resourceVersion));
    expect(enabled.result.annotations).toEqual({ [MODE]: 'Auto' });
    await eventually(async () => (await state('shop', 'recommendations')).resourceVersion === enabled.result.resourceVersion, 5000, 'the watch to deliver the write');
    const disabled = await readJson<TopologyModePutResponse>(await putMode('shop', 'recommendations', 'Disabled', enabled.result.resourceVersion));
    expect(disabled.result).toMatchObject({ status: 'applied', mode: 'Disabled', annotations: {}, change: { set: {} } });
    const annotations = (await simService('shop', 'recommendations')).metadata.annotations ?? {};
    expect(annotations).not.toHaveProperty(MODE);
    expect(annotations).not.toHaveProperty(LEGACY);
    const after = await eventually(async () => {
      const current = await state('shop', 'recommendations');
      return current.resourceVersion === disabled.result.resourceVersion ? current : null;
    }, 5000, 'the watch to deliver the removal');
    expect(after.current).toMatchObject({ topologyMode: null, topologyAwareHints: null, enabled: false });
    expect(auditLines().map((line) => [line.cluster, line.from, line.to])).toEqual([
      [before.cluster.name, null, `${MODE}=Auto`],
      [before.cluster.name, `${MODE}=Auto`, null],
    ]);
  });

  it('gives the second of two writes from the same resourceVersion a 409 with the current value', async () => {
    const seen = await state('shop', 'recommendations');
    const first = await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion);
    expect(first.status).toBe(200);
    const winner = await readJson<TopologyModePutResponse>(first);
    const second = await expectError(await putMode('shop', 'recommendations', 'Disabled', seen.resourceVersion), 409, 'conflict:topology-mode');
    expect(second.current).toMatchObject({ resourceVersion: winner.result.resourceVersion, effectiveKey: MODE, value: 'Auto', enabled: true });
    expect((await simService('shop', 'recommendations')).metadata.annotations?.[MODE]).toBe('Auto');
    expect(auditLines().map((line) => line.outcome)).toEqual(['applied', 'conflict']);
  });

  it('lets exactly one of two concurrent conflicting writes win', async () => {
    // platform/auth carries both keys, so Enable and Disable each change it.
    const seen = await state('platform', 'auth');
    const responses = await Promise.all([
      putMode('platform', 'auth', 'Auto', seen.resourceVersion),
      putMode('platform', 'auth', 'Disabled', seen.resourceVersion),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    const [winnerResponse, loserResponse] = responses[0]?.status === 200 ? responses : [...responses].reverse();
    if (winnerResponse === undefined || loserResponse === undefined) throw new Error('two responses expected');
    const loser = await readJson<ApiErrorResponse>(loserResponse);
    const winner = await readJson<TopologyModePutResponse>(winnerResponse);
    expect(loser.current?.enabled).toBe(winner.result.mode === 'Auto');
  });

  it('never clobbers a concurrent label change: 409 first, then the retry keeps the label', async () => {
    const seen = await state('shop', 'recommendations');
    await otherClientPatch('shop', 'recommendations', { metadata: { labels: { team: 'growth' } } });
    const conflict = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 409, 'conflict:topology-mode');
    const current = conflict.current;
    expect(current?.resourceVersion).not.toBe(seen.resourceVersion);
    expect(current?.value).toBeNull();
    const retry = await putMode('shop', 'recommendations', 'Auto', current?.resourceVersion ?? '');
    expect(retry.status).toBe(200);
    const after = await simService('shop', 'recommendations');
    expect(after.metadata.labels).toMatchObject({ team: 'growth', 'app.kubernetes.io/name': 'recommendations' });
    expect(after.metadata.annotations?.[MODE]).toBe('Auto');
  });

  it('writes once for a double-clicked submit (identical requests in flight share one PATCH)', async () => {
    const seen = await state('shop', 'recommendations');
    const before = patches();
    const responses = await Promise.all([
      putMode('shop', 'recommendations', 'Auto', seen.resourceVersion),
      putMode('shop', 'recommendations', 'Auto', seen.resourceVersion),
      putMode('shop', 'recommendations', 'Auto', seen.resourceVersion),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    const bodies = await Promise.all(responses.map((r) => readJson<TopologyModePutResponse>(r)));
    expect(new Set(bodies.map((b) => b.result.resourceVersion)).size).toBe(1);
    expect(patches() - before).toBe(1);
    // One PATCH, attributed to each of the three requests.
    expect(auditLines().map((line) => [line.outcome, line.resourceVersion, line.deduplicated])).toEqual([
      ['applied', bodies[0]?.result.resourceVersion, undefined],
      ['applied', bodies[0]?.result.resourceVersion, true],
      ['applied', bodies[0]?.result.resourceVersion, true],
    ]);
  });

  it('attributes a shared PATCH to every user who asked for it (behind the auth proxy)', async () => {
    declareAuthProxy();
    const seen = await state('shop', 'recommendations');
    const before = patches();
    const responses = await Promise.all(
      ['alice@example.com', 'bob@example.com'].map((user) => putMode('shop', 'recommendations', 'Auto', seen.resourceVersion, { 'x-forwarded-user': user, ...PROXIED })),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(patches() - before).toBe(1);
    expect(auditLines().map((line) => line.user).sort()).toEqual(['alice@example.com', 'bob@example.com']);
  });

  it('answers 403 forbidden:topology-mode when RBAC denies the patch, and the state then says not permitted', async () => {
    const seen = await state('shop', 'recommendations');
    expect(seen.canPatch).toBe(true);
    harness().sim.faults.deny({ verbs: ['patch'], resources: ['services'] });
    const body = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 403, 'forbidden:topology-mode');
    expect(body.error.message).toContain('cannot patch resource "services"');
    expect(auditLines().map((line) => line.outcome)).toEqual(['forbidden']);
    const after = await state('shop', 'recommendations');
    expect(after.canPatch).toBe(false);
    expect(after.notAllowedReason).toMatch(/^Not permitted/);
  });

  it.each(['1', 'yes', 'ON'])('refuses writes with 403 read-only:topology-mode when ZONESCOPE_READ_ONLY=%s (and skips the permission check)', async (value) => {
    process.env.ZONESCOPE_READ_ONLY = value;
    const reviewsBefore = reviews();
    const seen = await state('shop', 'recommendations');
    expect(seen).toMatchObject({ readOnly: true, canPatch: false, readOnlyReason: 'The dashboard runs read-only (ZONESCOPE_READ_ONLY is on).' });
    expect(seen.notAllowedReason).toBe(seen.readOnlyReason);
    expect(reviews()).toBe(reviewsBefore);
    const before = patches();
    await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 403, 'read-only:topology-mode');
    expect(patches()).toBe(before);
  });

  it('is read-only on a snapshot source', async () => {
    process.env.ZONESCOPE_SNAPSHOT = new URL('../../../../../../../fixtures/eks-demo.yaml', import.meta.url).pathname;
    await resetClusterSource();
    expect(await getClusterSource().waitForSync(10_000)).toBe(true);
    expect(await waitForAnalysis(10_000)).toBe(true);
    const seen = await state('shop', 'recommendations');
    expect(seen).toMatchObject({ readOnly: true, canPatch: false });
    expect(seen.readOnlyReason).toMatch(/snapshot/);
    await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 403, 'read-only:topology-mode');
  });

  it('reports a hung PATCH as 504 "outcome unknown" with the re-read Service, never as success', async () => {
    process.env.ZONESCOPE_WRITE_TIMEOUT_MS = '400';
    const seen = await state('shop', 'recommendations');
    harness().sim.faults.add({ type: 'hang', verbs: ['patch'], resources: ['services'], count: 1 });
    const body = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 504, 'timeout:topology-mode');
    expect(body.error.message).toMatch(/outcome is unknown/);
    expect(body.current).toMatchObject({ resourceVersion: seen.resourceVersion, value: null });
    expect(body).toMatchObject({ outcome: 'not-applied', cause: 'timeout' });
    expect(auditLines().map((line) => [line.outcome, line.cause])).toEqual([['not-applied', 'timeout']]);
    // Resolved by re-reading: nothing changed, so the same write can be retried.
    expect((await state('shop', 'recommendations')).current.value).toBeNull();
    expect((await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion)).status).toBe(200);
  });

  describe('resolves an unknown outcome by re-reading the Service (504 with outcome)', () => {
    const target = { verbs: ['patch'], resources: ['services'], count: 1 };

    it('a PATCH the API server applied before the connection was reset: outcome applied', async () => {
      const seen = await state('shop', 'recommendations');
      harness().sim.faults.add({ type: 'reset', afterApply: true, ...target });
      const body = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 504, 'timeout:topology-mode');
      expect(body).toMatchObject({ outcome: 'applied', cause: 'connection-lost' });
      expect(body.error.message).toMatch(/was applied/);
      expect(body.current).toMatchObject({ effectiveKey: MODE, value: 'Auto', enabled: true });
      expect(body.current?.resourceVersion).not.toBe(seen.resourceVersion);
      expect((await simService('shop', 'recommendations')).metadata.annotations?.[MODE]).toBe('Auto');
      expect(auditLines().map((line) => [line.outcome, line.cause, line.resourceVersion])).toEqual([['applied', 'connection-lost', body.current?.resourceVersion]]);
    });

    it('a connection reset before the PATCH was applied: outcome not-applied, and the same write can be retried', async () => {
      const seen = await state('shop', 'recommendations');
      harness().sim.faults.add({ type: 'reset', ...target });
      const body = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 504, 'timeout:topology-mode');
      expect(body).toMatchObject({ outcome: 'not-applied', cause: 'connection-lost' });
      expect(body.error.message).toMatch(/was not applied/);
      expect(body.current).toMatchObject({ resourceVersion: seen.resourceVersion, value: null });
      expect(auditLines().map((line) => [line.outcome, line.cause])).toEqual([['not-applied', 'connection-lost']]);
      expect((await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion)).status).toBe(200);
    });

    it.each([
      ['500 "etcdserver: request timed out"', { code: 500, message: 'etcdserver: request timed out' }],
      ['500 ServerTimeout', { code: 500, reason: 'ServerTimeout' as const, message: 'The server was unable to respond in time' }],
      ['504 Timeout', { code: 504 }],
    ])('%s after the PATCH was applied: outcome applied', async (_label, fault) => {
      const seen = await state('shop', 'recommendations');
      harness().sim.faults.add({ type: 'errorAfterApply', ...fault, ...target });
      const body = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 504, 'timeout:topology-mode');
      expect(body).toMatchObject({ outcome: 'applied', cause: fault.code === 504 ? 'timeout' : 'server-error' });
      expect(body.current).toMatchObject({ value: 'Auto' });
      expect(auditLines().map((line) => line.outcome)).toEqual(['applied']);
    });

    it.each([
      ['500 "etcdserver: request timed out"', { code: 500, message: 'etcdserver: request timed out' }],
      ['500 ServerTimeout', { code: 500, reason: 'ServerTimeout' as const, message: 'The server was unable to respond in time' }],
      ['504 Timeout', { code: 504 }],
    ])('%s without the PATCH applied: outcome not-applied', async (_label, fault) => {
      const seen = await state('shop', 'recommendations');
      harness().sim.faults.add({ type: 'error', ...fault, ...target });
      const body = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 504, 'timeout:topology-mode');
      expect(body).toMatchObject({ outcome: 'not-applied', cause: fault.code === 504 ? 'timeout' : 'server-error' });
      expect(body.current).toMatchObject({ resourceVersion: seen.resourceVersion, value: null });
      expect(auditLines().map((line) => line.outcome)).toEqual(['not-applied']);
    });

    it('stays unknown when the re-read fails too', async () => {
      const seen = await state('shop', 'recommendations');
      harness().sim.faults.add({ type: 'reset', afterApply: true, ...target });
      harness().sim.faults.add({ type: 'error', code: 503, verbs: ['get'], resources: ['services'], names: ['recommendations'], count: 1 });
      const body = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 504, 'timeout:topology-mode');
      expect(body).toMatchObject({ outcome: 'unknown', cause: 'connection-lost', current: null });
      expect(body.error.message).toMatch(/outcome is unknown/);
      expect(auditLines().map((line) => [line.outcome, line.cause])).toEqual([['unknown', 'connection-lost']]);
    });
  });

  it('passes 429 Too Many Requests through with Retry-After', async () => {
    const seen = await state('shop', 'recommendations');
    harness().sim.faults.add({ type: 'error', code: 429, retryAfterSeconds: 7, verbs: ['patch'], resources: ['services'], count: 1 });
    const response = await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion);
    await expectError(response, 429, 'too-many-requests:topology-mode');
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('treats an API server 500 as outcome unknown (504, re-read) without leaking tokens, headers or stacks', async () => {
    const seen = await state('shop', 'recommendations');
    harness().sim.faults.add({
      type: 'error', code: 500, verbs: ['patch'], resources: ['services'], count: 1,
      message: 'etcd exploded; Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl token=hunter2',
    });
    const response = await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion);
    const text = await response.clone().text();
    const body = await expectError(response, 504, 'timeout:topology-mode');
    expect(body.current).toMatchObject({ resourceVersion: seen.resourceVersion, value: null });
    expect(body).toMatchObject({ outcome: 'not-applied', cause: 'server-error' });
    for (const secret of ['hunter2', 'eyJhbGci', 'zonescope-sim-token', 'Authorization: Bearer e', '    at ', 'content-type']) expect(text).not.toContain(secret);
    expect(text).toContain('etcd exploded');
  });

  it.each([
    [503, 503, 'unavailable:topology-mode'],
    [422, 422, 'invalid:topology-mode'],
  ])('maps an API server %i to %i %s with the re-read value', async (code, status, expected) => {
    const seen = await state('shop', 'recommendations');
    harness().sim.faults.add({ type: 'error', code, verbs: ['patch'], resources: ['services'], count: 1 });
    const body = await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), status, expected);
    expect(body.current).toMatchObject({ resourceVersion: seen.resourceVersion, value: null });
  });

  it('answers 503 syncing:topology-mode before the first sync, without writing', async () => {
    const seen = await state('shop', 'recommendations');
    await resetClusterSource();
    getClusterSource();
    const before = patches();
    await expectError(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion), 503, 'syncing:topology-mode');
    expect(patches()).toBe(before);
  });

  it('answers 404 not-found:service when the Service does not exist', async () => {
    await expectError(await putMode('shop', 'ghost', 'Auto', '1'), 404, 'not-found:service');
  });

  it('records the auth proxy user only when ZONESCOPE_AUTH_PROXY=1 and the request carries the proxy secret', async () => {
    const seen = await state('shop', 'recommendations');
    const first = await readJson<TopologyModePutResponse>(await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion, { 'x-forwarded-user': 'mallory' }));
    declareAuthProxy();
    const second = await readJson<TopologyModePutResponse>(await putMode('shop', 'recommendations', 'Disabled', first.result.resourceVersion, { 'x-auth-request-user': 'alice@example.com', ...PROXIED }));
    // On loopback a write needs no user; a user header without the proxy's secret is recorded as unverified.
    await putMode('shop', 'recommendations', 'Auto', second.result.resourceVersion, { 'x-forwarded-user': 'eve' });
    expect(auditLines().map((line) => [line.user, line.unverifiedUser])).toEqual([
      ['anonymous', 'mallory'],
      ['alice@example.com', undefined],
      ['anonymous', 'eve'],
    ]);
  });

  describe('refuses malformed requests before any write', () => {
    let before = 0;
    beforeEach(() => {
      before = patches();
    });
    afterEach(() => {
      expect(patches()).toBe(before);
      expect(auditLines()).toEqual([]);
    });

    it.each([
      ['no Content-Type', undefined],
      ['text/plain (a cross-site form)', 'text/plain'],
      ['application/x-www-form-urlencoded (a cross-site form)', 'application/x-www-form-urlencoded'],
      ['multipart/form-data', 'multipart/form-data; boundary=x'],
      ['application/json with another charset', 'application/json; charset=latin1'],
      ['application/merge-patch+json', 'application/merge-patch+json'],
    ])('415 for %s', async (_label, contentType) => {
      const headers = sameOriginHeaders('1');
      if (contentType === undefined) delete headers['content-type'];
      else headers['content-type'] = contentType;
      await expectError(await put('shop', 'recommendations', { body: '{"mode":"Auto"}', headers }), 415, 'unsupported-media-type:topology-mode');
    });

    it('accepts application/json; charset=utf-8 (the write goes through to the precondition)', async () => {
      const response = await put('shop', 'recommendations', { body: '{"mode":"Auto"}', headers: sameOriginHeaders(null, { 'content-type': 'application/json; charset=utf-8' }) });
      await expectError(response, 428, 'precondition-required:topology-mode');
    });

    it('413 for a body over 1 KiB, by Content-Length or by what arrives', async () => {
      const big = JSON.stringify({ mode: 'Auto', pad: 'x'.repeat(2000) });
      await expectError(await put('shop', 'recommendations', { body: big, headers: sameOriginHeaders('1') }), 413, 'payload-too-large:topology-mode');
      await expectError(await put('shop', 'recommendations', { body: '{}', headers: sameOriginHeaders('1', { 'content-length': '5000' }) }), 413, 'payload-too-large:topology-mode');
    });

    it.each([
      ['an extra field', '{"mode":"Auto","force":true}'],
      ['__proto__', '{"mode":"Auto","__proto__":{"admin":true}}'],
      ['__proto__ alone', '{"__proto__":{"mode":"Auto"}}'],
      ['a number mode', '{"mode":1}'],
      ['a boolean mode', '{"mode":true}'],
      ['a null mode', '{"mode":null}'],
      ['an array mode', '{"mode":["Auto"]}'],
      ['mode "auto"', '{"mode":"auto"}'],
      ['mode "AUTO"', '{"mode":"AUTO"}'],
      ['mode "Enabled"', '{"mode":"Enabled"}'],
      ['mode " Auto"', '{"mode":" Auto"}'],
      ['duplicate keys', '{"mode":"Disabled","mode":"Auto"}'],
      ['an escaped key', '{"mod\\u0065":"Auto"}'],
      ['an array body', '[{"mode":"Auto"}]'],
      ['a string body', '"Auto"'],
      ['null', 'null'],
      ['an empty object', '{}'],
      ['an empty body', ''],
      ['not JSON', 'mode=Auto'],
    ])('400 for %s', async (_label, body) => {
      await expectError(await put('shop', 'recommendations', { body, headers: sameOriginHeaders('1') }), 400, 'bad-request:topology-mode');
    });

    it('428 without If-Match, 400 for a malformed one', async () => {
      await expectError(await put('shop', 'recommendations', { body: '{"mode":"Auto"}', headers: sameOriginHeaders(null) }), 428, 'precondition-required:topology-mode');
      for (const ifMatch of ['W/"1"', '*', '123', '"1", "2"', '"a b"']) {
        const headers = { ...sameOriginHeaders(null), 'if-match': ifMatch };
        await expectError(await put('shop', 'recommendations', { body: '{"mode":"Auto"}', headers }), 400, 'bad-request:topology-mode');
      }
    });

    it.each([
      ['no Origin', { origin: undefined }],
      ['Origin: null', { origin: 'null' }],
      ['a foreign Origin', { origin: 'https://evil.example' }],
      ['another local port (same site, other origin)', { origin: 'http://localhost:8000' }],
      ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
      ['an x-middleware-subrequest header', { 'x-middleware-subrequest': 'middleware:middleware:middleware:middleware:middleware' }],
      ['a forged X-Forwarded-Host', { origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' }],
      ['DNS rebinding (foreign Host matching Origin)', { origin: 'http://evil.example:3000', host: 'evil.example:3000' }],
    ])('403 cross-site:topology-mode for %s', async (_label, overrides: Record<string, string | undefined>) => {
      const headers: Record<string, string> = sameOriginHeaders('1');
      for (const [key, value] of Object.entries(overrides)) {
        if (value === undefined) Reflect.deleteProperty(headers, key);
        else headers[key] = value;
      }
      await expectError(await put('shop', 'recommendations', { body: '{"mode":"Auto"}', headers }), 403, 'cross-site:topology-mode');
    });
  });

  it('accepts a proxied origin listed in ZONESCOPE_TRUSTED_ORIGINS', async () => {
    process.env.ZONESCOPE_TRUSTED_ORIGINS = 'https://zonescope.example.com';
    const seen = await state('shop', 'recommendations');
    const response = await putMode('shop', 'recommendations', 'Auto', seen.resourceVersion, { origin: 'https://zonescope.example.com', 'x-forwarded-host': 'zonescope.example.com' });
    expect(response.status).toBe(200);
    expect(new URL(ORIGIN).host).toBe('localhost:3000');
  });

  it('answers 405 with Allow: GET, PUT to other methods', async () => {
    for (const handler of [POST, PATCH, DELETE, OPTIONS]) {
      const response = handler();
      await expectError(response, 405, 'method-not-allowed:topology-mode');
      expect(response.headers.get('allow')).toBe('GET, PUT');
    }
  });
});

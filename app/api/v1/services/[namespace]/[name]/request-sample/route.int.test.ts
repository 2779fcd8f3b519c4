/**
 * `GET /api/v1/services/{namespace}/{name}/request-sample` against eks-demo on the simulator: 100
 * requests from a client in zone ap-northeast-2a to payments/ledger stay on the zone's pods while
 * hints are on and spread over every pod without them; the same query gives the same counts; the
 * selection is the traffic panel's; bad parameters are 400 before anything is computed.
 */
import { describe, expect, it } from 'vitest';
import type { ApiErrorResponse, RequestSampleResponse as RequestSampleView, ServiceResponse } from '../../../../../../../lib/views/api-types';
import { apiRequest, readJson, routeContext, harnessForFile } from '../../../../_testing/harness';
import { getRequestSample, getRequestSampleOptions } from '../../../../../../../lib/views/service/request-sample';
import { defaultScope } from '../../../../../../../lib/server/clusters';
import { DEFAULT_REQUESTS } from '../../../../../../../lib/topology/analyses/request-sample';
import { GET as getDetail } from '../route';
import { GET, POST } from './route';

harnessForFile();

function get(namespace: string, name: string, query = ''): Promise<Response> {
  return GET(apiRequest(`/api/v1/services/${namespace}/${name}/request-sample${query}`), routeContext({ namespace, name }));
}

async function sample(namespace: string, name: string, query = ''): Promise<RequestSampleView> {
  const response = await get(namespace, name, query);
  expect(response.status).toBe(200);
  return readJson<RequestSampleView>(response);
}

const ZONE_A = 'ap-northeast-2a';
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe('GET /api/v1/services/{namespace}/{name}/request-sample', () => {
  it("the Service page's first sample and picker: kept per analysis, the same as computed for the zone asked for", () => {
    const query = { scenario: 'now', count: DEFAULT_REQUESTS, zone: null, node: null } as const;
    const first = getRequestSample(defaultScope(), 'payments', 'ledger', query);
    const options = getRequestSampleOptions(defaultScope(), 'payments', 'ledger');
    if (!first.ok || options === null) throw new Error('no sample for payments/ledger');
    expect(getRequestSample(defaultScope(), 'payments', 'ledger', query)).toBe(first);
    expect(getRequestSampleOptions(defaultScope(), 'payments', 'ledger')).toBe(options);
    const zone = options.zones[0]?.zone ?? null;
    expect(first.value.zone).toBe(zone);
    expect(getRequestSample(defaultScope(), 'payments', 'ledger', { ...query, zone })).toEqual(first);
  });

  it("each sample carries its zone's node list for the node picker, as the picker options list it", () => {
    const options = getRequestSampleOptions(defaultScope(), 'payments', 'ledger');
    if (options === null) throw new Error('no picker options for payments/ledger');
    expect(options.zones.length).toBeGreaterThan(1);
    for (const z of options.zones) {
      const byZone = getRequestSample(defaultScope(), 'payments', 'ledger', { scenario: 'ifNone', count: 10, zone: z.zone, node: null });
      if (!byZone.ok) throw new Error(byZone.error.message);
      expect(byZone.value.zoneNodes).toEqual(z.nodes);
      const node = z.nodes[z.nodes.length - 1];
      if (node === undefined) throw new Error(`zone ${z.zone} lists no node`);
      const byNode = getRequestSample(defaultScope(), 'payments', 'ledger', { scenario: 'now', count: 10, zone: null, node });
      if (!byNode.ok) throw new Error(byNode.error.message);
      expect(byNode.value.zoneNodes).toEqual(z.nodes);
    }
  });

  it('payments/ledger from zone a with hints on: 100 answers, all from pods in zone a, as the traffic panel selects', async () => {
    const body = await sample('payments', 'ledger', `?zone=${ZONE_A}`);
    const detail = await readJson<ServiceResponse>(await getDetail(apiRequest('/api/v1/services/payments/ledger'), routeContext({ namespace: 'payments', name: 'ledger' })));
    const modelled = detail.trafficMatrix.now.selectionByZone.find((z) => z.zone === ZONE_A);
    expect(body.sample.selection.mode).toBe('PreferSameZone');
    expect(body.sample.selection.message).toBe(modelled?.message);
    expect(body.sample.selection.selectedEndpoints).toBe(modelled?.selectedEndpoints);
    expect(body.sample.selection.summary).toBe(`hints for zone ${ZONE_A}: ${modelled?.selectedEndpoints} of 7 ready endpoints`);
    expect(sum(body.sample.pods.map((p) => p.sampled))).toBe(100);
    expect(sum(body.sample.pods.map((p) => p.expected))).toBeCloseTo(100, 9);
    expect(body.sample.pods.length).toBeGreaterThan(0);
    expect(body.sample.pods.every((p) => p.zone === ZONE_A && p.sameZone)).toBe(true);
    expect(body.commands.run).toBe(
      `kubectl run curl-${ZONE_A} -n payments --image=curlimages/curl --restart=Never --overrides='{"apiVersion":"v1","spec":{"nodeSelector":{"topology.kubernetes.io/zone":"${ZONE_A}"}}}' --command -- sleep 3600`,
    );
    expect(body.commands.loop).toBe(`kubectl exec -n payments curl-${ZONE_A} -- sh -c 'for i in $(seq 100); do curl -s http://ledger.payments/hostname; echo; done | sort | uniq -c'`);
  });

  it('without hints the same client spreads over all 7 ledger pods, some in other zones', async () => {
    const body = await sample('payments', 'ledger', `?zone=${ZONE_A}&scenario=ifNone`);
    expect(body.sample.selection.mode).toBe('none');
    expect(body.sample.pods).toHaveLength(7);
    expect(body.sample.pods.some((p) => !p.sameZone)).toBe(true);
    expect(body.sample.expectedCrossZoneFraction).toBeCloseTo(2 / 7, 9);
    expect(sum(body.sample.pods.map((p) => p.sampled))).toBe(100);
  });

  it('is reproducible, and the count is the number of requests', async () => {
    const a = await sample('payments', 'ledger', `?zone=${ZONE_A}&scenario=ifNone&count=1000`);
    const b = await sample('payments', 'ledger', `?zone=${ZONE_A}&scenario=ifNone&count=1000`);
    expect(b.sample).toEqual(a.sample);
    expect(sum(a.sample.pods.map((p) => p.sampled))).toBe(1000);
  });

  it('a picked node: its zone, a hostname nodeSelector, and a node of another zone than asked is refused', async () => {
    const first = await sample('payments', 'ledger', `?zone=${ZONE_A}`);
    const body = await sample('payments', 'ledger', `?node=${first.node}`);
    expect(body).toMatchObject({ zone: ZONE_A, node: first.node, nodePicked: true });
    expect(body.commands.run).toContain(`"nodeSelector":{"kubernetes.io/hostname":"${first.node}"}`);
    const response = await get('payments', 'ledger', `?node=${first.node}&zone=ap-northeast-2b`);
    expect(response.status).toBe(400);
    expect((await readJson<ApiErrorResponse>(response)).error.message).toBe(`node: "${first.node}" is in zone "${ZONE_A}", not "ap-northeast-2b".`);
  });

  it('internalTrafficPolicy Local (platform/node-metrics): the selection depends on the node, so the command pins one', async () => {
    const body = await sample('platform', 'node-metrics', `?zone=${ZONE_A}`);
    expect(body.sameOnEveryNodeOfZone).toBe(false);
    expect(body.sample.selection.mode).toBe('local');
    expect(body.commands.run).toContain('kubernetes.io/hostname');
  });

  it.each([
    ['unknown parameter', '?limit=10', 'Unknown query parameter "limit"; known: zone, node, count, scenario.'],
    ['repeated zone', `?zone=${ZONE_A}&zone=${ZONE_A}`, 'The query parameter "zone" is given more than once.'],
    ['unknown scenario', '?scenario=later', 'scenario must be one of now, expected, ifAuto, ifNone.'],
    ['zero requests', '?count=0', 'count must be a whole number from 1 to 10000.'],
    ['too many requests', '?count=10001', 'count must be a whole number from 1 to 10000.'],
    ['a fractional count', '?count=2.5', 'count must be a whole number from 1 to 10000.'],
    ['an unknown zone', '?zone=mars-1a', 'zone: the cluster has no client nodes in zone "mars-1a" (zones: ap-northeast-2a, ap-northeast-2b, ap-northeast-2c).'],
    ['an unknown node', '?node=no-such-node', 'node: the cluster has no ready client node "no-such-node" with a zone and CPU.'],
    ['a malformed zone', '?zone=a%20b', 'zone: "a b" is not a valid zone name.'],
  ])('answers 400 bad-request:service for %s', async (_label, query, message) => {
    const response = await get('payments', 'ledger', query);
    expect(response.status).toBe(400);
    expect(await readJson<ApiErrorResponse>(response)).toEqual({ error: { code: 'bad-request:service', message } });
  });

  it('answers 404 for a Service the cluster does not have, and 405 to writes', async () => {
    const response = await get('shop', 'no-such-service');
    expect(response.status).toBe(404);
    expect(POST().status).toBe(405);
  });
});

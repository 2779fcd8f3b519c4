/**
 * An identity that cannot read everything, against eks-demo on the simulator over real HTTP:
 * `GET /api/v1/cluster` marks the answers that depend on forbidden types as unknown and names the
 * identity (SelfSubjectReview) and the RBAC rule; the header banner and the eligibility panel say
 * the same in the dashboard.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EligibilityVerdict } from '../../../../components/overview/eligibility';
import { PermissionsBanner } from '../../../../components/layout/permissions-banner';
import type { ClusterResponse } from '../../../../lib/views/api-types';
import { getHeader } from '../../../../lib/views/header';
import { getServiceTable } from '../../../../lib/views/services/table';
import { GET } from './route';
import { GET as getServices } from '../services/route';
import { GET as getService } from '../services/[namespace]/[name]/route';
import { GET as getTopologyMode } from '../services/[namespace]/[name]/topology-mode/route';
import type { ServiceResponse, ServicesResponse } from '../../../../lib/views/api-types';
import { apiRequest, eventually, harnessForFile, readJson, routeContext } from '../_testing/harness';
import { defaultScope } from '../../../../lib/server/clusters';

const harness = harnessForFile();

beforeEach(() => {
  // The source warns once per forbidden type; the tests read what it says through the API instead.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(async () => {
  vi.restoreAllMocks();
  harness().sim.faults.resetRbac();
  await harness().reconnect();
});

/** The cluster answer once the SelfSubjectReview (looked up in the background) has named the identity. */
async function clusterWithIdentity(): Promise<ClusterResponse> {
  return eventually(async () => {
    const body = await readJson<ClusterResponse>(GET(apiRequest('/api/v1/cluster')));
    return body.header.permissions?.identityKnown ? body : null;
  }, 5000, 'the identity in the header');
}

/** Visible text of server-rendered markup. */
function text(html: string): string {
  return html.replace(/<[^>]+>/g, '').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const NODES_UNKNOWN = 'unknown: zonescope could not read Nodes (forbidden)';

describe('an identity that cannot read everything', () => {
  it('reports nothing unknown when everything is readable', async () => {
    const body = await readJson<ClusterResponse>(GET(apiRequest('/api/v1/cluster')));
    expect(body.cluster.unknown).toEqual({});
    expect(body.header.freshness.forbidden).toEqual([]);
    expect(body.header.permissions).toBeNull();
    expect(renderToStaticMarkup(createElement(PermissionsBanner, { header: getHeader(defaultScope()) }))).toBe('');
    expect(getServiceTable(defaultScope())?.unknown).toEqual({ hints: null, endpoints: null, crossZone: null, hpa: null });
    const toggle = await readJson<{ prediction: { unknown: string | null } }>(
      await getTopologyMode(apiRequest('/api/v1/services/shop/cart/topology-mode'), routeContext({ namespace: 'shop', name: 'cart' })),
    );
    expect(toggle.prediction.unknown).toBeNull();
  });

  it('with Nodes forbidden (the view ClusterRole), says eligibility is unknown and names the identity and the rule', async () => {
    harness().sim.faults.deny({ verbs: ['list', 'watch'], resources: ['nodes'] });
    await harness().reconnect();
    const body = await clusterWithIdentity();
    expect(body.cluster.unknown).toEqual({ zones: NODES_UNKNOWN, eligibility: NODES_UNKNOWN, ruleEstimates: NODES_UNKNOWN });
    expect(body.cluster.verdict).toBe(NODES_UNKNOWN);
    expect(body.header.freshness.forbidden).toEqual([
      expect.objectContaining({
        resource: 'nodes',
        title: 'Nodes',
        unknown: NODES_UNKNOWN,
        rule: 'apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"]',
        affects: ['cluster.zones', 'cluster.eligibility', 'cluster.ruleEstimates', 'services[].expectedHints', 'services[].crossZone', 'services[].fixes'],
      }),
    ]);
    expect(body.header.permissions).toEqual({
      identity: 'system:serviceaccount:zonescope:zonescope',
      identityKnown: true,
      clusterRole: ['apiVersion: rbac.authorization.k8s.io/v1', 'kind: ClusterRole', 'metadata:', '  name: zonescope-read-extra', 'rules:', '- apiGroups: [""]', '  resources: ["nodes"]', '  verbs: ["get", "list", "watch"]'].join('\n'),
      bind: ['kubectl create clusterrolebinding zonescope-read-extra --clusterrole=zonescope-read-extra --serviceaccount=zonescope:zonescope'],
    });

    const banner = text(renderToStaticMarkup(createElement(PermissionsBanner, { header: getHeader(defaultScope()) })));
    expect(banner).toContain('zonescope could not read Nodes (forbidden)');
    expect(banner).toContain('zonescope reads the cluster as system:serviceaccount:zonescope:zonescope, which may not list and watch these types.');
    expect(banner).toContain('Nodes: zone map and CPU ratios, eligibility, rule estimates, expected hints, cross-zone traffic and cost, fixes.');
    expect(banner).toContain('RBAC rule that grants it: apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"]');
    expect(banner).toContain('kind: ClusterRole');
    expect(banner).toContain('--serviceaccount=zonescope:zonescope');

    const eligibility = text(renderToStaticMarkup(createElement(EligibilityVerdict, { cluster: body.cluster })));
    expect(eligibility).toBe(`Eligibility unknown${NODES_UNKNOWN}`);
    expect(eligibility).not.toContain('Not eligible');
  });

  it('with Nodes forbidden, the Service endpoints carry the unknown answers, with custom traffic options too', async () => {
    harness().sim.faults.deny({ verbs: ['list', 'watch'], resources: ['nodes'] });
    await harness().reconnect();
    for (const query of ['', '?gbPerMonth=500']) {
      const response = await getService(apiRequest(`/api/v1/services/shop/cart${query}`), routeContext({ namespace: 'shop', name: 'cart' }));
      expect(response.status).toBe(200);
      const body = await readJson<ServiceResponse>(response);
      expect(body.unknown).toEqual({ expectedHints: NODES_UNKNOWN, crossZone: NODES_UNKNOWN, fixes: NODES_UNKNOWN });
      expect(body.expected.verdict).toBe(NODES_UNKNOWN);
    }
    const list = await readJson<ServicesResponse>(await getServices(apiRequest('/api/v1/services?q=shop/cart')));
    expect(list.items.map((row) => [row.name, row.reason])).toEqual([['cart', NODES_UNKNOWN]]);
    // The Services table shows "unknown" in the hints and cross-zone columns instead of "off" and 0.0 %.
    expect(getServiceTable(defaultScope())?.unknown).toEqual({ hints: NODES_UNKNOWN, endpoints: null, crossZone: NODES_UNKNOWN, hpa: null });
    // The toggle offers no prediction instead of one computed from no Nodes.
    const toggle = await readJson<{ prediction: { unknown: string | null } }>(
      await getTopologyMode(apiRequest('/api/v1/services/shop/cart/topology-mode'), routeContext({ namespace: 'shop', name: 'cart' })),
    );
    expect(toggle.prediction.unknown).toBe(NODES_UNKNOWN);
  });

  it('with everything forbidden, says every Service is unknown instead of "Services (0)" and names the identity the simulator knows', async () => {
    harness().sim.faults.setRbac({ user: 'alice@example.com', allow: [] });
    await harness().reconnect();
    const body = await clusterWithIdentity();
    expect(body.cluster.unknown.services).toBe('unknown: zonescope could not read Services (forbidden)');
    expect(body.cluster.unknown.eligibility).toBe(NODES_UNKNOWN);
    expect(body.cluster.unknown.dataplane).toBe('unknown: zonescope could not read ConfigMaps (kube-system), DaemonSets (kube-system) (forbidden)');
    expect(body.header.freshness.forbidden.map((f) => f.resource)).toEqual(['nodes', 'services', 'endpointslices', 'pods', 'deployments', 'replicasets', 'hpas', 'events', 'configmaps', 'daemonsets']);
    expect(body.header.permissions?.identity).toBe('alice@example.com');
    expect(body.header.permissions?.bind).toEqual([
      'kubectl create clusterrolebinding zonescope-read-extra --clusterrole=zonescope-read-extra --user=alice@example.com',
      'kubectl create rolebinding zonescope-read-extra -n kube-system --role=zonescope-read-extra --user=alice@example.com',
    ]);
    expect(body.header.permissions?.clusterRole).toContain('- apiGroups: ["autoscaling"]\n  resources: ["horizontalpodautoscalers"]');
    expect(body.header.permissions?.clusterRole).toContain('---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: zonescope-read-extra\n  namespace: kube-system\n');
  });

  it('with only HPAs forbidden, keeps the cluster answers and names only the HPA rule', async () => {
    harness().sim.faults.deny({ verbs: ['list', 'watch'], resources: ['horizontalpodautoscalers'] });
    await harness().reconnect();
    const body = await clusterWithIdentity();
    expect(body.cluster.unknown).toEqual({});
    expect(body.cluster.eligible).toBe(true);
    expect(body.header.freshness.forbidden.map((f) => [f.resource, f.rule])).toEqual([
      ['hpas', 'apiGroups: ["autoscaling"], resources: ["horizontalpodautoscalers"], verbs: ["get", "list", "watch"]'],
    ]);
    const banner = text(renderToStaticMarkup(createElement(PermissionsBanner, { header: getHeader(defaultScope()) })));
    expect(banner).toContain('zonescope could not read HorizontalPodAutoscalers (forbidden)');
    expect(banner).toContain('HorizontalPodAutoscalers: HPA scan and scale-down risk, fixes.');
  });
});

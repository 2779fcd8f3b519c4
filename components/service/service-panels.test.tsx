/**
 * What an SRE reads on the Service page's panels, rendered to HTML from real analyses of small
 * test clusters (no mocks): minimums only where Auto's allocation applies, the HPA-range risk in
 * the verdict, events newest first with relative times, GitOps next to the toggle, and the
 * load-balancer client-IP facts.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import type { EventRecord } from '@/lib/topology/model/cluster-model';
import { testCluster, testEndpoints, testService, testSlice, testWorkload } from '@/lib/topology/model/test-cluster';
import type { ServiceDetail } from '@/lib/topology/report/analysis-schema';
import { analyzeService } from '@/lib/topology/report/service-detail';
import { AUTO, publicCases } from '@/lib/topology/report/test-public-cases';
import { DistributionPanel } from './distribution-panel';
import { EventsTimeline } from './events-timeline';
import { LoadBalancerPath } from './load-balancer-path';
import { ServiceVerdict } from './service-verdict';
import { TopologyModeEquivalents } from '../topology-mode/equivalents';
import { textOf } from '../test-support';

function detailOf(index: ReturnType<typeof testCluster>, name: string): ServiceDetail {
  const detail = analyzeService(index, 'default', name);
  if (!detail) throw new Error(`no Service ${name}`);
  return detail;
}

describe('distribution panel: per-zone minimums only where Auto allocates', () => {
  it('PreferClose: no minimum table and no "→ hints off" sum check, one line saying why', () => {
    const index = testCluster({
      version: { gitVersion: 'v1.31.2', minor: 31, platform: null },
      services: [testService('near', { trafficDistribution: 'PreferClose' })],
      endpointSlices: [testSlice('near', testEndpoints({ 'zone-a': 1, 'zone-b': 1, 'zone-c': 2 }, { service: 'near' }))],
    });
    const text = textOf(<DistributionPanel detail={detailOf(index, 'near')} />);
    expect(text).toContain("trafficDistribution: PreferClose hints every ready endpoint for its own zone; the per-zone minimum, the overload threshold and Auto's other rules do not apply.");
    expect(text).not.toContain('ready endpoints → hints');
    expect(text).not.toContain('minimum = ceil');
  });

  it('Auto with 11 endpoints over three equal zones: the table, and what "maximum below minimum" means', () => {
    const index = testCluster({ services: [testService('web', { annotations: AUTO })], endpointSlices: [testSlice('web', testEndpoints({ 'zone-a': 4, 'zone-b': 4, 'zone-c': 3 }))] });
    const text = textOf(<DistributionPanel detail={detailOf(index, 'web')} />);
    expect(text).toContain('4 + 4 + 4 = 12 > 11 ready endpoints → hints off');
    expect(text).toContain(
      'Maximum below minimum (zone-a: minimum 4, maximum 3): maximum = minimum + (total − Σ minimum), and Σ minimum 12 exceeds the 11 ready endpoints by 1, so the minimums cannot all be met at once. It goes away when the ready endpoints cover Σ minimum (see the smallest fix).',
    );
  });

  it('an ExternalName Service: says what it is instead of "whatever the slice owner writes"', () => {
    const index = testCluster({ services: [testService('db', { type: 'ExternalName', selector: null, clusterIP: null })] });
    const text = textOf(<DistributionPanel detail={detailOf(index, 'db')} />);
    expect(text).toContain('ExternalName: a DNS CNAME answered by cluster DNS. kube-proxy does not route it and it has no EndpointSlices, so topology routing does not apply.');
    expect(text).not.toContain('slice owner');
  });
});

describe('verdict: hints on now, off elsewhere in the HPA range', () => {
  it('says so instead of "No fix needed", with the kubectl patch hpa that avoids it', () => {
    const text = textOf(<ServiceVerdict detail={detailOf(publicCases(), 'api')} />);
    expect(text).not.toContain('No fix needed');
    expect(text).toContain("Hints are on now, but turn off at 4, 5, 8 and 11 replicas within the HPA's range 3–12.");
    expect(text).toContain(`kubectl patch hpa api -n default --type merge -p '{"spec":{"minReplicas":12}}'`);
  });

  it('no HPA: still "No fix needed" when hints are on', () => {
    const index = testCluster({ services: [testService('ok', { annotations: AUTO })], endpointSlices: [testSlice('ok', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { service: 'ok' }))] });
    expect(textOf(<ServiceVerdict detail={detailOf(index, 'ok')} />)).toContain('No fix needed for hints to be on.');
  });

  it('hints off with an HPA: the smallest fix pairs the count with the zone spread patch and the pods\u2019 labels', () => {
    const endpoints = testEndpoints({ 'zone-a': 4, 'zone-b': 4, 'zone-c': 3 }, { service: 'cart' });
    const index = testCluster({ services: [testService('cart', { annotations: AUTO })], endpointSlices: [testSlice('cart', endpoints)], ...testWorkload('cart', endpoints, { hpa: { minReplicas: 11, maxReplicas: 20 } }) });
    const text = textOf(<ServiceVerdict detail={detailOf(index, 'cart')} />);
    expect(text).toContain('kubectl scale cannot choose zones');
    expect(text).toContain(
      `kubectl patch deployment/cart -n default --type strategic -p '{"spec":{"template":{"spec":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"cart"}}}]}}}}'`,
    );
    expect(text).toContain('kubectl scale deployment/cart -n default --replicas=12');
    const managed = textOf(<ServiceVerdict detail={detailOf(index, 'cart')} gitOpsWarning="Managed by Helm (label app.kubernetes.io/managed-by=Helm): the next helm upgrade may revert a live patch. Make the change in Git." />);
    expect(managed).toContain('Smallest fix Managed by Helm (label app.kubernetes.io/managed-by=Helm): the next helm upgrade may revert a live patch. Make the change in Git.');
  });
});

describe('events: newest first, relative to the render time', () => {
  const event = (name: string, reason: string, last: string, first = last, count = 1): EventRecord => ({
    namespace: 'default',
    name,
    involvedObject: { kind: 'Service', name: 'web', namespace: 'default' },
    type: reason.endsWith('Disabled') ? 'Warning' : 'Normal',
    reason,
    message: `${reason} message`,
    count,
    firstTimestamp: first,
    lastTimestamp: last,
  });

  it('"3m ago" with the absolute time in <time dateTime> and its title; newest on top', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    const html = renderToStaticMarkup(
      <EventsTimeline
        now={now}
        events={[event('a', 'TopologyAwareHintsDisabled', '2026-11-30T08:00:00Z'), event('b', 'TopologyAwareHintsEnabled', '2026-12-01T09:57:00Z', '2026-12-01T07:00:00Z', 4)]}
      />,
    );
    expect(html.indexOf('TopologyAwareHintsEnabled')).toBeLessThan(html.indexOf('TopologyAwareHintsDisabled'));
    expect(html).toContain('<time dateTime="2026-12-01T09:57:00Z" title="2026-12-01 09:57:00 UTC"');
    const text = textOf(<EventsTimeline now={now} events={[event('a', 'TopologyAwareHintsDisabled', '2026-11-30T08:00:00Z'), event('b', 'TopologyAwareHintsEnabled', '2026-12-01T09:57:00Z', '2026-12-01T07:00:00Z', 4)]} />);
    expect(text).toContain('3m ago Normal TopologyAwareHintsEnabled ×4, first 3h ago');
    expect(text).toContain('1d ago Warning TopologyAwareHintsDisabled');
  });
});

describe('next to the toggle: GitOps and the equivalent commands', () => {
  it('Argo CD label: a live patch may be reverted; the Git YAML and kubectl annotate for Enable and Disable', () => {
    const service = testService('cart', { labels: { 'argocd.argoproj.io/instance': 'shop' }, annotations: { 'service.kubernetes.io/topology-aware-hints': 'auto' } });
    const text = textOf(<TopologyModeEquivalents service={service} minor={31} />);
    expect(text).toContain('Managed by Argo CD (label argocd.argoproj.io/instance=shop): the next Argo CD sync may revert a live patch. Make the change in Git.');
    expect(text).toContain('metadata: annotations: service.kubernetes.io/topology-mode: Auto # remove the line "service.kubernetes.io/topology-aware-hints: auto" (it would win over the key above)');
    // Disable removes the key the Service carries; nothing new appears in Git.
    expect(text).toContain('metadata: annotations: # remove the line "service.kubernetes.io/topology-aware-hints: auto" (no topology annotation means off)');
    expect(text).not.toContain('Disabled');
    expect(text).toContain('kubectl annotate service cart -n default service.kubernetes.io/topology-mode=Auto --overwrite');
    expect(text).toContain('kubectl annotate service cart -n default service.kubernetes.io/topology-aware-hints-');
  });

  it.each([
    [{ annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/Service:shop/cart' } }, 'Managed by Argo CD (annotation argocd.argoproj.io/tracking-id: shop:/Service:shop/cart)'],
    [{ labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps' } }, "Managed by Flux (label kustomize.toolkit.fluxcd.io/name=apps): Flux's next reconciliation may revert a live patch."],
    [{ labels: { 'helm.toolkit.fluxcd.io/name': 'cart' } }, 'Managed by Flux (label helm.toolkit.fluxcd.io/name=cart)'],
    [{ labels: { 'app.kubernetes.io/managed-by': 'Helm' } }, 'Managed by Helm (label app.kubernetes.io/managed-by=Helm): the next helm upgrade may revert a live patch.'],
    [{ annotations: { 'meta.helm.sh/release-name': 'cart' } }, 'Managed by Helm (annotation meta.helm.sh/release-name: cart)'],
  ])('%o', (extra, expected) => {
    expect(textOf(<TopologyModeEquivalents service={testService('cart', extra)} minor={31} />)).toContain(expected);
  });

  it('plain kubectl apply whose manifest declares the key: "Applied with kubectl apply", and the manifest to change', () => {
    const service = testService('cart', {
      annotations: { 'service.kubernetes.io/topology-mode': 'Auto' },
      ownership: { lastApplied: { readable: true, topologyAnnotations: { 'service.kubernetes.io/topology-mode': 'Auto' } }, managers: null },
    });
    const text = textOf(<TopologyModeEquivalents service={service} minor={31} />);
    expect(text).toContain('Applied with kubectl apply (annotation kubectl.kubernetes.io/last-applied-configuration): the applied manifest declares service.kubernetes.io/topology-mode: Auto');
    expect(text).toContain('the next kubectl apply of that manifest puts it back. Make the change in that manifest.');
  });

  it('no marker: no warning, the commands still there', () => {
    const text = textOf(<TopologyModeEquivalents service={testService('cart')} minor={31} />);
    expect(text).not.toContain('Managed by');
    expect(text).toContain('kubectl annotate service cart -n default service.kubernetes.io/topology-mode=Auto --overwrite');
  });
});

describe('load-balancer panel: NLB IP targets', () => {
  it('shows the client IP as not preserved by default, the cross-zone cost and the annotation fix', () => {
    const service = testService('gw', {
      type: 'LoadBalancer',
      ports: [{ name: 'https', protocol: 'TCP', port: 443, nodePort: 30443 }],
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external', 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': 'ip' },
      loadBalancerIngress: ['k8s-gw.elb.amazonaws.com'],
    });
    const index = testCluster({ version: { gitVersion: 'v1.31.2-eks-1', minor: 31, platform: 'eks' }, services: [service], endpointSlices: [testSlice('gw', testEndpoints({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 }, { service: 'gw' }))] });
    const lb = detailOf(index, 'gw').loadBalancer;
    if (!lb) throw new Error('no load-balancer path');
    const text = textOf(<LoadBalancerPath lb={lb} />);
    expect(text).not.toContain('client IP preserved');
    expect(text).toContain('Client IP at the pod not preserved (default for IP targets with TCP/TLS (off))');
    expect(text).toContain('NLB cross-zone load balancing is off (the NLB default)');
    expect(text).toContain('service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: "preserve_client_ip.enabled=true"');
    expect(text).toContain('ip (this Service) Cluster');
    // The diagram agrees with the bullets: no node SNATs with IP targets, and the node-only fact is left out.
    expect(text).toContain("Pod sees the load balancer's private IP");
    expect(text).not.toContain('SNAT)');
    expect(text).not.toContain('Nodes with a local endpoint');
  });
});

describe('load-balancer panel: instance targets', () => {
  it('externalTrafficPolicy Cluster: the client IP is shown as lost to SNAT, not as preserved', () => {
    const service = testService('web', {
      type: 'LoadBalancer',
      ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }],
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' },
      externalTrafficPolicy: 'Cluster',
    });
    const index = testCluster({ version: { gitVersion: 'v1.31.2-eks-1', minor: 31, platform: 'eks' }, services: [service], endpointSlices: [testSlice('web', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }))] });
    const lb = detailOf(index, 'web').loadBalancer;
    if (!lb) throw new Error('no load-balancer path');
    const text = textOf(<LoadBalancerPath lb={lb} />);
    expect(text).toContain('Client IP at the pod not preserved (externalTrafficPolicy: Cluster SNATs to the node IP)');
    expect(text).toContain('instance (this Service) Cluster');
  });
});

/**
 * The bundled scenarios. Each one is a small, realistic cluster built to show one or more ways
 * Topology Aware Routing behaves; `npm run fixtures` writes them to `fixtures/<name>.yaml`.
 */
import { ScenarioBuilder } from './builder';
import type { KubeObject } from '../types';

/** A scenario: its objects and the Kubernetes version the simulator serves for it. */
export interface ScenarioDefinition {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  build(): KubeObject[];
}

const A = 'ap-northeast-2a';
const B = 'ap-northeast-2b';
const C = 'ap-northeast-2c';
const EKS_131 = 'v1.31.4-eks-2d98532';
const KUBELET_131 = 'v1.31.3-eks-59bf375';
const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
const LEGACY = 'service.kubernetes.io/topology-aware-hints';

/** Three zones with unequal CPU (4 : 3 : 2 nodes of m5.xlarge), as on a typical EKS cluster. */
function eksNodes(b: ScenarioBuilder): void {
  b.nodes({ zone: A, count: 4, cpu: '3920m', nodeGroup: 'general-a' });
  b.nodes({ zone: B, count: 3, cpu: '3920m', nodeGroup: 'general-b' });
  b.nodes({ zone: C, count: 2, cpu: '3920m', nodeGroup: 'general-c' });
}

function eksSystem(b: ScenarioBuilder): void {
  for (const ns of ['shop', 'payments', 'platform']) b.namespace(ns);
  b.kubeProxyConfig('iptables');
  b.daemonSet('kube-system', 'aws-node', '602401143452.dkr.ecr.ap-northeast-2.amazonaws.com/amazon-k8s-cni:v1.19.0-eksbuild.1');
  b.daemonSet('kube-system', 'kube-proxy', '602401143452.dkr.ecr.ap-northeast-2.amazonaws.com/eks/kube-proxy:v1.31.2-eksbuild.3');
  const dns = b.deployment({ namespace: 'kube-system', name: 'coredns', podsPerZone: { [A]: 1, [B]: 1 }, containerPort: 53 });
  b.service({ namespace: 'kube-system', name: 'kube-dns', selector: dns, port: 53, targetPort: 53 });
}

const eksDemo: ScenarioDefinition = {
  name: 'eks-demo',
  description: 'EKS 1.31, three zones with unequal CPU and a dozen Services showing the ways hints turn on, off, or leak',
  version: EKS_131,
  build() {
    const b = new ScenarioBuilder(131, KUBELET_131);
    eksNodes(b);
    eksSystem(b);
    // Hints on, but 5/2/2 placement makes the controller donate an endpoint from zone a.
    const checkout = b.deployment({ namespace: 'shop', name: 'checkout', podsPerZone: { [A]: 5, [B]: 2, [C]: 2 } });
    b.service({ namespace: 'shop', name: 'checkout', selector: checkout, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    // Too few endpoints: 2 endpoints, 3 zones.
    const cart = b.deployment({ namespace: 'shop', name: 'cart', podsPerZone: { [A]: 1, [B]: 1 } });
    b.service({ namespace: 'shop', name: 'cart', selector: cart, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    // 4 endpoints: minimums 2 + 2 + 1 = 5 > 4.
    const catalog = b.deployment({ namespace: 'shop', name: 'catalog', podsPerZone: { [A]: 2, [B]: 1, [C]: 1 } });
    b.service({ namespace: 'shop', name: 'catalog', selector: catalog, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    // HPA scaled down at random: 7 pods left as 5/1/1 — hints stay on but leak; the HPA range crosses counts that turn hints off.
    const ledger = b.deployment({ namespace: 'payments', name: 'ledger', podsPerZone: { [A]: 5, [B]: 1, [C]: 1 } });
    b.service({ namespace: 'payments', name: 'ledger', selector: ledger, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    b.hpa('payments', 'ledger', 3, 12, 7);
    // trafficDistribution: PreferClose — same-zone hints, no CPU proportions.
    const fraud = b.deployment({ namespace: 'payments', name: 'fraud-check', podsPerZone: { [A]: 2, [B]: 2, [C]: 2 }, zoneSpread: { maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' } });
    b.service({ namespace: 'payments', name: 'fraud-check', selector: fraud, trafficDistribution: 'PreferClose' });
    // Legacy key present: it wins over topology-mode, whatever topology-mode says.
    const auth = b.deployment({ namespace: 'platform', name: 'auth', podsPerZone: { [A]: 4, [B]: 3, [C]: 2 } });
    b.service({ namespace: 'platform', name: 'auth', selector: auth, annotations: { [LEGACY]: 'auto', [TOPOLOGY_MODE]: 'Disabled' } });
    // A LoadBalancer with externalTrafficPolicy Local in instance mode: nodes without a local pod drop the traffic.
    const storefront = b.deployment({ namespace: 'shop', name: 'storefront', podsPerZone: { [A]: 1, [B]: 1, [C]: 1 } });
    b.service({
      namespace: 'shop',
      name: 'storefront',
      selector: storefront,
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb', 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': 'instance' },
    });
    // An NLB in ip target mode: the load balancer sends straight to pod IPs, kube-proxy is not on the path.
    const gateway = b.deployment({ namespace: 'shop', name: 'api-gateway', podsPerZone: { [A]: 2, [B]: 2, [C]: 2 } });
    b.service({
      namespace: 'shop',
      name: 'api-gateway',
      selector: gateway,
      type: 'LoadBalancer',
      annotations: {
        'service.beta.kubernetes.io/aws-load-balancer-type': 'external',
        'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': 'ip',
        'service.beta.kubernetes.io/aws-load-balancer-scheme': 'internet-facing',
        'service.beta.kubernetes.io/aws-load-balancer-attributes': 'load_balancing.cross_zone.enabled=true',
        [TOPOLOGY_MODE]: 'Auto',
      },
    });
    // Not annotated, but would qualify: 9 endpoints spread 4/3/2 like the CPU.
    const recommendations = b.deployment({ namespace: 'shop', name: 'recommendations', podsPerZone: { [A]: 4, [B]: 3, [C]: 2 }, zoneSpread: { maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' } });
    b.service({ namespace: 'shop', name: 'recommendations', selector: recommendations });
    // A value that does nothing: only Auto/auto enable hints.
    const config = b.deployment({ namespace: 'platform', name: 'config', podsPerZone: { [A]: 3, [B]: 3, [C]: 3 } });
    b.service({ namespace: 'platform', name: 'config', selector: config, annotations: { [TOPOLOGY_MODE]: 'Enabled' } });
    // topology-mode Auto and trafficDistribution both set: the annotation wins.
    const notifier = b.deployment({ namespace: 'payments', name: 'notifier', podsPerZone: { [A]: 4, [B]: 3, [C]: 2 } });
    b.service({ namespace: 'payments', name: 'notifier', selector: notifier, annotations: { [TOPOLOGY_MODE]: 'Auto' }, trafficDistribution: 'PreferClose' });
    // internalTrafficPolicy Local: node-local only, hints do not matter.
    const metrics = b.deployment({ namespace: 'platform', name: 'node-metrics', podsPerZone: { [A]: 4, [B]: 3, [C]: 2 } });
    b.service({ namespace: 'platform', name: 'node-metrics', selector: metrics, internalTrafficPolicy: 'Local', annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    return b.objects;
  },
};

const missingZoneLabel: ScenarioDefinition = {
  name: 'missing-zone-label',
  description: 'One ready worker without a zone label switches hints off for every Service',
  version: EKS_131,
  build() {
    const b = new ScenarioBuilder(7, KUBELET_131);
    b.nodes({ zone: A, count: 2, cpu: '3920m' });
    b.nodes({ zone: B, count: 2, cpu: '3920m' });
    b.nodes({ zone: C, count: 2, cpu: '3920m' });
    b.nodes({ zone: null, count: 1, cpu: '3920m', namePrefix: 'self-managed-node', providerZone: B });
    b.namespace('shop');
    b.kubeProxyConfig('iptables');
    const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 3, [B]: 3, [C]: 3 } });
    b.service({ namespace: 'shop', name: 'web', selector: web, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    const api = b.deployment({ namespace: 'shop', name: 'api', podsPerZone: { [A]: 2, [B]: 2, [C]: 2 } });
    b.service({ namespace: 'shop', name: 'api', selector: api, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    return b.objects;
  },
};

const singleZone: ScenarioDefinition = {
  name: 'single-zone',
  description: 'Every node in one zone: there is nothing to keep in-zone and hints stay off',
  version: EKS_131,
  build() {
    const b = new ScenarioBuilder(11, KUBELET_131);
    b.nodes({ zone: A, count: 3, cpu: '3920m' });
    b.namespace('shop');
    b.kubeProxyConfig('iptables');
    const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 4 } });
    b.service({ namespace: 'shop', name: 'web', selector: web, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    return b.objects;
  },
};

const ciliumKpr: ScenarioDefinition = {
  name: 'cilium-kpr',
  description: 'Cilium kube-proxy replacement without service topology: hints are written but ignored',
  version: 'v1.30.6-eks-7f9249a',
  build() {
    const b = new ScenarioBuilder(13, 'v1.30.6-eks-7f9249a');
    eksNodes(b);
    b.namespace('shop');
    b.ciliumConfig('true', false);
    b.daemonSet('kube-system', 'cilium', 'quay.io/cilium/cilium:v1.16.4');
    const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 4, [B]: 3, [C]: 2 } });
    b.service({ namespace: 'shop', name: 'web', selector: web, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    return b.objects;
  },
};

const ipvs: ScenarioDefinition = {
  name: 'ipvs',
  description: 'kube-proxy in IPVS mode with the least-connection scheduler',
  version: EKS_131,
  build() {
    const b = new ScenarioBuilder(17, KUBELET_131);
    eksNodes(b);
    b.namespace('shop');
    b.kubeProxyConfig('ipvs', 'lc');
    b.daemonSet('kube-system', 'aws-node', '602401143452.dkr.ecr.ap-northeast-2.amazonaws.com/amazon-k8s-cni:v1.19.0-eksbuild.1');
    for (const [name, pods] of [
      ['web', { [A]: 4, [B]: 3, [C]: 2 }],
      ['api', { [A]: 6, [B]: 4, [C]: 3 }],
      ['search', { [A]: 2, [B]: 2, [C]: 2 }],
    ] as const) {
      const labels = b.deployment({ namespace: 'shop', name, podsPerZone: pods });
      b.service({ namespace: 'shop', name, selector: labels, annotations: { [TOPOLOGY_MODE]: 'Auto' } });
    }
    return b.objects;
  },
};

/** Every bundled scenario, by name. */
export const SCENARIOS: readonly ScenarioDefinition[] = [eksDemo, missingZoneLabel, singleZone, ciliumKpr, ipvs];

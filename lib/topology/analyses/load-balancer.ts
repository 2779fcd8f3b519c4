/**
 * The path external traffic takes into a LoadBalancer or NodePort Service: load balancer → node
 * (NodePort, then kube-proxy) or load balancer → pod IP directly; what `externalTrafficPolicy`
 * does on that path; AWS target type and cross-zone load balancing; and which nodes have no local
 * endpoint under `Local`.
 *
 * Facts used:
 * - `externalTrafficPolicy: Cluster`: any node accepts the traffic and kube-proxy forwards it to an
 *   endpoint anywhere (an extra hop, possibly to another zone, with SNAT so the pod sees the node's
 *   IP). Topology hints do narrow this cluster set.
 * - `externalTrafficPolicy: Local`: only endpoints on the receiving node; no extra hop, the client
 *   source IP is preserved; nodes without a local endpoint answer the health check node port with
 *   503 and drop (time out) traffic that still reaches them.
 * - AWS Load Balancer Controller with `ip` targets registers pod IPs: traffic bypasses NodePort,
 *   kube-proxy and `externalTrafficPolicy`; cross-zone then depends only on the load balancer.
 * - NLBs have cross-zone load balancing off by default (ALBs on); with it on, each LB node spreads
 *   over targets in every zone, and for an NLB that cross-zone traffic is billed as inter-AZ data
 *   transfer. Set with `load_balancing.cross_zone.enabled` in
 *   `service.beta.kubernetes.io/aws-load-balancer-attributes`.
 * - Client IP preservation is a target-group attribute (`preserve_client_ip.enabled` in
 *   `service.beta.kubernetes.io/aws-load-balancer-target-group-attributes`): off by default for IP
 *   targets with TCP/TLS, on for instance targets and for UDP/TCP_UDP.
 *
 * @see https://kubernetes.io/docs/tasks/access-application-cluster/create-external-load-balancer/#preserving-the-client-source-ip
 * @see https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/
 * @see https://docs.aws.amazon.com/elasticloadbalancing/latest/network/network-load-balancers.html#cross-zone-load-balancing
 * @see https://docs.aws.amazon.com/elasticloadbalancing/latest/network/edit-target-group-attributes.html#client-ip-preservation
 */
import type { CrossZonePricing } from '../model/cloud-pricing';
import { crossZoneDollars, priceFormula } from '../model/cloud-pricing';
import type { ClusterContext } from '../model/cluster-context';
import type { LoadBalancerLegCost } from './traffic-volume';
import type { ServiceRecord } from '../model/cluster-model';
import { isExternallyAccessible } from './service-mechanism';
import type { EndpointSlice } from '../upstream/types';

/** `service.beta.kubernetes.io/aws-load-balancer-nlb-target-type` (`ip` | `instance`). */
export const AWS_ANNOTATION_NLB_TARGET_TYPE = 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type';
/** `service.beta.kubernetes.io/aws-load-balancer-type` (`nlb`, `external`, legacy `nlb-ip`). */
export const AWS_ANNOTATION_LB_TYPE = 'service.beta.kubernetes.io/aws-load-balancer-type';
/** `service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled` (`true` | `false`). */
export const AWS_ANNOTATION_CROSS_ZONE = 'service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled';
/** `service.beta.kubernetes.io/aws-load-balancer-attributes` (`load_balancing.cross_zone.enabled=true,…`). */
export const AWS_ANNOTATION_LB_ATTRIBUTES = 'service.beta.kubernetes.io/aws-load-balancer-attributes';
/** `service.beta.kubernetes.io/aws-load-balancer-target-group-attributes` (`preserve_client_ip.enabled=true,…`). */
export const AWS_ANNOTATION_TARGET_GROUP_ATTRIBUTES = 'service.beta.kubernetes.io/aws-load-balancer-target-group-attributes';
/** `loadBalancerClass` of the AWS Load Balancer Controller. */
export const AWS_LOAD_BALANCER_CLASS = 'service.k8s.aws/nlb';

/** AWS-specific load-balancer facts. */
export interface AwsLoadBalancer {
  /** Who provisions it: the AWS Load Balancer Controller, or the in-tree cloud provider. */
  readonly controller: 'aws-load-balancer-controller' | 'in-tree';
  readonly kind: 'nlb' | 'clb';
  readonly targetType: 'ip' | 'instance';
  /** Where the target type comes from (annotation key, or `default`). */
  readonly targetTypeSource: string;
  /** Cross-zone load balancing; `false` is the NLB default. */
  readonly crossZoneEnabled: boolean;
  readonly crossZoneSource: string;
  /** Whether targets see the client's IP (target-group attribute `preserve_client_ip.enabled`). */
  readonly clientIpPreserved: boolean;
  /** Where that comes from: the annotation, or the default for the target type and protocol. */
  readonly clientIpSource: string;
}

/** One way of wiring an AWS load balancer to the pods, compared in the panel. */
export interface LoadBalancerMode {
  readonly targetType: 'ip' | 'instance';
  readonly externalTrafficPolicy: 'Cluster' | 'Local';
  /** This Service's combination. */
  readonly current: boolean;
  readonly path: string;
  readonly clientIp: string;
  readonly crossZone: string;
}

/** See {@link LoadBalancerAnalysis.leg}. */
export interface LoadBalancerLeg {
  /** Share (0–1) of the load balancer's traffic delivered to a target in another zone. */
  readonly crossZoneFraction: number;
  readonly formula: string;
}

/**
 * An NLB's cross-zone share: its nodes (one per zone with targets) take equal shares of the
 * clients (DNS round robin); with cross-zone load balancing each spreads over every target, so the
 * share kept in its zone is that zone's share of the targets: 1 − Σ_zones (1/Z) × targets_z/targets.
 * Off, each node sends only to its own zone's targets: nothing crosses.
 */
function nlbLeg(aws: AwsLoadBalancer, targetsByZone: ReadonlyMap<string, number>): LoadBalancerLeg | null {
  if (aws.kind !== 'nlb') return null;
  const what = aws.targetType === 'ip' ? 'ready pods' : 'nodes';
  if (!aws.crossZoneEnabled) return { crossZoneFraction: 0, formula: `cross-zone load balancing off: each NLB node sends only to ${what} in its own zone` };
  let total = 0;
  for (const count of targetsByZone.values()) total += count;
  const zones = [...targetsByZone.values()].filter((count) => count > 0).length;
  if (total === 0 || zones === 0) return null;
  let kept = 0;
  for (const count of targetsByZone.values()) kept += count / total / zones;
  const fraction = Math.max(0, 1 - kept);
  return { crossZoneFraction: fraction, formula: `cross-zone load balancing on: ${zones} NLB nodes (one per zone with ${what}) each spread over all ${total} ${what}; ${(fraction * 100).toFixed(1)} % lands in another zone` };
}

/**
 * The load balancer's leg priced: `externalGbPerMonth` (measured north-south GB) × the leg's
 * cross-zone share × the cluster's price; `null` without a modelled leg or an external volume.
 */
export function loadBalancerLegCost(leg: LoadBalancerLeg | null, externalGbPerMonth: number | null, pricing: CrossZonePricing): LoadBalancerLegCost | null {
  if (leg === null || externalGbPerMonth === null || !(externalGbPerMonth > 0)) return null;
  const crossZoneGbPerMonth = externalGbPerMonth * leg.crossZoneFraction;
  const monthlyCost = crossZoneDollars(crossZoneGbPerMonth, pricing);
  return {
    gbPerMonth: externalGbPerMonth,
    crossZoneFraction: leg.crossZoneFraction,
    crossZoneGbPerMonth,
    monthlyCost,
    formula: `${Number(externalGbPerMonth.toFixed(2))} GB from outside the cluster × ${(leg.crossZoneFraction * 100).toFixed(1)} % (${leg.formula}) × ${priceFormula(pricing)} = $${monthlyCost.toFixed(2)}/month`,
  };
}

/** A change to the Service's annotations, as YAML and as a command. */
export interface LoadBalancerFix {
  readonly title: string;
  readonly why: string;
  /** `metadata.annotations` fragment. */
  readonly yaml: string;
  readonly command: string;
}

/** Result of {@link analyzeLoadBalancer}. */
export interface LoadBalancerAnalysis {
  readonly type: ServiceRecord['type'];
  readonly externalTrafficPolicy: 'Cluster' | 'Local';
  readonly provider: 'aws' | 'unknown';
  readonly aws: AwsLoadBalancer | null;
  /** `lb-to-pod` (IP targets), `lb-to-node` (instance targets / other clouds), `node-port` (no load balancer). */
  readonly path: 'lb-to-pod' | 'lb-to-node' | 'node-port';
  /** NodePort, kube-proxy and externalTrafficPolicy are out of the path. */
  readonly bypassesKubeProxy: boolean;
  readonly sourceIpPreserved: boolean;
  /** Nodes that can receive external traffic (ready workers) and their local ready endpoints. */
  readonly nodesWithLocalEndpoints: number;
  /** Under Local: candidate nodes without a ready local endpoint (they fail the health check). */
  readonly nodesWithoutLocalEndpoints: { readonly count: number; readonly names: readonly string[]; readonly truncated: boolean } | null;
  /** A node may forward to an endpoint on another node. */
  readonly extraHopPossible: boolean;
  /** External traffic may cross zones somewhere on its way, and where. */
  readonly crossZonePossible: boolean;
  readonly explanation: readonly string[];
  /** AWS only: what cross-zone load balancing costs, one line; `null` elsewhere. */
  readonly crossZoneCost: string | null;
  /**
   * The load balancer's own leg (LB node → target): the share of the external traffic it sends to
   * a target in another zone, and how that follows from its settings. Modelled for AWS NLBs (a
   * billed leg); `null` elsewhere.
   */
  readonly leg: LoadBalancerLeg | null;
  /** AWS only: IP vs instance targets × externalTrafficPolicy Local vs Cluster. */
  readonly modes: readonly LoadBalancerMode[];
  /** AWS only: annotation changes worth making (cross-zone, client IP). */
  readonly fixes: readonly LoadBalancerFix[];
}

const MAX_NODE_NAMES = 50;

function isTrue(value: string | undefined): boolean {
  return value !== undefined && value.trim().toLowerCase() === 'true';
}

/** The value of `key` in a `k1=v1,k2=v2` attribute annotation, lower-cased; `null` when absent. */
function attributeValue(annotation: string | undefined, key: string): string | null {
  for (const part of (annotation ?? '').split(',')) {
    const [k, ...rest] = part.split('=');
    if (k?.trim().toLowerCase() === key) return rest.join('=').trim().toLowerCase();
  }
  return null;
}

/** The AWS load-balancer facts of a Service's annotations and class. */
export function awsLoadBalancer(service: ServiceRecord): AwsLoadBalancer {
  const a = service.annotations;
  const lbType = a[AWS_ANNOTATION_LB_TYPE]?.trim().toLowerCase();
  const albc = service.loadBalancerClass === AWS_LOAD_BALANCER_CLASS || lbType === 'external' || lbType === 'nlb-ip';
  const targetAnnotation = a[AWS_ANNOTATION_NLB_TARGET_TYPE]?.trim().toLowerCase();
  let targetType: AwsLoadBalancer['targetType'] = 'instance';
  let targetTypeSource = 'default';
  if (lbType === 'nlb-ip') {
    targetType = 'ip';
    targetTypeSource = `${AWS_ANNOTATION_LB_TYPE}: nlb-ip`;
  } else if (albc && (targetAnnotation === 'ip' || targetAnnotation === 'instance')) {
    targetType = targetAnnotation;
    targetTypeSource = AWS_ANNOTATION_NLB_TARGET_TYPE;
  }
  const attributes = a[AWS_ANNOTATION_LB_ATTRIBUTES] ?? '';
  const attr = /(?:^|,)\s*load_balancing\.cross_zone\.enabled\s*=\s*(true|false)\s*(?:,|$)/i.exec(attributes);
  let crossZoneEnabled = false;
  let crossZoneSource = 'default (off)';
  if (attr?.[1]) {
    crossZoneEnabled = attr[1].toLowerCase() === 'true';
    crossZoneSource = AWS_ANNOTATION_LB_ATTRIBUTES;
  } else if (a[AWS_ANNOTATION_CROSS_ZONE] !== undefined) {
    crossZoneEnabled = isTrue(a[AWS_ANNOTATION_CROSS_ZONE]);
    crossZoneSource = AWS_ANNOTATION_CROSS_ZONE;
  }
  // Client IP preservation: the attribute when set, else AWS's default for the target type and protocol.
  const preserve = attributeValue(a[AWS_ANNOTATION_TARGET_GROUP_ATTRIBUTES], 'preserve_client_ip.enabled');
  const udpOnly = service.ports.length > 0 && service.ports.every((p) => p.protocol.toUpperCase() === 'UDP');
  let clientIpPreserved: boolean;
  let clientIpSource: string;
  if (preserve === 'true' || preserve === 'false') {
    clientIpPreserved = preserve === 'true';
    clientIpSource = `${AWS_ANNOTATION_TARGET_GROUP_ATTRIBUTES}: preserve_client_ip.enabled=${preserve}`;
  } else if (targetType === 'instance') {
    clientIpPreserved = true;
    clientIpSource = 'default for instance targets (on)';
  } else {
    clientIpPreserved = udpOnly;
    clientIpSource = udpOnly ? 'default for IP targets with UDP (on)' : 'default for IP targets with TCP/TLS (off)';
  }
  return {
    controller: albc ? 'aws-load-balancer-controller' : 'in-tree',
    kind: albc || lbType === 'nlb' ? 'nlb' : 'clb',
    targetType,
    targetTypeSource,
    crossZoneEnabled,
    crossZoneSource,
    clientIpPreserved,
    clientIpSource,
  };
}

/** IP vs instance targets × Local vs Cluster, as the AWS Load Balancer Controller wires them. */
function awsModes(current: { targetType: 'ip' | 'instance'; policy: 'Cluster' | 'Local' }): LoadBalancerMode[] {
  const row = (targetType: 'ip' | 'instance', policy: 'Cluster' | 'Local', path: string, clientIp: string, crossZone: string): LoadBalancerMode => ({
    targetType,
    externalTrafficPolicy: policy,
    current: current.targetType === targetType && current.policy === policy,
    path,
    clientIp,
    crossZone,
  });
  return [
    row('ip', 'Cluster', 'LB → pod IP; NodePort and kube-proxy bypassed, the policy is ignored', 'only with preserve_client_ip.enabled=true (TCP default off)', 'only via the LB\'s cross-zone setting'),
    row('ip', 'Local', 'same as Cluster: the policy does not apply to IP targets', 'only with preserve_client_ip.enabled=true (TCP default off)', 'only via the LB\'s cross-zone setting'),
    row('instance', 'Cluster', 'LB → any node\'s NodePort → kube-proxy → any pod (extra hop)', 'lost: SNAT to the node IP', 'yes: the node may forward to another zone (hints narrow it), plus the LB\'s setting'),
    row('instance', 'Local', 'LB → nodes with a ready pod (health check) → a pod on that node', 'preserved', 'only via the LB\'s cross-zone setting; nodes without a pod get no traffic'),
  ];
}

function annotateCommand(service: ServiceRecord, key: string, value: string): string {
  return `kubectl annotate service ${service.name} -n ${service.namespace} ${key}=${value} --overwrite`;
}

/** `key=value` set in a `k1=v1,k2=v2` attribute annotation, keeping its other attributes. */
function withAttribute(annotation: string | undefined, key: string, value: string): string {
  const parts = (annotation ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '' && p.split('=')[0]?.trim().toLowerCase() !== key);
  return [...parts, `${key}=${value}`].join(',');
}

function annotationYaml(key: string, value: string): string {
  return `metadata:\n  annotations:\n    ${key}: ${JSON.stringify(value)}`;
}

function awsFixes(service: ServiceRecord, aws: AwsLoadBalancer): LoadBalancerFix[] {
  const fixes: LoadBalancerFix[] = [];
  if (aws.kind === 'nlb' && aws.crossZoneEnabled) {
    const value = withAttribute(service.annotations[AWS_ANNOTATION_LB_ATTRIBUTES], 'load_balancing.cross_zone.enabled', 'false');
    fixes.push({
      title: 'Turn NLB cross-zone load balancing off',
      why: 'Each NLB node then sends only to targets in its own zone: no cross-zone data transfer charge, but each zone takes the traffic its LB node receives, so keep pods spread evenly over zones.',
      yaml: annotationYaml(AWS_ANNOTATION_LB_ATTRIBUTES, value),
      command: annotateCommand(service, AWS_ANNOTATION_LB_ATTRIBUTES, value),
    });
  }
  if (aws.controller === 'aws-load-balancer-controller' && aws.targetType === 'ip' && !aws.clientIpPreserved) {
    const value = withAttribute(service.annotations[AWS_ANNOTATION_TARGET_GROUP_ATTRIBUTES], 'preserve_client_ip.enabled', 'true');
    fixes.push({
      title: 'Keep the client IP with IP targets',
      why: 'With TCP/TLS IP targets AWS turns client IP preservation off: pods see the NLB\'s private IP. Turn it on (or use proxy protocol v2) if the pods need the client IP.',
      yaml: annotationYaml(AWS_ANNOTATION_TARGET_GROUP_ATTRIBUTES, value),
      command: annotateCommand(service, AWS_ANNOTATION_TARGET_GROUP_ATTRIBUTES, value),
    });
  }
  return fixes;
}

function looksLikeAws(context: ClusterContext, service: ServiceRecord): boolean {
  if (context.release.platform === 'eks') return true;
  if (Object.keys(service.annotations).some((key) => key.startsWith('service.beta.kubernetes.io/aws-load-balancer'))) return true;
  if (service.loadBalancerClass === AWS_LOAD_BALANCER_CLASS) return true;
  const first = context.index.snapshot.nodes[0];
  return first?.providerID?.startsWith('aws://') ?? false;
}

/**
 * The external path of a LoadBalancer or NodePort Service; `null` for other Services.
 *
 * @see https://kubernetes.io/docs/tasks/access-application-cluster/create-external-load-balancer/#preserving-the-client-source-ip
 * @see https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/
 */
/** The candidate nodes of a cluster (ready workers), sorted by name, and how often each name occurs. */
interface CandidateNodes {
  readonly sorted: readonly string[];
  readonly count: ReadonlyMap<string, number>;
}

const CANDIDATES = new WeakMap<ClusterContext['clientNodesByZone'], CandidateNodes>();

/** {@link CandidateNodes} of the context, built once per set of client nodes (every LoadBalancer and NodePort Service reads them). */
function candidateNodes(context: ClusterContext): CandidateNodes {
  let found = CANDIDATES.get(context.clientNodesByZone);
  if (!found) {
    const sorted: string[] = [];
    const count = new Map<string, number>();
    for (const nodes of context.clientNodesByZone.values()) {
      for (const node of nodes) {
        sorted.push(node.name);
        count.set(node.name, (count.get(node.name) ?? 0) + 1);
      }
    }
    sorted.sort();
    found = { sorted, count };
    CANDIDATES.set(context.clientNodesByZone, found);
  }
  return found;
}

/** The first `limit` of `sorted` not in `hosts`. */
function firstWithout(sorted: readonly string[], hosts: ReadonlySet<string>, limit: number): string[] {
  const names: string[] = [];
  for (const name of sorted) {
    if (names.length >= limit) break;
    if (!hosts.has(name)) names.push(name);
  }
  return names;
}

export function analyzeLoadBalancer(context: ClusterContext, service: ServiceRecord, slices: readonly EndpointSlice[]): LoadBalancerAnalysis | null {
  if (service.type !== 'LoadBalancer' && service.type !== 'NodePort') return null;
  const policy = service.externalTrafficPolicy ?? 'Cluster';
  const aws = service.type === 'LoadBalancer' && looksLikeAws(context, service) ? awsLoadBalancer(service) : null;
  const path: LoadBalancerAnalysis['path'] = service.type === 'NodePort' ? 'node-port' : aws?.targetType === 'ip' ? 'lb-to-pod' : 'lb-to-node';
  const bypassesKubeProxy = path === 'lb-to-pod';

  // 1. Nodes with and without a ready local endpoint (candidate nodes: ready workers, the same for every Service).
  const hosts = new Set<string>();
  for (const slice of slices) for (const e of slice.endpoints) if (e.ready !== false && e.nodeName) hosts.add(e.nodeName);
  const candidates = candidateNodes(context);
  let withLocal = 0;
  for (const host of hosts) withLocal += candidates.count.get(host) ?? 0;
  const withoutCount = candidates.sorted.length - withLocal;

  // 2. Hops and zones.
  const explanation: string[] = [];
  let extraHopPossible = false;
  let crossZonePossible = false;
  let sourceIpPreserved = policy === 'Local';
  if (bypassesKubeProxy) {
    sourceIpPreserved = aws?.clientIpPreserved ?? false;
    crossZonePossible = aws?.crossZoneEnabled ?? false;
    explanation.push(
      `IP targets (${aws?.targetTypeSource}): the load balancer sends straight to pod IPs, bypassing NodePort, kube-proxy and externalTrafficPolicy; there is no extra hop.`,
      sourceIpPreserved
        ? `Client IP preserved (${aws?.clientIpSource}).`
        : `Client IP not preserved (${aws?.clientIpSource}): pods see the load balancer's private IP.`,
      aws?.crossZoneEnabled
        ? `Cross-zone load balancing is on (${aws.crossZoneSource}): each load-balancer node spreads over pods in every zone, so about (zones − 1)/zones of the traffic crosses zones.`
        : 'Cross-zone load balancing is off: each load-balancer node only sends to pods in its own zone (a zone without pods gets no traffic from its LB node).',
    );
  } else {
    if (aws) {
      explanation.push(
        `Instance targets (${aws.targetTypeSource === 'default' ? 'the default' : aws.targetTypeSource}): the load balancer sends to a NodePort on the nodes, then kube-proxy picks an endpoint.`,
      );
      if (aws.crossZoneEnabled) {
        crossZonePossible = true;
        explanation.push(`Cross-zone load balancing is on (${aws.crossZoneSource}): the load balancer itself may send to nodes in other zones.`);
      }
    }
    if (policy === 'Cluster') {
      extraHopPossible = true;
      crossZonePossible = true;
      explanation.push(
        'externalTrafficPolicy: Cluster: the receiving node forwards to any ready endpoint — an extra hop, possibly into another zone, and SNAT hides the client IP. Topology hints narrow that choice to the node\'s zone when they are on.',
      );
    } else {
      explanation.push(
        `externalTrafficPolicy: Local: only endpoints on the receiving node are used — no extra hop, client source IP preserved. ${withoutCount} of ${candidates.sorted.length} nodes have no ready local endpoint: they fail the health check, and traffic that still reaches them is dropped (timeouts).`,
      );
    }
  }
  if (!bypassesKubeProxy && aws === null && service.type === 'LoadBalancer') explanation.push('Provider not recognised: assuming the load balancer targets the nodes.');

  // 3. The load balancer's own leg: targets per zone (pods for IP targets, candidate nodes otherwise).
  let leg: LoadBalancerLeg | null = null;
  if (aws !== null && service.type === 'LoadBalancer') {
    const targets = new Map<string, number>();
    if (aws.targetType === 'ip') {
      for (const slice of slices) for (const e of slice.endpoints) if (e.ready !== false && e.zone) targets.set(e.zone, (targets.get(e.zone) ?? 0) + 1);
    } else {
      for (const [zone, nodes] of context.clientNodesByZone) if (policy === 'Cluster' || nodes.some((node) => hosts.has(node.name))) targets.set(zone, policy === 'Cluster' ? nodes.length : nodes.filter((node) => hosts.has(node.name)).length);
    }
    leg = nlbLeg(aws, targets);
  }
  return {
    type: service.type,
    externalTrafficPolicy: policy,
    provider: aws ? 'aws' : 'unknown',
    aws,
    path,
    bypassesKubeProxy,
    sourceIpPreserved,
    nodesWithLocalEndpoints: withLocal,
    nodesWithoutLocalEndpoints:
      policy === 'Local' && !bypassesKubeProxy && isExternallyAccessible(service)
        ? { count: withoutCount, names: firstWithout(candidates.sorted, hosts, MAX_NODE_NAMES), truncated: withoutCount > MAX_NODE_NAMES }
        : null,
    extraHopPossible,
    crossZonePossible,
    explanation,
    crossZoneCost:
      aws === null
        ? null
        : aws.kind === 'nlb'
          ? `NLB cross-zone load balancing is ${aws.crossZoneEnabled ? 'on' : 'off (the NLB default)'}; when on, traffic an NLB node sends to a target in another zone is billed at the inter-AZ data transfer rate (ALBs: on by default, no charge).`
          : `Classic Load Balancer cross-zone load balancing is ${aws.crossZoneEnabled ? 'on' : 'off'} (${aws.crossZoneSource}).`,
    leg,
    modes: aws ? awsModes({ targetType: aws.targetType, policy }) : [],
    fixes: aws ? awsFixes(service, aws) : [],
  };
}

/**
 * An AWS load balancer as a Service's annotations and class configure it: who provisions it (the
 * AWS Load Balancer Controller or the in-tree cloud provider), NLB or Classic, IP or instance
 * targets, cross-zone load balancing, client IP preservation; the four ways of wiring it (IP vs
 * instance targets × `externalTrafficPolicy`); and the annotation changes worth making.
 *
 * Facts used:
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
 * @see https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/
 * @see https://docs.aws.amazon.com/elasticloadbalancing/latest/network/network-load-balancers.html#cross-zone-load-balancing
 * @see https://docs.aws.amazon.com/elasticloadbalancing/latest/network/edit-target-group-attributes.html#client-ip-preservation
 */
import type { ClusterContext } from '../model/cluster-context';
import type { ServiceRecord } from '../model/cluster-model';

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

/** A change to the Service's annotations, as YAML and as a command. */
export interface LoadBalancerFix {
  readonly title: string;
  readonly why: string;
  /** `metadata.annotations` fragment. */
  readonly yaml: string;
  readonly command: string;
}

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
export function awsModes(current: { targetType: 'ip' | 'instance'; policy: 'Cluster' | 'Local' }): LoadBalancerMode[] {
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

export function awsFixes(service: ServiceRecord, aws: AwsLoadBalancer): LoadBalancerFix[] {
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

/** Whether the Service's load balancer is AWS's: an EKS cluster, AWS load-balancer annotations or class, or nodes with `aws://` provider IDs. */
export function looksLikeAws(context: ClusterContext, service: ServiceRecord): boolean {
  if (Object.keys(service.annotations).some((key) => key.startsWith('service.beta.kubernetes.io/aws-load-balancer'))) return true;
  if (service.loadBalancerClass === AWS_LOAD_BALANCER_CLASS) return true;
  return clusterLooksLikeAws(context);
}

/** What {@link looksLikeAws} reads of the cluster: an EKS server version, or a first node whose provider ID is AWS's. */
export function clusterLooksLikeAws(context: ClusterContext): boolean {
  if (context.release.platform === 'eks') return true;
  const first = context.index.snapshot.nodes[0];
  return first?.providerID?.startsWith('aws://') ?? false;
}

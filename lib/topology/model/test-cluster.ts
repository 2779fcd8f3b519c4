/**
 * Small builders of cluster records for the analysis tests: readable worked examples instead of
 * YAML. Not used by production code.
 */
import type {
  ClusterIndex,
  ClusterSnapshot,
  DeploymentRecord,
  EndpointSliceRecord,
  HpaRecord,
  NodeRecord,
  PodRecord,
  ReplicaSetRecord,
  ServiceRecord,
} from './cluster-model';
import { EMPTY_SNAPSHOT, indexCluster } from './cluster-model';
import { ENDPOINTSLICE_CONTROLLER_NAME } from '../upstream/constants';
import type { Endpoint, EndpointHints } from '../upstream/types';

/** A ready worker node in `zone` with `cpu` allocatable CPU. */
export function testNode(name: string, zone: string | null, cpu: string | null = '4', extra: Partial<NodeRecord> = {}): NodeRecord {
  return { name, zone, region: null, allocatableCpu: cpu, ready: true, unschedulable: false, labels: {}, providerID: null, ...extra };
}

/** One 4-CPU worker per zone: `node-a` in `zone-a`, and so on. */
export function testZoneNodes(zones: readonly string[] = ['zone-a', 'zone-b', 'zone-c']): NodeRecord[] {
  return zones.map((zone) => testNode(`node-${zone.replace(/^zone-/, '')}`, zone));
}

/** A ClusterIP Service `default/<name>` selecting `app=<name>`. */
export function testService(name: string, extra: Partial<ServiceRecord> = {}): ServiceRecord {
  return {
    namespace: 'default',
    name,
    uid: `uid-${name}`,
    resourceVersion: '1',
    annotations: {},
    type: 'ClusterIP',
    selector: { app: name },
    clusterIP: '10.96.0.10',
    externalTrafficPolicy: null,
    internalTrafficPolicy: 'Cluster',
    trafficDistribution: null,
    ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: null }],
    externalIPs: [],
    loadBalancerIngress: [],
    loadBalancerClass: null,
    ipFamilies: ['IPv4'],
    ...extra,
  };
}

/** A ready endpoint in `zone` on `node-<zone suffix>`. */
export function testEndpoint(ip: string, zone: string | null, hints: EndpointHints | null = null, extra: Partial<Endpoint> = {}): Endpoint {
  return { addresses: [ip], zone, nodeName: zone ? `node-${zone.replace(/^zone-/, '')}` : null, ready: true, hints, ...extra };
}

/**
 * Ready endpoints with `countsByZone[zone]` endpoints per zone, in zone order, named
 * `10.0.<zone index>.<n>` and backed by pods `<service>-<zone>-<n>`. `hinted` writes a same-zone hint.
 */
export function testEndpoints(countsByZone: Readonly<Record<string, number>>, options: { hinted?: boolean; service?: string } = {}): Endpoint[] {
  const endpoints: Endpoint[] = [];
  Object.entries(countsByZone).forEach(([zone, count], z) => {
    for (let i = 1; i <= count; i++) {
      endpoints.push(
        testEndpoint(`10.0.${z}.${i}`, zone, options.hinted ? { forZones: [zone] } : null, { podName: `${options.service ?? 'web'}-${zone}-${i}` }),
      );
    }
  });
  return endpoints;
}

/** An EndpointSlice of `default/<service>` managed by the EndpointSlice controller. */
export function testSlice(service: string, endpoints: readonly Endpoint[], extra: Partial<EndpointSliceRecord> = {}): EndpointSliceRecord {
  return {
    namespace: 'default',
    name: `${service}-abc`,
    resourceVersion: '1',
    serviceName: service,
    managedBy: ENDPOINTSLICE_CONTROLLER_NAME,
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints,
    ...extra,
  };
}

/** Pods, ReplicaSet, Deployment (and optionally HPA) behind the endpoints of `service`. */
export function testWorkload(
  service: string,
  endpoints: readonly Endpoint[],
  options: { hpa?: { minReplicas: number; maxReplicas: number }; spread?: DeploymentRecord['topologySpreadConstraints'] } = {},
): { pods: PodRecord[]; replicaSets: ReplicaSetRecord[]; deployments: DeploymentRecord[]; hpas: HpaRecord[] } {
  const rs = `${service}-5d9f`;
  const pods: PodRecord[] = endpoints.map((e, i) => ({
    namespace: 'default',
    name: e.podName ?? `${service}-${i}`,
    labels: { app: service },
    nodeName: e.nodeName,
    phase: 'Running',
    ready: e.ready !== false,
    terminating: false,
    owner: { kind: 'ReplicaSet', name: rs },
  }));
  return {
    pods,
    replicaSets: [{ namespace: 'default', name: rs, replicas: pods.length, owner: { kind: 'Deployment', name: service } }],
    deployments: [
      {
        namespace: 'default',
        name: service,
        replicas: pods.length,
        readyReplicas: pods.filter((p) => p.ready).length,
        selector: { matchLabels: { app: service }, matchExpressions: [] },
        templateLabels: { app: service },
        topologySpreadConstraints: options.spread ?? [],
        zoneAntiAffinity: false,
      },
    ],
    hpas: options.hpa
      ? [
          {
            namespace: 'default',
            name: service,
            scaleTargetRef: { kind: 'Deployment', name: service },
            minReplicas: options.hpa.minReplicas,
            maxReplicas: options.hpa.maxReplicas,
            currentReplicas: pods.length,
            desiredReplicas: pods.length,
          },
        ]
      : [],
  };
}

/** A cluster of Services, each with its slices and the workload behind them (see {@link testWorkload}). */
export function testWorkloadCluster(
  built: readonly { service: ServiceRecord; slices: readonly EndpointSliceRecord[]; workload: ReturnType<typeof testWorkload> }[],
): ClusterIndex {
  return testCluster({
    services: built.map((b) => b.service),
    endpointSlices: built.flatMap((b) => b.slices),
    pods: built.flatMap((b) => b.workload.pods),
    replicaSets: built.flatMap((b) => b.workload.replicaSets),
    deployments: built.flatMap((b) => b.workload.deployments),
    hpas: built.flatMap((b) => b.workload.hpas),
  });
}

/** A snapshot with empty defaults (release 1.30, kube-proxy iptables, no CNI facts). */
export function testSnapshot(parts: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return {
    ...EMPTY_SNAPSHOT,
    version: { gitVersion: 'v1.30.2', minor: 30, platform: null },
    nodes: testZoneNodes(),
    proxy: { mode: 'iptables', modeAsWritten: 'iptables', ipvsScheduler: null, source: 'kube-system/kube-proxy-config' },
    ...parts,
  };
}

/** {@link testSnapshot} indexed. */
export function testCluster(parts: Partial<ClusterSnapshot> = {}): ClusterIndex {
  return indexCluster(testSnapshot(parts));
}

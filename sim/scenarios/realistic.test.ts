import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { generatedScenario } from '../scenario';
import type { KubeObject } from '../types';
import { generateCluster, SCALES } from './generator';
import { generateRealisticCluster, parseRealisticSpec, REALISTIC_SCALES } from './realistic';

type Json = Record<string, unknown>;

const objects = generateRealisticCluster(REALISTIC_SCALES.S);
const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
const labels = (o: KubeObject) => o.metadata.labels ?? {};
const annotations = (o: KubeObject) => o.metadata.annotations ?? {};
const spec = (o: KubeObject) => o.spec as Json;
const status = (o: KubeObject) => o.status as Json;

describe('generated:realistic-S|M|L', () => {
  it('parses realistic-S|M|L and names what it expects otherwise', () => {
    expect(parseRealisticSpec('M')).toBe(REALISTIC_SCALES.M);
    expect(generatedScenario('generated:realistic-XL')).toBe('unknown realistic size "XL" (expected realistic-S, realistic-M or realistic-L)');
    const scenario = generatedScenario('generated:realistic-S');
    expect(typeof scenario === 'string' ? scenario : scenario.serverVersion).toBe('v1.31.4-eks-2d98532');
  });

  it('is deterministic', () => {
    const again = generateRealisticCluster(REALISTIC_SCALES.S);
    expect(createHash('sha256').update(JSON.stringify(again)).digest('hex')).toBe(createHash('sha256').update(JSON.stringify(objects)).digest('hex'));
  });

  it('leaves generated:S as it was (benchmarks and fixtures depend on it)', () => {
    const s = generateCluster(SCALES.S);
    expect(s.filter((o) => o.kind === 'Pod')).toHaveLength(1_500);
    expect(s.filter((o) => o.kind === 'Service')).toHaveLength(200);
    expect(createHash('sha256').update(JSON.stringify(s)).digest('hex').slice(0, 16)).toBe(GENERATED_S_DIGEST);
  });

  it('has the S size: 50 nodes in 3 uneven zones, 100 Services, ~1,000 pods', () => {
    expect(ofKind('Node')).toHaveLength(50);
    expect(ofKind('Service')).toHaveLength(100);
    expect(ofKind('Pod').length).toBeGreaterThanOrEqual(950);
    expect(ofKind('Pod').length).toBeLessThanOrEqual(1_100);
    const perZone: Record<string, number> = {};
    for (const n of ofKind('Node')) perZone[labels(n)['topology.kubernetes.io/zone'] ?? ''] = (perZone[labels(n)['topology.kubernetes.io/zone'] ?? ''] ?? 0) + 1;
    expect(perZone).toEqual({ 'us-east-1a': 25, 'us-east-1b': 15, 'us-east-1c': 10 });
    expect(Object.keys(REALISTIC_SCALES.L.zoneWeights)).toHaveLength(4);
  });

  it('writes Nodes as EKS does: labels, providerID, images, capacity, taints, NotReady and cordoned ones', () => {
    const nodes = ofKind('Node');
    for (const n of nodes) {
      expect(labels(n)).toMatchObject({ 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/region': 'us-east-1' });
      expect(labels(n)['node.kubernetes.io/instance-type']).toMatch(/^[a-z0-9]+\.[a-z0-9]+$/);
      expect(String(spec(n).providerID)).toMatch(/^aws:\/\/\/us-east-1[a-d]\/i-0[0-9a-f]{16}$/);
      expect((status(n).images as unknown[]).length).toBeGreaterThanOrEqual(10);
      expect(status(n).capacity).toHaveProperty('cpu');
      expect(status(n).allocatable).toHaveProperty('cpu');
      expect(((n.metadata.managedFields as unknown[] | undefined) ?? []).length).toBeGreaterThanOrEqual(3);
    }
    expect(nodes.some((n) => labels(n)['eks.amazonaws.com/nodegroup'] !== undefined)).toBe(true);
    expect(nodes.some((n) => labels(n)['karpenter.sh/nodepool'] !== undefined)).toBe(true);
    const ready = (n: KubeObject) => (status(n).conditions as Json[]).find((c) => c.type === 'Ready')?.status;
    expect(nodes.filter((n) => ready(n) !== 'True').length).toBeGreaterThan(0);
    expect(nodes.filter((n) => spec(n).unschedulable === true).length).toBeGreaterThan(0);
    expect(nodes.filter((n) => ((spec(n).taints as Json[] | undefined) ?? []).some((t) => t.key === 'CriticalAddonsOnly')).length).toBeGreaterThan(0);
  });

  it('writes Helm workloads: labels, annotations, last-applied on kubectl ones, old ReplicaSets, long-tailed replicas', () => {
    const deployments = ofKind('Deployment');
    const helm = deployments.filter((d) => labels(d)['app.kubernetes.io/managed-by'] === 'Helm');
    expect(helm.length).toBeGreaterThan(deployments.length / 2);
    for (const d of helm) {
      expect(labels(d)['helm.sh/chart']).toMatch(/-\d+\.\d+\.\d+$/);
      expect(annotations(d)).toMatchObject({ 'meta.helm.sh/release-name': expect.any(String) as string, 'meta.helm.sh/release-namespace': d.metadata.namespace });
    }
    expect(deployments.some((d) => annotations(d)['kubectl.kubernetes.io/last-applied-configuration'] !== undefined)).toBe(true);
    const replicas = deployments.map((d) => Number(spec(d).replicas)).sort((a, b) => a - b);
    expect(replicas.filter((r) => r <= 3).length).toBeGreaterThan(deployments.length / 2);
    expect(replicas.at(-1)).toBeGreaterThanOrEqual(100);
    // Every Deployment has exactly one ReplicaSet with replicas; some have old ones at 0.
    const replicaSets = ofKind('ReplicaSet');
    for (const d of deployments) {
      const owned = replicaSets.filter((rs) => rs.metadata.ownerReferences?.[0]?.uid === d.metadata.uid);
      expect(owned.filter((rs) => Number(spec(rs).replicas) > 0 || Number(spec(d).replicas) === 0)).toHaveLength(1);
      for (const rs of owned) expect(rs.metadata.name).toBe(`${d.metadata.name}-${labels(rs)['pod-template-hash'] ?? ''}`);
    }
    expect(replicaSets.length).toBeGreaterThan(deployments.length);
  });

  it('writes full pods: managedFields, probes, resources, token volume, statuses; some NotReady, some terminating', () => {
    const pods = ofKind('Pod');
    for (const p of pods.slice(0, 200)) {
      expect(((p.metadata.managedFields as unknown[] | undefined) ?? []).length).toBeGreaterThanOrEqual(2);
      const containers = spec(p).containers as Json[];
      expect(containers[0]).toHaveProperty('resources');
      expect((spec(p).volumes as Json[]).some((v) => String(v.name).startsWith('kube-api-access-'))).toBe(true);
      expect(status(p)).toHaveProperty('qosClass');
    }
    const running = pods.filter((p) => status(p).phase === 'Running');
    expect(running.every((p) => Array.isArray(status(p).podIPs) && typeof status(p).hostIP === 'string' && Array.isArray(status(p).containerStatuses))).toBe(true);
    const notReady = running.filter((p) => (status(p).conditions as Json[]).some((c) => c.type === 'Ready' && c.status === 'False'));
    expect(notReady.length).toBeGreaterThan(0);
    expect(pods.filter((p) => typeof p.metadata.deletionTimestamp === 'string').length).toBeGreaterThan(0);
    expect(pods.some((p) => Array.isArray(spec(p).topologySpreadConstraints))).toBe(true);
    expect(pods.some((p) => spec(p).affinity !== undefined)).toBe(true);
    // No pod sits on a node whose NoSchedule taints it does not tolerate (DaemonSets tolerate all).
    const taints = new Map(ofKind('Node').map((n) => [n.metadata.name, ((spec(n).taints as Json[] | undefined) ?? []).filter((t) => t.effect === 'NoSchedule' && t.key !== 'node.kubernetes.io/unreachable')]));
    for (const p of pods) {
      const on = taints.get(String(spec(p).nodeName)) ?? [];
      const tolerations = (spec(p).tolerations as Json[] | undefined) ?? [];
      for (const t of on) expect(tolerations.some((x) => x.operator === 'Exists' && (x.key === undefined || x.key === t.key) || (x.key === t.key && x.value === t.value)), `${p.metadata.name} on ${String(spec(p).nodeName)}`).toBe(true);
    }
  });

  it('writes Services of every kind, HPAs (autoscaling/v2) and EndpointSlices with hints where they apply', () => {
    const services = ofKind('Service');
    expect(services.filter((s) => spec(s).type === 'ExternalName').length).toBeGreaterThan(0);
    expect(services.filter((s) => spec(s).type !== 'ExternalName' && spec(s).selector === undefined).length).toBeGreaterThanOrEqual(2);
    expect(services.filter((s) => annotations(s)['service.kubernetes.io/topology-mode'] === 'Auto').length).toBeGreaterThan(0);
    expect(services.filter((s) => spec(s).trafficDistribution === 'PreferClose').length).toBeGreaterThan(0);
    const shapes = new Set(services.map((s) => JSON.stringify([spec(s).ports, spec(s).type, annotations(s)['service.kubernetes.io/topology-mode'] ?? null, spec(s).trafficDistribution ?? null])));
    expect(shapes.size).toBeGreaterThan(20);
    const hpas = ofKind('HorizontalPodAutoscaler');
    expect(hpas.length).toBeGreaterThan(0);
    expect(hpas.every((h) => h.apiVersion === 'autoscaling/v2' && Array.isArray(spec(h).metrics))).toBe(true);
    const slices = ofKind('EndpointSlice');
    const managed = slices.filter((s) => labels(s)['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-controller.k8s.io');
    expect(managed.every((s) => (s.endpoints as unknown[]).length <= 100)).toBe(true);
    expect(managed.some((s) => (s.endpoints as Json[]).some((e) => e.hints !== undefined))).toBe(true);
    expect(managed.some((s) => (s.endpoints as Json[]).some((e) => (e.conditions as Json).terminating === true))).toBe(true);
    expect(slices.some((s) => labels(s)['endpointslice.kubernetes.io/managed-by'] === 'endpointslicemirroring-controller.k8s.io')).toBe(true);
  });
});

/** sha256 prefix of `generateCluster(SCALES.S)` as committed: a change to it breaks the benchmarks' baseline. */
const GENERATED_S_DIGEST = 'bc3a1cb61773b800';

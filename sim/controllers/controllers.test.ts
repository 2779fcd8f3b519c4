import { describe, expect, it } from 'vitest';

import { createSimContext } from '../controller';
import { scenarioEntries } from '../scenario';
import { ScenarioBuilder, seeded } from '../scenarios/builder';
import { ObjectStore } from '../store';
import { deployment, node, pod, service } from '../test-support';
import type { KubeObject, ReadonlyKubeObject } from '../types';
import { createEndpointSliceController } from './endpointslice-controller';
import { createWorkloadsController } from './workloads-controller';

const A = 'zone-a';
const B = 'zone-b';
const C = 'zone-c';

function cluster(build: (b: ScenarioBuilder) => void, version = 'v1.31.4') {
  const b = new ScenarioBuilder(1, version);
  b.nodes({ zone: A, count: 2, cpu: '2' });
  b.nodes({ zone: B, count: 2, cpu: '2' });
  b.nodes({ zone: C, count: 2, cpu: '2' });
  b.namespace('shop');
  build(b);
  const random = seeded(42);
  const store = new ObjectStore();
  store.replaceAll(scenarioEntries(b.objects));
  const workloads = createWorkloadsController();
  const slices = createEndpointSliceController();
  for (const controller of [workloads, slices]) {
    controller.start(createSimContext(store, { now: () => new Date('2026-01-01T00:00:00Z'), random, serverVersion: version, log: () => undefined }).context);
  }
  const settle = () => {
    for (let i = 0; i < 5; i++) {
      workloads.flush();
      slices.flush();
    }
  };
  settle();
  const hintsOf = (service: string) =>
    store
      .all('endpointslices', 'shop')
      .filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === service)
      .flatMap((s) => (s.endpoints as { zone?: string; hints?: { forZones: { name: string }[] } }[]) ?? [])
      .map((e) => ({ zone: e.zone, hint: e.hints?.forZones.map((z) => z.name).join(',') ?? null }));
  const events = (service: string) =>
    store
      .all('events', 'shop')
      .filter((e) => (e.involvedObject as { name: string }).name === service)
      .map((e) => `${String(e.reason)}: ${String(e.message)}`);
  const patch = (resource: 'services' | 'deployments', name: string, change: (o: KubeObject) => void) => {
    const current = store.get(resource, 'shop', name) as ReadonlyKubeObject;
    const copy = JSON.parse(JSON.stringify(current)) as KubeObject;
    change(copy);
    store.update(resource, copy);
    settle();
  };
  return { store, hintsOf, events, patch, settle };
}

describe('simulated EndpointSlice controller', () => {
  it('annotating a Service with topology-mode Auto writes same-zone hints and an Enabled event', () => {
    const c = cluster((b) => {
      const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 2, [B]: 2, [C]: 2 } });
      b.service({ namespace: 'shop', name: 'web', selector: web });
    });
    expect(c.hintsOf('web').every((e) => e.hint === null)).toBe(true);
    c.patch('services', 'web', (s) => {
      s.metadata.annotations = { 'service.kubernetes.io/topology-mode': 'Auto' };
    });
    const hints = c.hintsOf('web');
    expect(hints).toHaveLength(6);
    expect(hints.every((e) => e.hint === e.zone)).toBe(true);
    expect(c.events('web')).toEqual(['TopologyAwareHintsEnabled: Topology Aware Hints has been enabled, addressType: IPv4']);
  });

  it('removing the annotation strips hints and records the Disabled warning', () => {
    const c = cluster((b) => {
      const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 2, [B]: 2, [C]: 2 } });
      b.service({ namespace: 'shop', name: 'web', selector: web, annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } });
    });
    c.patch('services', 'web', (s) => {
      s.metadata.annotations = {};
    });
    expect(c.hintsOf('web').every((e) => e.hint === null)).toBe(true);
    expect(c.events('web')).toContain('TopologyAwareHintsDisabled: Topology Aware Hints has been disabled, addressType: IPv4');
  });

  it('scaling a Deployment down to 4 replicas over three equal zones turns hints off (minimum 2 per zone)', () => {
    const c = cluster((b) => {
      const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 3, [B]: 3, [C]: 3 } });
      b.service({ namespace: 'shop', name: 'web', selector: web, annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } });
    });
    expect(c.hintsOf('web').filter((e) => e.hint !== null)).toHaveLength(9);
    c.patch('deployments', 'web', (d) => {
      (d.spec as { replicas: number }).replicas = 4;
    });
    expect(c.store.count('pods', 'shop')).toBe(4);
    expect(c.hintsOf('web').every((e) => e.hint === null)).toBe(true);
    expect(c.events('web').at(-1)).toBe(
      'TopologyAwareHintsDisabled: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones), addressType: IPv4',
    );
  });

  it('scale-up places new pods in the zone with the fewest', () => {
    const c = cluster((b) => {
      const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 3, [B]: 1, [C]: 1 } });
      b.service({ namespace: 'shop', name: 'web', selector: web });
    });
    c.patch('deployments', 'web', (d) => {
      (d.spec as { replicas: number }).replicas = 9;
    });
    const perZone = c.hintsOf('web').reduce<Record<string, number>>((acc, e) => ({ ...acc, [e.zone ?? '']: (acc[e.zone ?? ''] ?? 0) + 1 }), {});
    expect(perZone).toEqual({ [A]: 3, [B]: 3, [C]: 3 });
  });

  it('trafficDistribution PreferClose hints every endpoint for its own zone', () => {
    const c = cluster((b) => {
      const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 3, [B]: 1, [C]: 1 } });
      b.service({ namespace: 'shop', name: 'web', selector: web, trafficDistribution: 'PreferClose' });
    });
    const hints = c.hintsOf('web');
    expect(hints).toHaveLength(5);
    expect(hints.every((e) => e.hint === e.zone)).toBe(true);
    expect(c.events('web')).toEqual([]);
  });

  it('a hand-edited managed slice is put back by the controller', () => {
    const c = cluster((b) => {
      const web = b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 2, [B]: 2, [C]: 2 } });
      b.service({ namespace: 'shop', name: 'web', selector: web, annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } });
    });
    const slice = c.store.all('endpointslices', 'shop')[0] as ReadonlyKubeObject;
    const edited = JSON.parse(JSON.stringify(slice)) as KubeObject;
    for (const e of edited.endpoints as { hints?: unknown }[]) delete e.hints;
    c.store.update('endpointslices', edited);
    c.settle();
    expect(c.hintsOf('web').every((e) => e.hint === e.zone)).toBe(true);
  });
});

/** A store loaded with `objects`, both controllers started on it, and a way to settle them. */
function loaded(objects: KubeObject[], version = 'v1.31.4') {
  const store = new ObjectStore();
  store.replaceAll(scenarioEntries(objects));
  const workloads = createWorkloadsController();
  const slices = createEndpointSliceController();
  const writes: string[] = [];
  store.subscribe('*', (e) => writes.push(`${e.type} ${e.resource} ${e.object.metadata.name}`));
  for (const controller of [workloads, slices]) {
    controller.start(createSimContext(store, { now: () => new Date('2026-01-01T00:00:00Z'), random: seeded(7), serverVersion: version, log: () => undefined }).context);
  }
  const settle = () => {
    for (let i = 0; i < 5; i++) {
      workloads.flush();
      slices.flush();
    }
  };
  settle();
  const slicesOf = (service: string) =>
    store
      .all('endpointslices', 'shop')
      .filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === service)
      .map((s) => ({ addressType: s.addressType, addresses: ((s.endpoints as { addresses: string[] }[]) ?? []).map((e) => e.addresses[0]).sort() }))
      .sort((a, b) => String(a.addressType).localeCompare(String(b.addressType)));
  return { store, settle, slicesOf, writes };
}

function dualStackPod(name: string, nodeName: string, v4: string, v6: string): KubeObject {
  const p = pod(name, 'shop', { app: 'web' }, nodeName);
  p.status = { phase: 'Running', podIP: v4, podIPs: [{ ip: v4 }, { ip: v6 }], conditions: [{ type: 'Ready', status: 'True' }] };
  return p;
}

function webService(spec: Record<string, unknown>): KubeObject {
  const s = service('web', 'shop');
  s.spec = { ...(s.spec as Record<string, unknown>), ...spec };
  return s;
}

describe('simulated EndpointSlice controller: address families', () => {
  const pods = () => [dualStackPod('web-1', 'n-a', '10.0.0.1', 'fd00::1'), dualStackPod('web-2', 'n-b', '10.0.0.2', 'fd00::2')];
  const nodes = () => [node('n-a', A), node('n-b', B)];

  it('a dual-stack Service gets one slice per address type, each with the pods’ IPs of that family', () => {
    const c = loaded([...nodes(), ...pods(), webService({ ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' })]);
    expect(c.slicesOf('web')).toEqual([
      { addressType: 'IPv4', addresses: ['10.0.0.1', '10.0.0.2'] },
      { addressType: 'IPv6', addresses: ['fd00::1', 'fd00::2'] },
    ]);
  });

  it('an IPv6 single-stack Service gets IPv6 slices only, and keeps them on the next sync', () => {
    const c = loaded([...nodes(), ...pods(), webService({ ipFamilies: ['IPv6'], clusterIP: 'fd00:ffff::10' })]);
    expect(c.slicesOf('web')).toEqual([{ addressType: 'IPv6', addresses: ['fd00::1', 'fd00::2'] }]);
    const writes = c.writes.length;
    const svc = JSON.parse(JSON.stringify(c.store.get('services', 'shop', 'web'))) as KubeObject;
    svc.metadata.labels = { ...svc.metadata.labels, touched: 'yes' };
    c.store.update('services', svc);
    c.settle();
    expect(c.slicesOf('web')).toEqual([{ addressType: 'IPv6', addresses: ['fd00::1', 'fd00::2'] }]);
    expect(c.writes.slice(writes)).toEqual(['MODIFIED services web']);
  });

  it('a Service changed from dual-stack to IPv4 loses its IPv6 slices', () => {
    const c = loaded([...nodes(), ...pods(), webService({ ipFamilies: ['IPv4', 'IPv6'] })]);
    const svc = JSON.parse(JSON.stringify(c.store.get('services', 'shop', 'web'))) as KubeObject;
    (svc.spec as Record<string, unknown>).ipFamilies = ['IPv4'];
    c.store.update('services', svc);
    c.settle();
    expect(c.slicesOf('web')).toEqual([{ addressType: 'IPv4', addresses: ['10.0.0.1', '10.0.0.2'] }]);
  });

  it('topology hints are computed per address type on a dual-stack Service', () => {
    const six = [0, 1, 2, 3, 4, 5].map((i) => dualStackPod(`web-${i}`, i % 2 === 0 ? 'n-a' : 'n-b', `10.0.0.${i + 1}`, `fd00::${i + 1}`));
    const svc = webService({ ipFamilies: ['IPv4', 'IPv6'] });
    svc.metadata.annotations = { 'service.kubernetes.io/topology-mode': 'Auto' };
    const c = loaded([...nodes(), ...six, svc]);
    for (const slice of c.store.all('endpointslices', 'shop')) {
      const endpoints = slice.endpoints as { zone: string; hints?: { forZones: { name: string }[] } }[];
      expect(endpoints.every((e) => e.hints?.forZones[0]?.name === e.zone)).toBe(true);
    }
    expect(c.store.all('endpointslices', 'shop').map((s) => s.addressType).sort()).toEqual(['IPv4', 'IPv6']);
    // Upstream marks hints populated per Service: the transition is announced once, by the first family.
    expect(c.store.all('events', 'shop').map((e) => e.message)).toEqual(['Topology Aware Hints has been enabled, addressType: IPv4']);
  });
});

describe('simulated EndpointSlice controller: slices a real controller wrote', () => {
  it('adopts a matching slice as it is (named port resolved, extra metadata), writing nothing', () => {
    const web = pod('web-1', 'shop', { app: 'web' }, 'n-a');
    web.metadata.uid = 'pod-uid-1';
    web.spec = { nodeName: 'n-a', containers: [{ name: 'app', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] };
    web.status = { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] };
    const svc = webService({ ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] });
    svc.metadata.uid = 'svc-uid';
    const slice: KubeObject = {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: {
        name: 'web-x7k2p', namespace: 'shop', generateName: 'web-', generation: 12,
        labels: { app: 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': 'web' },
        annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2026-10-01T00:00:00Z' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-uid', controller: true, blockOwnerDeletion: true }],
        managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'discovery.k8s.io/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:endpoints': {} } }],
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n-a', zone: A, targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-1', uid: 'pod-uid-1' } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    };
    const c = loaded([node('n-a', A), node('n-b', B), web, svc, slice]);
    expect(c.writes).toEqual([]);
    expect(c.store.get('endpointslices', 'shop', 'web-x7k2p')?.metadata.annotations).toEqual({ 'endpoints.kubernetes.io/last-change-trigger-time': '2026-10-01T00:00:00Z' });
  });
});

describe('simulated EndpointSlice controller: slice names', () => {
  it('names a new slice apart from one another writer left under the name its counter reaches next, instead of failing the sync', () => {
    // A slice a mirroring controller (another manager) wrote as `web-00001`, the name this controller's
    // counter gives its first slice: a restarted controller over a kept store meets the same.
    const other: KubeObject = {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: 'web-00001', namespace: 'shop', labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io', 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.9.9.9'], conditions: { ready: true } }],
      ports: [],
    };
    const web = pod('web-1', 'shop', { app: 'web' }, 'n-a');
    web.status = { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] };
    const c = loaded([node('n-a', A), node('n-b', B), web, webService({}), other]);
    const names = c.store.all('endpointslices', 'shop').map((slice) => `${slice.metadata.name} ${slice.metadata.labels?.['endpointslice.kubernetes.io/managed-by']}`);
    expect(names.sort()).toEqual(['web-00001 endpointslicemirroring-controller.k8s.io', 'web-00002 endpointslice-controller.k8s.io']);
    expect(c.store.get('endpointslices', 'shop', 'web-00001')?.endpoints).toEqual(other.endpoints);
  });
});

describe('simulated workloads controller on a dump', () => {
  it('adopts a ReplicaSet’s pods as they are: terminating pods do not count, old ReplicaSets stay at 0', () => {
    const b = new ScenarioBuilder(3, 'v1.31.4');
    b.nodes({ zone: A, count: 2, cpu: '2' });
    b.nodes({ zone: B, count: 2, cpu: '2' });
    b.namespace('shop');
    b.deployment({ namespace: 'shop', name: 'web', podsPerZone: { [A]: 2, [B]: 1 } });
    const objects = b.objects.map((o) => JSON.parse(JSON.stringify(o)) as KubeObject);
    const deploymentObject = objects.find((o) => o.kind === 'Deployment') as KubeObject;
    const rs = objects.find((o) => o.kind === 'ReplicaSet') as KubeObject;
    const first = objects.find((o) => o.kind === 'Pod') as KubeObject;
    // An extra pod of the same ReplicaSet, being deleted (the replacement already exists).
    const terminating = { ...JSON.parse(JSON.stringify(first)), metadata: { ...JSON.parse(JSON.stringify(first.metadata)), name: `${first.metadata.name}-old`, deletionTimestamp: '2026-01-01T00:00:00Z', uid: 'terminating-uid' } } as KubeObject;
    (terminating.status as Record<string, unknown>).podIP = '10.9.9.9';
    // An old ReplicaSet of an earlier template, scaled to 0 (revision history).
    const old = JSON.parse(JSON.stringify(rs)) as KubeObject;
    old.metadata.name = 'web-oldhash';
    old.metadata.uid = 'old-rs-uid';
    (old.spec as Record<string, unknown>).replicas = 0;
    ((old.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0] as { image: string }).image = 'nginx:old';
    old.status = { replicas: 0 };
    const c = loaded([...objects, terminating, old]);
    expect(c.writes.filter((w) => !w.includes('endpointslices') && !w.includes('events'))).toEqual([]);
    expect(c.store.count('pods', 'shop')).toBe(4);
    expect(c.store.get('replicasets', 'shop', 'web-oldhash')).toBeDefined();
    expect(c.store.get('pods', 'shop', `${first.metadata.name}-old`)?.metadata.deletionTimestamp).toBe('2026-01-01T00:00:00Z');
    expect(deploymentObject.metadata.name).toBe('web');
  });
});

describe('simulated scheduler and taints', () => {
  function tainted(tolerations?: unknown[]) {
    const taint = (n: KubeObject, effect: string) => {
      n.spec = { ...(n.spec as Record<string, unknown>), taints: [{ key: 'dedicated', value: 'gpu', effect }] };
      return n;
    };
    const d = deployment('web', 'shop', 1);
    if (tolerations) ((d.spec as { template: { spec: Record<string, unknown> } }).template.spec).tolerations = tolerations;
    // Zone A is the emptiest, but its nodes are tainted; zone B has an untainted node.
    const nodes = [taint(node('gpu-1', A, '8'), 'NoSchedule'), taint(node('gpu-2', A, '8'), 'NoExecute'), node('plain-1', B)];
    const c = loaded([...nodes, d]);
    const scale = (replicas: number) => {
      const current = JSON.parse(JSON.stringify(c.store.get('deployments', 'shop', 'web'))) as KubeObject;
      (current.spec as { replicas: number }).replicas = replicas;
      c.store.update('deployments', current);
      c.settle();
    };
    const placement = () => c.store.all('pods', 'shop').map((p) => String((p.spec as { nodeName?: string }).nodeName ?? '(pending)')).sort();
    return { scale, placement };
  }

  it('does not place pods on nodes with NoSchedule or NoExecute taints they do not tolerate', () => {
    const c = tainted();
    c.scale(4);
    expect(c.placement()).toEqual(['plain-1', 'plain-1', 'plain-1', 'plain-1']);
  });

  it('places pods that tolerate the taint on the tainted nodes too', () => {
    const c = tainted([{ key: 'dedicated', operator: 'Equal', value: 'gpu' }]);
    c.scale(4);
    expect(c.placement().filter((n) => n.startsWith('gpu-')).length).toBeGreaterThan(0);
  });

  it('a toleration for NoSchedule only does not admit the pod to a NoExecute node', () => {
    const c = tainted([{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }]);
    c.scale(6);
    const placed = c.placement();
    expect(placed).toContain('gpu-1');
    expect(placed).not.toContain('gpu-2');
  });
});

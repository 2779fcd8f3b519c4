import { describe, expect, it } from 'vitest';

import { createSimContext } from '../controller';
import { scenarioEntries } from '../scenario';
import { ScenarioBuilder, seeded } from '../scenarios/builder';
import { ObjectStore } from '../store';
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

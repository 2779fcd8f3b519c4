import { describe, expect, it } from 'vitest';

import type { ClusterSnapshot } from '../model/cluster-model';
import { testCluster, testEndpoint, testEndpoints, testNode, testService, testSlice, testZoneNodes } from '../model/test-cluster';
import { MESSAGE_NO_ALLOCATED_HINTS_FOR_ZONES, MESSAGE_NODES_READY_IN_ONE_ZONE_ONLY, MESSAGE_TOPOLOGY_AWARE_HINTS_DISABLED } from '../upstream/constants';
import type { ServiceReport } from './analysis-schema';
import { analyzeCluster } from './cluster-analysis';
import { HINTS_REASON_CODES, HINTS_REASON_TEXT, hintsReasonCode, hintsRequested, reasonCodeOfMessage } from './hints-reason';
import { AUTO } from './test-public-cases';

const LEGACY_AUTO = { 'service.kubernetes.io/topology-aware-hints': 'auto' };
const V133 = { version: { gitVersion: 'v1.33.1', minor: 33, platform: null } } as const;

/** The report of the one Service `web` in a cluster built from `parts`. */
function report(parts: Partial<ClusterSnapshot>, options: Parameters<typeof analyzeCluster>[1] = {}): ServiceReport {
  const result = analyzeCluster(testCluster(parts), options);
  const web = result.services.find((s) => s.name === 'web');
  if (!web) throw new Error('no web');
  return web;
}

const even = (hinted = false) => [testSlice('web', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { hinted }))];

describe('hintsReasonCode', () => {
  it('enabled: Auto with enough endpoints in every zone', () => {
    const r = report({ services: [testService('web', { annotations: AUTO })], endpointSlices: even(true) });
    expect(hintsReasonCode(r)).toBe('enabled');
    expect(hintsRequested(r)).toBe(true);
    // The legacy key counts the same.
    expect(hintsReasonCode(report({ services: [testService('web', { annotations: LEGACY_AUTO })], endpointSlices: even() }))).toBe('enabled');
  });

  it('traffic-distribution: spec.trafficDistribution sets the hints', () => {
    const r = report({ ...V133, services: [testService('web', { trafficDistribution: 'PreferClose' })], endpointSlices: even() });
    expect(r.mechanism).toBe('trafficDistribution');
    expect(hintsReasonCode(r)).toBe('traffic-distribution');
    expect(hintsRequested(r)).toBe(true);
  });

  it('not-requested: nothing asks for hints (also Disabled, and a trafficDistribution the release ignores)', () => {
    for (const extra of [{}, { annotations: { 'service.kubernetes.io/topology-mode': 'Disabled' } }, { trafficDistribution: 'PreferClose' }]) {
      const r = report({ services: [testService('web', extra)], endpointSlices: even() });
      expect(hintsReasonCode(r), JSON.stringify(extra)).toBe('not-requested');
      expect(hintsRequested(r)).toBe(false);
    }
  });

  it('not-managed: no selector, or ExternalName', () => {
    expect(hintsReasonCode(report({ services: [testService('web', { annotations: AUTO, selector: null })], endpointSlices: even() }))).toBe('not-managed');
    expect(hintsReasonCode(report({ services: [testService('web', { annotations: AUTO, type: 'ExternalName', selector: null, clusterIP: null })] }))).toBe('not-managed');
  });

  it('insufficient-node-info: a ready node without a zone', () => {
    const r = report({ nodes: [...testZoneNodes(), testNode('node-x', null)], services: [testService('web', { annotations: AUTO })], endpointSlices: even() });
    expect(hintsReasonCode(r)).toBe('insufficient-node-info');
    expect(hintsRequested(r)).toBe(true);
  });

  it('nodes-ready-in-one-zone-only: the allocation\'s own check; a one-zone cluster already fails SetNodes', () => {
    expect(reasonCodeOfMessage(`${MESSAGE_NODES_READY_IN_ONE_ZONE_ONLY}, addressType: IPv6`)).toBe('nodes-ready-in-one-zone-only');
    // Upstream's topology cache has no CPU ratios with a single zone, so the event says "Insufficient Node information".
    const r = report({ nodes: [testNode('node-a', 'zone-a'), testNode('node-a2', 'zone-a')], services: [testService('web', { annotations: AUTO })], endpointSlices: [testSlice('web', testEndpoints({ 'zone-a': 3 }))] });
    expect(hintsReasonCode(r)).toBe('insufficient-node-info');
  });

  it('insufficient-number-of-endpoints: fewer endpoints than zones', () => {
    const r = report({ services: [testService('web', { annotations: AUTO })], endpointSlices: [testSlice('web', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }))] });
    expect(hintsReasonCode(r)).toBe('insufficient-number-of-endpoints');
  });

  it('min-allocation-exceeds-overload-threshold: 4/4/3 in three equal zones', () => {
    const r = report({ services: [testService('web', { annotations: AUTO })], endpointSlices: [testSlice('web', testEndpoints({ 'zone-a': 4, 'zone-b': 4, 'zone-c': 3 }))] });
    expect(hintsReasonCode(r)).toBe('min-allocation-exceeds-overload-threshold');
  });

  it('no-zone-specified: a ready endpoint without a zone', () => {
    const endpoints = [...testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }), testEndpoint('10.0.9.1', null)];
    const r = report({ services: [testService('web', { annotations: AUTO })], endpointSlices: [testSlice('web', endpoints)] });
    expect(hintsReasonCode(r)).toBe('no-zone-specified');
  });

  it('no-allocated-hints-for-zones, and any message with the addressType suffix', () => {
    expect(reasonCodeOfMessage(`${MESSAGE_NO_ALLOCATED_HINTS_FOR_ZONES}, addressType: IPv4`)).toBe('no-allocated-hints-for-zones');
    expect(reasonCodeOfMessage(MESSAGE_NO_ALLOCATED_HINTS_FOR_ZONES)).toBe('no-allocated-hints-for-zones');
  });

  it('topology-cache-disabled: the annotation on a release whose TopologyAwareHints gate is off', () => {
    const r = report({ version: { gitVersion: 'v1.23.5', minor: 23, platform: null }, services: [testService('web', { annotations: LEGACY_AUTO })], endpointSlices: even() });
    expect(r.mechanism).toBe('none');
    expect(hintsReasonCode(r)).toBe('topology-cache-disabled');
    expect(hintsRequested(r)).toBe(true);
  });

  it('unknown: Nodes unreadable, or a message not in upstream\'s list', () => {
    const r = report({ services: [testService('web', { annotations: AUTO })], endpointSlices: even(true) }, { unreadable: ['nodes'] });
    expect(hintsReasonCode(r)).toBe('unknown');
    expect(reasonCodeOfMessage('Something new in 1.40')).toBe('unknown');
    expect(reasonCodeOfMessage(MESSAGE_TOPOLOGY_AWARE_HINTS_DISABLED)).toBe('unknown');
  });

  it('a wrongly cased Auto asks for hints (and does nothing)', () => {
    const r = report({ services: [testService('web', { annotations: { 'service.kubernetes.io/topology-mode': 'AUTO' } })], endpointSlices: even() });
    expect(hintsRequested(r)).toBe(true);
    expect(hintsReasonCode(r)).toBe('not-requested');
  });

  it('has one short sentence per code', () => {
    expect(Object.keys(HINTS_REASON_TEXT).sort()).toEqual([...HINTS_REASON_CODES].sort());
    for (const code of HINTS_REASON_CODES) expect(HINTS_REASON_TEXT[code]).toMatch(/^[A-Za-z].{10,160}\.$/);
  });
});

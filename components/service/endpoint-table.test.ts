import { describe, expect, it } from 'vitest';
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import { filterAndSortEndpoints } from './endpoint-table';

function endpoint(address: string, zone: string, extra: Partial<EndpointView> = {}): EndpointView {
  return {
    address, podName: `pod-${address}`, nodeName: `node-${zone}`, zone, ready: true, serving: true, terminating: false,
    observedHints: [zone], expectedHints: [zone], donatedTo: null, ...extra,
  };
}

const addresses = (list: readonly EndpointView[]) => list.map((e) => e.address);

describe('the endpoint list of a Service', () => {
  const list = [
    endpoint('10.0.0.10', 'b'),
    endpoint('10.0.0.9', 'a'),
    endpoint('10.0.1.2', 'c', { ready: false }),
    endpoint('10.0.0.100', 'a', { expectedHints: ['b'] }),
  ];

  it('keeps the default order: not ready, then differing hints, then by zone and address', () => {
    expect(addresses(filterAndSortEndpoints(list, '', 'attention', 'asc'))).toEqual(['10.0.1.2', '10.0.0.100', '10.0.0.9', '10.0.0.10']);
  });

  it('sorts addresses as numbers and any column both ways, ties by address', () => {
    expect(addresses(filterAndSortEndpoints(list, '', 'address', 'asc'))).toEqual(['10.0.0.9', '10.0.0.10', '10.0.0.100', '10.0.1.2']);
    expect(addresses(filterAndSortEndpoints(list, '', 'address', 'desc'))).toEqual(['10.0.1.2', '10.0.0.100', '10.0.0.10', '10.0.0.9']);
    expect(addresses(filterAndSortEndpoints(list, '', 'zone', 'asc'))).toEqual(['10.0.0.9', '10.0.0.100', '10.0.0.10', '10.0.1.2']);
  });

  it('filters on any column as shown, case-insensitively', () => {
    expect(addresses(filterAndSortEndpoints(list, 'NOT READY', 'attention', 'asc'))).toEqual(['10.0.1.2']);
    expect(addresses(filterAndSortEndpoints(list, 'donated', 'attention', 'asc'))).toEqual(['10.0.0.100']);
    expect(addresses(filterAndSortEndpoints(list, 'node-a', 'address', 'asc'))).toEqual(['10.0.0.9', '10.0.0.100']);
    expect(filterAndSortEndpoints(list, 'nothing like it', 'attention', 'asc')).toEqual([]);
  });

  // How long it takes (a click's worth) is a benchmark: `npm run bench -- --scale-checks endpoints-5000`.
  it('filters and sorts 5,000 endpoints: only the matches, in the order asked', () => {
    const many = Array.from({ length: 5000 }, (_, i) => endpoint(`10.1.${Math.floor(i / 250)}.${i % 250}`, ['a', 'b', 'c'][i % 3] ?? 'a'));
    const sorted = filterAndSortEndpoints(many, '10.1.1', 'pod', 'desc');
    expect(sorted.length).toBeGreaterThan(0);
    expect(sorted.every((e) => e.address.includes('10.1.1'))).toBe(true);
    expect(sorted.length).toBe(many.filter((e) => e.address.includes('10.1.1')).length);
    const pods = sorted.map((e) => e.podName ?? '');
    expect(pods).toEqual([...pods].sort().reverse());
    expect(filterAndSortEndpoints(many, '', 'address', 'asc')).toHaveLength(5000);
  });
});

import { describe, expect, it } from 'vitest';
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import type { HintsDiffEntry } from '@/lib/topology/analyses/hints-diff';
import { endpointRank, sortDiffEntries, sortEndpoints, sortLoads } from './endpoint-order';

function endpoint(address: string, zone: string, observed: readonly string[] | null, expected: readonly string[] | null, ready: boolean | null = true): EndpointView {
  return { address, podName: null, nodeName: null, zone, ready, serving: ready, terminating: false, observedHints: observed, expectedHints: expected, donatedTo: null };
}

describe('endpoint order', () => {
  it('puts not ready, differing, donated and unhinted endpoints first, then zone and address', () => {
    const endpoints = [
      endpoint('10.0.0.9', 'b', ['b'], ['b']),
      endpoint('10.0.0.8', 'a', ['a'], ['a']),
      endpoint('10.0.0.7', 'a', null, null),
      endpoint('10.0.0.6', 'b', ['a'], ['a']),
      endpoint('10.0.0.5', 'a', ['a'], ['b']),
      endpoint('10.0.0.4', 'b', ['b'], ['b'], false),
    ];
    expect(endpoints.map(endpointRank)).toEqual([4, 4, 3, 2, 1, 0]);
    expect(sortEndpoints(endpoints).map((e) => e.address)).toEqual(['10.0.0.4', '10.0.0.5', '10.0.0.6', '10.0.0.7', '10.0.0.8', '10.0.0.9']);
  });

  it('sorts differing endpoints by kind and loads busiest first', () => {
    const entries: HintsDiffEntry[] = [
      { address: '10.0.0.2', zone: 'a', observed: null, expected: ['a'], kind: 'missing' },
      { address: '10.0.0.3', zone: 'a', observed: ['a'], expected: null, kind: 'unexpected' },
      { address: '10.0.0.1', zone: 'b', observed: ['a'], expected: ['b'], kind: 'stale' },
    ];
    expect(sortDiffEntries(entries).map((e) => e.kind)).toEqual(['stale', 'missing', 'unexpected']);
    expect(sortLoads([{ endpoint: 'b', relativeLoad: 1 }, { endpoint: 'c', relativeLoad: 2 }, { endpoint: 'a', relativeLoad: 1 }]).map((l) => l.endpoint)).toEqual(['c', 'a', 'b']);
  });
});

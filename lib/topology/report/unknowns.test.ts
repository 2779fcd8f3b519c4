import { describe, expect, it } from 'vitest';

import { AnalysisCache } from './analysis-cache';
import { analyzeCluster, analyzeClusterIn } from './cluster-analysis';
import { prepareAnalysis, withAnalysisCache } from './prepared-analysis';
import { analyzeService } from './service-detail';
import { AUTO } from './test-public-cases';
import { testCluster, testEndpoints, testService, testSlice } from '../model/test-cluster';
import { clusterUnknowns, serviceUnknowns, unknownMessage, unreadableReport } from './unknowns';

/** An Auto Service with too few endpoints, as the identity sees it with Nodes forbidden: no nodes at all. */
const withoutNodes = () =>
  testCluster({
    nodes: [],
    services: [testService('web', { annotations: AUTO })],
    endpointSlices: [testSlice('web', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }))],
  });

describe('answers that depend on unreadable types', () => {
  it('names the types in one message', () => {
    expect(unknownMessage(['nodes'])).toBe('unknown: zonescope could not read Nodes (forbidden)');
    expect(unknownMessage(['configmaps', 'daemonsets'])).toBe('unknown: zonescope could not read ConfigMaps (kube-system), DaemonSets (kube-system) (forbidden)');
  });

  it('maps each type to the answers it leaves unknown', () => {
    expect(clusterUnknowns([])).toEqual({});
    expect(Object.keys(clusterUnknowns(['nodes']))).toEqual(['zones', 'eligibility', 'ruleEstimates']);
    expect(Object.keys(serviceUnknowns(['hpas']))).toEqual(['hpa', 'fixes']);
    expect(Object.keys(serviceUnknowns(['events']))).toEqual(['events']);
    expect(unreadableReport(['pods', 'nodes']).map((u) => u.resource)).toEqual(['nodes', 'pods']);
    expect(unreadableReport(['pods'])[0]?.affects).toEqual(['services[].hpa']);
  });

  it('without Nodes, reports eligibility and cross-zone as unknown instead of "not eligible" and an Auto Service as needing no attention for hints off', () => {
    const guessed = analyzeCluster(withoutNodes());
    // What an empty node list gives when nothing says why it is empty.
    expect(guessed.cluster.eligible).toBe(false);
    expect(guessed.cluster.needsAttention.map((a) => a.reason)).toEqual(['hints-off']);
    expect(guessed.cluster.unknown).toEqual({});

    const analysis = analyzeCluster(withoutNodes(), { unreadable: ['nodes'] });
    const message = 'unknown: zonescope could not read Nodes (forbidden)';
    expect(analysis.unreadable).toEqual([expect.objectContaining({ resource: 'nodes', name: 'Nodes', reason: 'forbidden' })]);
    expect(analysis.cluster.unknown).toEqual({ zones: message, eligibility: message, ruleEstimates: message });
    expect(analysis.cluster.verdict).toBe(message);
    expect(analysis.cluster.ineligibleNodes).toEqual([]);
    const web = analysis.services[0];
    expect(web?.unknown).toEqual({ expectedHints: message, crossZone: message, fixes: message });
    expect(web?.expected.verdict).toBe(message);
    expect(analysis.cluster.needsAttention).toEqual([]);
    expect(analyzeService(withoutNodes(), 'default', 'web', { unreadable: ['nodes'] })?.unknown).toEqual(web?.unknown);
  });

  it('a cached pass drops its results when the unreadable types change', () => {
    const index = withoutNodes();
    const cache = new AnalysisCache();
    const before = analyzeClusterIn(withAnalysisCache(prepareAnalysis(index), cache));
    expect(before.services[0]?.unknown).toEqual({});
    const after = analyzeClusterIn(prepareAnalysis(index, { unreadable: ['nodes'] }, withAnalysisCache(prepareAnalysis(index), cache)));
    expect(after.services[0]?.unknown.expectedHints).toBe('unknown: zonescope could not read Nodes (forbidden)');
  });
});

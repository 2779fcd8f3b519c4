/**
 * The engine's shortcuts on a realistic cluster (`generated:realistic-S`, where Services carry
 * their own Helm annotations and almost no two share a full shape): a cached cluster pass (lazy
 * fixes, HPA and workload; shapes shared on the topology annotations only) gives exactly the JSON
 * of an eager pass and of a pass that shares no shapes, and the traffic rows name each Service's
 * primary fix.
 */
import { describe, expect, it } from 'vitest';

import { snapshotFromText } from '../../lib/k8s/snapshot/from-text';
import { computeClusterTraffic } from '../../lib/topology/analyses/cluster-traffic';
import type { ClusterIndex } from '../../lib/topology/model/cluster-model';
import { indexCluster } from '../../lib/topology/model/cluster-model';
import { AnalysisCache } from '../../lib/topology/report/analysis-cache';
import { analyzeClusterIn, serviceFlowsOf } from '../../lib/topology/report/cluster-analysis';
import { prepareAnalysis, withAnalysisCache, withoutShapeSharing } from '../../lib/topology/report/prepared-analysis';
import { reportShapeKey } from '../../lib/topology/report/report-shape';
import { generateRealisticCluster, REALISTIC_SCALES } from './realistic';

function indexOf(scale: 'S'): ClusterIndex {
  const items = generateRealisticCluster(REALISTIC_SCALES[scale]);
  const result = snapshotFromText(JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), `realistic-${scale}.json`);
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
  return indexCluster(result.snapshot);
}

const cachedPass = (index: ClusterIndex) => analyzeClusterIn(withAnalysisCache(prepareAnalysis(index), new AnalysisCache()));
const distinctPass = (index: ClusterIndex) => analyzeClusterIn(withoutShapeSharing(withAnalysisCache(prepareAnalysis(index), new AnalysisCache())));

describe('realistic-S: the cluster pass with and without its shortcuts', () => {
  const index = indexOf('S');

  it('a cached pass (lazy fixes, HPA, workload) prints the JSON of an eager pass and of one that shares no shapes', () => {
    const cached = cachedPass(index);
    // The traffic block is built during the pass: compare it before any lazy field is read.
    const trafficFirst = JSON.stringify(cached.traffic);
    const eager = analyzeClusterIn(prepareAnalysis(index));
    expect(trafficFirst).toBe(JSON.stringify(eager.traffic));
    expect(JSON.stringify(cached)).toBe(JSON.stringify(eager));
    expect(JSON.stringify(distinctPass(index))).toBe(JSON.stringify(eager));
    // What the shortcuts rest on is there: Services of one shape with their own annotations, and fixes.
    const annotationsByShape = new Map<string, Set<string>>();
    for (const service of index.snapshot.services) {
      const key = reportShapeKey(service, index.slicesByService.get(`${service.namespace}/${service.name}`) ?? [], prepareAnalysis(index).context.nodeZoneByName);
      if (key !== null) annotationsByShape.set(key, (annotationsByShape.get(key) ?? new Set()).add(JSON.stringify(service.annotations)));
    }
    expect([...annotationsByShape.values()].filter((annotations) => annotations.size > 1).length).toBeGreaterThan(3);
    expect(eager.services.filter((s) => s.fixes.length > 0).length).toBeGreaterThan(3);
  });

  it("every Service's traffic row names its primary fix, read from a cached pass's lazy fixes", () => {
    const prepared = withAnalysisCache(prepareAnalysis(index), new AnalysisCache());
    const { byService } = computeClusterTraffic(serviceFlowsOf(analyzeClusterIn(prepared)), prepared.volume, prepared.measured, prepared.pricing);
    const eager = analyzeClusterIn(prepareAnalysis(index));
    let named = 0;
    for (const report of eager.services) {
      const primary = report.fixes.find((fix) => fix.primary)?.title ?? null;
      if (primary !== null) named++;
      expect(byService.get(`${report.namespace}/${report.name}`)?.fix).toBe(primary);
    }
    expect(named).toBeGreaterThan(0);
  });
});

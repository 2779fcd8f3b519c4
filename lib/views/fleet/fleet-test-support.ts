/**
 * Test support (not a test file): the engine's analysis of a bundled fixture cluster, read from
 * `fixtures/<name>.yaml` as a snapshot, for the fleet's mapping and rendering tests.
 */
import { loadSnapshot } from '../../k8s/snapshot/load';
import type { SourceResource } from '../../topology/model/cluster-model';
import { indexCluster } from '../../topology/model/cluster-model';
import type { ClusterAnalysis } from '../../topology/report/analysis-schema';
import { analyzeCluster } from '../../topology/report/cluster-analysis';

/** `eks-demo`, `missing-zone-label`, … analysed with default options (and `unreadable` types, as when they are forbidden). */
export async function analyseFixture(fixture: string, unreadable: readonly SourceResource[] = []): Promise<ClusterAnalysis> {
  const loaded = await loadSnapshot(new URL(`../../../fixtures/${fixture}.yaml`, import.meta.url).pathname);
  if (!loaded.ok) throw new Error(`fixtures/${fixture}.yaml: ${loaded.errors.map((e) => e.message).join('; ')}`);
  return analyzeCluster(indexCluster(loaded.snapshot), { unreadable });
}

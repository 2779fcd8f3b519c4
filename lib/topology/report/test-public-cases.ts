/**
 * The public cases the report tests share: three Services under topology mode `Auto` in three
 * equal zones (`web` 4/4/3, `api` 5/2/2 behind an HPA, `two` with 2 endpoints). Test-only.
 */
import type { ClusterIndex, ClusterSnapshot } from '../model/cluster-model';
import { testCluster, testEndpoints, testService, testSlice, testWorkload } from '../model/test-cluster';

/** The `service.kubernetes.io/topology-mode: Auto` annotation. */
export const AUTO = { 'service.kubernetes.io/topology-mode': 'Auto' };

/** The public cases, with `parts` of the snapshot replaced. */
export function publicCases(parts: Partial<ClusterSnapshot> = {}): ClusterIndex {
  const web = testEndpoints({ 'zone-a': 4, 'zone-b': 4, 'zone-c': 3 }, { service: 'web' });
  const api = testEndpoints({ 'zone-a': 5, 'zone-b': 2, 'zone-c': 2 }, { service: 'api', hinted: false });
  const workload = testWorkload('api', api, { hpa: { minReplicas: 3, maxReplicas: 12 } });
  return testCluster({
    services: [testService('web', { annotations: AUTO }), testService('api', { annotations: AUTO }), testService('two', { annotations: AUTO })],
    endpointSlices: [testSlice('web', web), testSlice('api', api), testSlice('two', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }, { service: 'two' }))],
    ...workload,
    ...parts,
  });
}

/**
 * The controllers `npm run sim` runs: Deployments → ReplicaSets → Pods (with zone-aware
 * placement and zone-blind scale-down), and the EndpointSlice controller that sets topology
 * hints with `lib/topology`.
 */
import type { SimController } from './controller';
import { createEndpointSliceController } from './controllers/endpointslice-controller';
import { createWorkloadsController } from './controllers/workloads-controller';

/** Fresh instances of the controllers the CLI starts. */
export function defaultControllers(): SimController[] {
  return [createWorkloadsController(), createEndpointSliceController()];
}

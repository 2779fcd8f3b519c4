/**
 * Settles a scenario definition: loads it into a store, runs the simulator's controllers until
 * they are quiet, and returns every stored object. Fixed clock and seeded randomness, so the
 * result is the same on every run.
 */
import { createSimContext } from '../controller';
import { createEndpointSliceController } from '../controllers/endpointslice-controller';
import { createWorkloadsController } from '../controllers/workloads-controller';
import { RESOURCE_KEYS } from '../resources';
import { scenarioEntries } from '../scenario';
import { ObjectStore } from '../store';
import type { KubeObject } from '../types';
import { seeded } from './builder';
import type { ScenarioDefinition } from './definitions';

/** The clock fixtures are generated with. */
export const FIXED_CLOCK = new Date('2026-11-01T08:00:00Z');
const ORDER = ['namespaces', 'nodes', 'configmaps', 'daemonsets', 'deployments', 'replicasets', 'pods', 'services', 'endpointslices', 'horizontalpodautoscalers', 'events'];

/** Builds a scenario, lets the controllers settle, and returns the stored objects in kubectl's shape. */
export function settleScenario(definition: ScenarioDefinition): KubeObject[] {
  const random = seeded(0x5eed);
  const uid = () => {
    const hex = (n: number) => Math.floor(random() * 16 ** n).toString(16).padStart(n, '0');
    return `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
  };
  const store = new ObjectStore({ now: () => FIXED_CLOCK, uid });
  store.replaceAll(scenarioEntries(definition.build(), uid));
  const controllers = [createWorkloadsController(), createEndpointSliceController()];
  for (const controller of controllers) {
    const { context } = createSimContext(store, { now: () => FIXED_CLOCK, random, serverVersion: definition.version, log: (m) => console.error(m) });
    controller.start(context);
  }
  for (let i = 0; i < 5; i++) for (const controller of controllers) controller.flush();
  for (const controller of controllers) controller.stop();
  const keys = [...RESOURCE_KEYS].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
  return keys.flatMap((key) => store.all(key).map((object) => JSON.parse(JSON.stringify(object)) as KubeObject));
}


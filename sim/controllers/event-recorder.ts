/**
 * Events as client-go's event recorder writes them for the simulated controllers: a `v1 Event`
 * on the Service, aggregated — an Event with the same reason and message already there gets its
 * `count` raised and `lastTimestamp` moved instead of a new one (events_cache.go). During the
 * first sync after start (`initialSync`), an Event a loaded dump already holds is recorded, not
 * repeated.
 *
 * @see https://github.com/kubernetes/client-go/blob/master/tools/record/events_cache.go
 */
import { obj } from '../../lib/k8s/wire-to-record/json';
import type { TopologyEvent } from '../../lib/topology/upstream/types';
import type { SimContext } from '../controller';
import type { KubeObject, ReadonlyKubeObject } from '../types';

/** Records `event` on `service` as `component` (see the file header). */
export function recordEvent(ctx: SimContext, service: ReadonlyKubeObject, event: TopologyEvent, component: string, initialSync: boolean): void {
  const namespace = service.metadata.namespace ?? 'default';
  const now = ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const same = ctx.store
    .list('events', namespace)
    .find((e) => {
      const involved = obj(e.involvedObject);
      return involved.kind === 'Service' && involved.name === service.metadata.name && e.reason === event.reason && e.message === event.message;
    });
  // The first sync after start finds the Events a dump already holds: recorded, not repeated.
  if (same && initialSync) return;
  if (same) {
    const updated: KubeObject = JSON.parse(JSON.stringify(same)) as KubeObject;
    updated.count = (typeof same.count === 'number' ? same.count : 1) + 1;
    updated.lastTimestamp = now;
    updated.metadata.resourceVersion = '';
    ctx.system.update('events', updated);
    return;
  }
  const suffix = Math.floor(ctx.random() * 0xffffffff).toString(16).padStart(8, '0');
  ctx.system.create('events', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${service.metadata.name}.${suffix}`, namespace },
    involvedObject: { kind: 'Service', apiVersion: 'v1', namespace, name: service.metadata.name, uid: service.metadata.uid ?? '', resourceVersion: service.metadata.resourceVersion ?? '' },
    reason: event.reason,
    message: event.message,
    type: event.type,
    source: { component },
    reportingComponent: component,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  });
}

/**
 * Shapes of Services, for sharing the expensive part of a cluster-wide report between Services
 * that the analysis cannot tell apart.
 *
 * In a cluster pass, a Service's hints analysis (engine runs for "expected" and "if Auto",
 * observed counts, diff counts) and its four traffic figures depend on cluster-wide facts and on:
 * - the Service fields the engine, the mechanism and kube-proxy read (annotations, type, whether it
 *   has a selector, headless or not, traffic policies, trafficDistribution, IP families, whether it
 *   is reachable from outside);
 * - per slice, in order: address type and whether the EndpointSlice controller manages it (else
 *   its managed-by value, which the verdict names);
 * - per endpoint, in order: its zone (as written, and as resolved through its node), its
 *   conditions, its zone hints (its exact shape, analyses/endpoint-shape.ts), and which endpoints
 *   share a first address.
 *
 * Names, addresses, pods and nodes as such do not enter those figures — the cluster-wide report
 * keeps counts, not lists. {@link reportShapeKey} spells exactly those inputs out, so two Services
 * with the same key get the same figures; it declines (`null`) when node identity matters
 * (`internalTrafficPolicy: Local`, node hints, node-scoped trafficDistribution), and the caller
 * then computes the Service on its own. What does name the Service (lints with their commands,
 * fixes, the load-balancer path, the workload) is always computed per Service.
 */
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import { isControllerManaged } from '../analyses/analyze-service';
import { endpointShape, FirstAddresses, SHAPE_ITEM, SHAPE_PART } from '../analyses/endpoint-shape';
import { isExternallyAccessible } from '../analyses/service-mechanism';

/** trafficDistribution values whose hints are zone hints only (others may hint nodes). */
const ZONE_SCOPED_DISTRIBUTIONS: ReadonlySet<string> = new Set(['PreferClose', 'PreferSameZone']);

const JSON_TEXT = new WeakMap<object, string>();

/** `JSON.stringify(value)`, once per object (sources intern annotation maps and family lists, so many Services share them). */
function jsonOf(value: object): string {
  let text = JSON_TEXT.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    JSON_TEXT.set(value, text);
  }
  return text;
}

function headerOf(service: ServiceRecord): string {
  const clusterIP = service.clusterIP === null ? 0 : service.clusterIP === 'None' ? 1 : service.clusterIP === '' ? 2 : 3;
  // Fixed vocabularies first, then the free-form parts as JSON: unambiguous.
  return `${service.type}|${service.selector === null ? 1 : 0}|${clusterIP}|${service.externalTrafficPolicy}|${service.internalTrafficPolicy}|${isExternallyAccessible(service) ? 1 : 0}|${JSON.stringify(service.trafficDistribution)}|${jsonOf(service.ipFamilies)}|${jsonOf(service.annotations)}`;
}

/**
 * The shape of a Service and its slices for a cluster-wide report (see the module comment), or
 * `null` when its report depends on node identity and must not be shared.
 */
export function reportShapeKey(service: ServiceRecord, slices: readonly EndpointSliceRecord[], nodeZoneByName: ReadonlyMap<string, string | null>): string | null {
  if (service.internalTrafficPolicy === 'Local') return null;
  if (service.trafficDistribution !== null && !ZONE_SCOPED_DISTRIBUTIONS.has(service.trafficDistribution)) return null;
  let key = headerOf(service);
  const addresses = new FirstAddresses(slices);
  for (const slice of slices) {
    key += `${SHAPE_PART}${slice.addressType}${isControllerManaged(slice) ? 'm' : `f${JSON.stringify(slice.managedBy)}`}`;
    for (const endpoint of slice.endpoints) {
      const hints = endpoint.hints;
      if (hints !== null && hints.forNodes !== undefined) return null;
      // Which endpoints share a first address (kube-proxy and the diff key on it): only repeats are spelled out.
      const address = endpoint.addresses[0];
      const known = address === undefined ? null : addresses.repeatOf(address);
      const same = known === null ? '!' : known >= 0 ? `=${known}` : '';
      key += `${SHAPE_ITEM}${endpointShape(endpoint, nodeZoneByName, true)}${same}`;
    }
  }
  return key;
}

/** Entries a {@link ReportShapeMemo} keeps before it starts over. */
export const REPORT_SHAPE_MEMO_LIMIT = 5_000;

/** Values by {@link reportShapeKey}, for one set of cluster-wide inputs. Bounded. */
export class ReportShapeMemo<T> {
  private values = new Map<string, T>();

  get(key: string): T | undefined {
    return this.values.get(key);
  }

  set(key: string, value: T): void {
    if (this.values.size >= REPORT_SHAPE_MEMO_LIMIT) this.values = new Map();
    this.values.set(key, value);
  }

  get size(): number {
    return this.values.size;
  }
}

/**
 * Shapes of Services, for sharing the expensive part of a cluster-wide report between Services
 * that the analysis cannot tell apart.
 *
 * In a cluster pass, a Service's hints analysis (engine runs for "expected" and "if Auto",
 * observed counts, diff counts) and its four traffic figures depend on cluster-wide facts and on:
 * - the Service fields the engine, the mechanism and kube-proxy read (the topology annotations,
 *   type, whether it has a selector, headless or not, traffic policies, trafficDistribution, IP
 *   families, whether it is reachable from outside);
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
 * fixes, the load-balancer path, the workload, the toggle's annotation edit, which carries all of
 * the Service's annotations) is always computed per Service.
 */
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import { sameItems } from './analysis-cache';
import { flatString } from '../model/flat-string';
import { memoOnObject } from '../model/object-memo';
import { isControllerManaged } from '../analyses/managed-slices';
import { endpointShapeCode, FirstAddresses, firstAddressesDistinct, readsNodeZones, SHAPE_ITEM, SHAPE_PART } from '../analyses/endpoint-shape';
import { isExternallyAccessible } from '../analyses/service-mechanism';
import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from '../upstream/constants';
import { serviceMemo, type ServiceRecordMemo } from '../model/record-memo';

/** trafficDistribution values whose hints are zone hints only (others may hint nodes). */
const ZONE_SCOPED_DISTRIBUTIONS: ReadonlySet<string> = new Set(['PreferClose', 'PreferSameZone']);

const JSON_TEXT = new WeakMap<object, string>();

/** `JSON.stringify(value)`, once per object (sources intern annotation maps and family lists, so many Services share them). */
function jsonOf(value: object): string {
  return memoOnObject(JSON_TEXT, value, (v) => JSON.stringify(v));
}

const own = (annotations: Readonly<Record<string, string>>, key: string): string | null =>
  Object.prototype.hasOwnProperty.call(annotations, key) ? (annotations[key] as string) : null;

/**
 * The annotations as the shared part of a report reads them: the engine, the mechanism and
 * kube-proxy read only the two topology keys (present or not, and their values; see
 * upstream/annotations.ts). Other annotations (Helm release names, last-applied configuration,
 * load-balancer settings) enter only the per-Service parts: the toggle's edit, lints, fixes and
 * the load-balancer path.
 */
function topologyAnnotationsOf(annotations: Readonly<Record<string, string>>): string {
  return JSON.stringify([own(annotations, ANNOTATION_TOPOLOGY_MODE), own(annotations, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS)]);
}

function headerOf(service: ServiceRecord): string {
  const clusterIP = service.clusterIP === null ? 0 : service.clusterIP === 'None' ? 1 : service.clusterIP === '' ? 2 : 3;
  // Fixed vocabularies first, then the free-form parts as JSON: unambiguous.
  return `${service.type}|${service.selector === null ? 1 : 0}|${clusterIP}|${service.externalTrafficPolicy}|${service.internalTrafficPolicy}|${isExternallyAccessible(service) ? 1 : 0}|${JSON.stringify(service.trafficDistribution)}|${jsonOf(service.ipFamilies)}|${topologyAnnotationsOf(service.annotations)}`;
}

/**
 * The shape of a Service and its slices for a cluster-wide report (see the module comment), or
 * `null` when its report depends on node identity and must not be shared.
 */
export function reportShapeKey(
  service: ServiceRecord,
  slices: readonly EndpointSliceRecord[],
  nodeZoneByName: ReadonlyMap<string, string | null>,
  memo: ServiceRecordMemo = serviceMemo(service),
): string | null {
  const known = memo.shapeKey as KeptShapeKey | undefined;
  if (known !== undefined && (known.zones === null || known.zones === nodeZoneByName) && sameItems(known.slices, slices)) return known.key;
  // The key reads the node zones only for endpoints without a zone of their own that name a node.
  const readsZones = readsNodeZones(slices);
  // Built endpoint by endpoint, and kept (here and as the shape memo's key): laid out in one piece.
  const built = shapeKeyOf(service, slices, nodeZoneByName);
  const key = built === null ? null : internedKey(built);
  memo.shapeKey = { slices, zones: readsZones ? nodeZoneByName : null, key } satisfies KeptShapeKey;
  return key;
}

/** Shape keys built so far, each kept once (see {@link internedKey}); started over beyond {@link INTERNED_KEYS_LIMIT}. */
let INTERNED = new Map<string, string>();

/** Distinct keys {@link INTERNED} holds before it starts over (a realistic 10,000-Service cluster has ~2,600 shapes). */
const INTERNED_KEYS_LIMIT = 20_000;

/**
 * `built` laid out in one piece, as the one string object every Service of its shape gets: the
 * shape memo then finds a Service's entry by comparing references, not the keys' text (a key
 * spells every endpoint, and a pass looks 10,000 of them up).
 */
function internedKey(built: string): string {
  const known = INTERNED.get(built);
  if (known !== undefined) return known;
  const key = flatString(built);
  if (INTERNED.size >= INTERNED_KEYS_LIMIT) INTERNED = new Map();
  INTERNED.set(key, key);
  return key;
}

/**
 * Keys by Service record, with the slices and (when the key read them) the node zones they were
 * built from: a pass after a node change (new CPU ratios, so every Service is analysed again) or
 * a benchmark's repeated pass finds the keys of unchanged Services without spelling them out again.
 */
interface KeptShapeKey {
  readonly slices: readonly EndpointSliceRecord[];
  readonly zones: ReadonlyMap<string, string | null> | null;
  readonly key: string | null;
}

function shapeKeyOf(service: ServiceRecord, slices: readonly EndpointSliceRecord[], nodeZoneByName: ReadonlyMap<string, string | null>): string | null {
  if (service.internalTrafficPolicy === 'Local') return null;
  if (service.trafficDistribution !== null && !ZONE_SCOPED_DISTRIBUTIONS.has(service.trafficDistribution)) return null;
  let key = headerOf(service);
  // Without repeated first addresses (the usual case, known once per slice list) nothing is spelled out for them.
  const addresses = firstAddressesDistinct(slices) ? null : new FirstAddresses(slices);
  for (const slice of slices) {
    key += `${SHAPE_PART}${slice.addressType}${isControllerManaged(slice) ? 'm' : `f${JSON.stringify(slice.managedBy)}`}`;
    for (const endpoint of slice.endpoints) {
      const hints = endpoint.hints;
      if (hints !== null && hints.forNodes !== undefined) return null;
      // Which endpoints share a first address (kube-proxy and the diff key on it): only repeats are spelled out.
      const address = endpoint.addresses[0];
      const known = address === undefined ? null : addresses === null ? -1 : addresses.repeatOf(address);
      const same = known === null ? '!' : known >= 0 ? `=${known}` : '';
      key += `${SHAPE_ITEM}${endpointShapeCode(endpoint, nodeZoneByName, true)}${same}`;
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

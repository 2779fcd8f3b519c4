/**
 * EndpointSlice → `EndpointSliceRecord`, and one wire endpoint → the engine's `Endpoint` (hints
 * included); the simulator writes hints back with {@link hintsToWire}.
 */
import type { EndpointSliceRecord } from '../../topology/model/cluster-model';
import { LABEL_MANAGED_BY, LABEL_SERVICE_NAME } from '../../topology/upstream/constants';
import type { AddressType, Endpoint, EndpointHints } from '../../topology/upstream/types';
import { internNullable, internRecord, internString } from '../intern';
import type { Json } from './json';
import { arr, bool, isJsonObject, num, obj, str, stringList, stringMap } from './json';

function names(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map(obj).map((entry) => str(entry.name) ?? '');
}

/** One wire endpoint (`endpoints[]` of an EndpointSlice) → engine {@link Endpoint}. */
export function endpointFromWire(raw: unknown): Endpoint {
  const e = obj(raw);
  const conditions = obj(e.conditions);
  let hints: EndpointHints | null = null;
  if (isJsonObject(e.hints)) {
    const forZones = names(e.hints.forZones);
    const forNodes = names(e.hints.forNodes);
    const h: { forZones?: string[]; forNodes?: string[] } = {};
    if (forZones !== undefined) h.forZones = forZones;
    if (forNodes !== undefined) h.forNodes = forNodes;
    hints = internRecord(h);
  }
  const targetRef = obj(e.targetRef);
  const addresses = Array.isArray(e.addresses) && e.addresses.length === 1 && typeof e.addresses[0] === 'string' ? [e.addresses[0]] : stringList(e.addresses);
  return {
    addresses,
    zone: internNullable(str(e.zone)),
    nodeName: internNullable(str(e.nodeName)),
    ready: bool(conditions.ready),
    serving: bool(conditions.serving),
    terminating: bool(conditions.terminating),
    hints,
    podName: targetRef.kind === 'Pod' ? str(targetRef.name) : null,
  };
}

/** Engine hints → wire hints (`[{name}]` lists), `undefined` when there are none. */
export function hintsToWire(hints: EndpointHints | null): Json | undefined {
  if (hints === null) return undefined;
  const out: Json = {};
  if (hints.forZones !== undefined) out.forZones = hints.forZones.map((name) => ({ name }));
  if (hints.forNodes !== undefined) out.forNodes = hints.forNodes.map((name) => ({ name }));
  return out;
}

const ADDRESS_TYPES: readonly AddressType[] = ['IPv4', 'IPv6', 'FQDN'];

/** EndpointSlice → {@link EndpointSliceRecord}. */
export function projectEndpointSlice(raw: unknown): EndpointSliceRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const labels = stringMap(metadata.labels);
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: str(metadata.name) ?? '',
    resourceVersion: str(metadata.resourceVersion) ?? '',
    serviceName: internNullable(labels[LABEL_SERVICE_NAME] ?? null),
    managedBy: internNullable(labels[LABEL_MANAGED_BY] ?? null),
    addressType: ADDRESS_TYPES.find((t) => t === o.addressType) ?? 'IPv4',
    ports: internRecord(arr(o.ports).map(obj).map((p) => ({ name: str(p.name), port: num(p.port), protocol: str(p.protocol) }))),
    endpoints: arr(o.endpoints).map(endpointFromWire),
  };
}

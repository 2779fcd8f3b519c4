/**
 * What the simulator's EndpointSlice controller reads from Services, Pods and slices, after
 * upstream's helpers: a Service's address types (`getAddressTypesForService`: `spec.ipFamilies`,
 * else its clusterIP's family), a pod's IPs per family and readiness, a named port resolved to a
 * container port (`podutil.FindPort`), label selection, and an endpoint's identity beyond its
 * hints (`endpointsEqualBeyondHash`: addresses, conditions, node, zone, target).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/utils.go
 */
import { isJsonObject, obj, str } from '../../lib/k8s/wire-to-record/json';
import type { ReadonlyKubeObject } from '../types';
import { stableJson } from './stable-json';

/** An endpoint as the slice's JSON holds it. */
export type WireEndpoint = Record<string, unknown>;

/** Whether a pod's Ready condition is True. */
export function podReady(pod: ReadonlyKubeObject): boolean {
  const conditions = obj(pod.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => isJsonObject(c) && c.type === 'Ready' && c.status === 'True');
}

/** Whether a Service's selector (non-empty) selects these labels. */
export function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

/** The address types of Pod IPs. */
export type IpFamily = 'IPv4' | 'IPv6';
/** Both, in upstream's order. */
export const IP_FAMILIES: readonly IpFamily[] = ['IPv4', 'IPv6'];

/** The address type of an IP. */
export function familyOf(ip: string): IpFamily {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

/** A pod's IPs: `status.podIPs` (dual-stack: one per family), else `status.podIP`. */
export function podIPs(pod: ReadonlyKubeObject): string[] {
  const status = obj(pod.status);
  const list = Array.isArray(status.podIPs) ? (status.podIPs as unknown[]).map((p) => str(obj(p).ip)).filter((ip): ip is string => ip !== null && ip !== '') : [];
  if (list.length > 0) return list;
  const single = str(status.podIP);
  return single === null || single === '' ? [] : [single];
}

/**
 * The Service's address types, in order: `spec.ipFamilies` (IPv4/IPv6), else the family of its
 * clusterIP, else IPv4 — one set of slices per family, as upstream reconciles per address type.
 */
export function serviceFamilies(service: ReadonlyKubeObject): IpFamily[] {
  const spec = obj(service.spec);
  const listed = Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as unknown[]).filter((f): f is IpFamily => f === 'IPv4' || f === 'IPv6') : [];
  const unique = listed.filter((f, i) => listed.indexOf(f) === i);
  if (unique.length > 0) return unique;
  const clusterIP = str(spec.clusterIP);
  return [clusterIP !== null && clusterIP.includes(':') ? 'IPv6' : 'IPv4'];
}

/** A slice's address type. */
export function sliceFamily(slice: ReadonlyKubeObject): IpFamily | 'FQDN' {
  const type = str(slice.addressType);
  return type === 'IPv6' ? 'IPv6' : type === 'FQDN' ? 'FQDN' : 'IPv4';
}

/** An endpoint's first address (its identity within a slice), or null. */
export function firstAddress(endpoint: unknown): string | null {
  const addresses = obj(endpoint).addresses;
  return Array.isArray(addresses) ? str(addresses[0]) : null;
}

/** The containerPort a pod declares under `name`, or null. */
export function containerPort(pod: ReadonlyKubeObject, name: string): number | null {
  const containers = obj(pod.spec).containers;
  if (!Array.isArray(containers)) return null;
  for (const c of containers) {
    const ports = obj(c).ports;
    if (!Array.isArray(ports)) continue;
    for (const p of ports) if (obj(p).name === name && typeof obj(p).containerPort === 'number') return obj(p).containerPort as number;
  }
  return null;
}

/**
 * What the controller itself sets on an endpoint (addresses, conditions, nodeName, zone, the
 * target's kind/namespace/name/uid), as stable JSON: a slice written by a real controller compares
 * equal when it says the same, whatever else it carries (hints are compared by the engine).
 */
export function endpointSignature(endpoint: unknown): string {
  const e = obj(endpoint);
  const conditions = obj(e.conditions);
  const target = obj(e.targetRef);
  const out: Record<string, unknown> = {
    addresses: Array.isArray(e.addresses) ? e.addresses : [],
    conditions: { ready: conditions.ready ?? null, serving: conditions.serving ?? null, terminating: conditions.terminating ?? null },
  };
  if (typeof e.nodeName === 'string' && e.nodeName !== '') out.nodeName = e.nodeName;
  if (typeof e.zone === 'string' && e.zone !== '') out.zone = e.zone;
  if (isJsonObject(e.targetRef)) out.targetRef = { kind: target.kind ?? null, namespace: target.namespace ?? null, name: target.name ?? null, uid: target.uid ?? null };
  return stableJson(out);
}

/** A copy of an endpoint without its hints. */
export function withoutHints(endpoint: unknown): WireEndpoint {
  const copy: WireEndpoint = { ...obj(endpoint) };
  delete copy.hints;
  return copy;
}

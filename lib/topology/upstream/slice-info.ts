import type { AddressType, Endpoint, EndpointSlice, MutableEndpoint, MutableEndpointSlice } from './types';
import type { KubeMinor } from './version';

/**
 * The reconciler's plan for one Service and address type: slices to create, slices to update,
 * and existing slices left unchanged (upstream `SliceInfo`). Order inside each list matters.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/sliceinfo.go
 */
export interface SliceInfo {
  readonly serviceKey: string;
  readonly addressType: AddressType;
  readonly toCreate: readonly EndpointSlice[];
  readonly toUpdate: readonly EndpointSlice[];
  readonly unchanged: readonly EndpointSlice[];
}

/** A working copy of a {@link SliceInfo} that algorithms rewrite in place, like upstream does. */
export interface MutableSliceInfo {
  serviceKey: string;
  addressType: AddressType;
  toCreate: MutableEndpointSlice[];
  toUpdate: MutableEndpointSlice[];
  unchanged: MutableEndpointSlice[];
}

/** Deep copy of one endpoint (hint lists are copied, never shared). */
export function cloneEndpoint(endpoint: Endpoint): MutableEndpoint {
  return {
    ...endpoint,
    addresses: [...endpoint.addresses],
    hints: endpoint.hints === null ? null : cloneHints(endpoint.hints),
  };
}

function cloneHints(hints: NonNullable<Endpoint['hints']>): NonNullable<Endpoint['hints']> {
  const copy: { forZones?: string[]; forNodes?: string[] } = {};
  if (hints.forZones !== undefined) copy.forZones = [...hints.forZones];
  if (hints.forNodes !== undefined) copy.forNodes = [...hints.forNodes];
  return copy;
}

/** Deep copy of a slice (upstream `DeepCopy`). */
export function cloneSlice(slice: EndpointSlice): MutableEndpointSlice {
  const copy: MutableEndpointSlice = { endpoints: slice.endpoints.map(cloneEndpoint) };
  if (slice.name !== undefined) copy.name = slice.name;
  if (slice.addressType !== undefined) copy.addressType = slice.addressType;
  return copy;
}

/** Deep copy of a whole plan, so callers' inputs are never mutated. */
export function cloneSliceInfo(info: SliceInfo): MutableSliceInfo {
  return {
    serviceKey: info.serviceKey,
    addressType: info.addressType,
    toCreate: info.toCreate.map(cloneSlice),
    toUpdate: info.toUpdate.map(cloneSlice),
    unchanged: info.unchanged.map(cloneSlice),
  };
}

/**
 * A working copy of a plan for algorithms that only ever write the slices they create or update:
 * those are deep-copied; unchanged slices are kept as the same objects (they are only read, and
 * a slice that has to change is copied when it moves to the update list). Cheaper than
 * {@link cloneSliceInfo} when most slices stay unchanged, and `info` is still never mutated.
 */
export function cloneSliceInfoForWrite(info: SliceInfo): MutableSliceInfo {
  return {
    serviceKey: info.serviceKey,
    addressType: info.addressType,
    toCreate: info.toCreate.map(cloneSlice),
    toUpdate: info.toUpdate.map(cloneSlice),
    // Read-only from here on: every code path that writes a slice copies it first.
    unchanged: [...info.unchanged] as MutableEndpointSlice[],
  };
}

/**
 * Whether the topology code counts an endpoint as ready (`EndpointReady`): the `ready` condition
 * must be present and true. Since 1.22 readiness is checked; the 1.21 alpha counted every
 * endpoint (topology-semantics §13.14: inferred, not verified against 1.21 source).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/util/controller_utils.go
 */
export function isEndpointReady(endpoint: Endpoint, minor: KubeMinor): boolean {
  if (minor <= 21) return true;
  return endpoint.ready === true;
}

/** Number of endpoints the topology code counts as ready in `endpoints`. */
export function numReadyEndpoints(endpoints: readonly Endpoint[], minor: KubeMinor): number {
  let count = 0;
  for (const endpoint of endpoints) if (isEndpointReady(endpoint, minor)) count++;
  return count;
}

/**
 * Ready endpoints across the create, update and unchanged lists (`getTotalReadyEndpoints`), with
 * the total number of endpoints alongside.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/sliceinfo.go
 */
export function getTotalReadyEndpoints(
  info: Pick<SliceInfo, 'toCreate' | 'toUpdate' | 'unchanged'>,
  minor: KubeMinor,
): { totalReadyEndpoints: number; totalEndpoints: number } {
  let totalReadyEndpoints = 0;
  let totalEndpoints = 0;
  for (const slice of [...info.toCreate, ...info.toUpdate, ...info.unchanged]) {
    totalReadyEndpoints += numReadyEndpoints(slice.endpoints, minor);
    totalEndpoints += slice.endpoints.length;
  }
  return { totalReadyEndpoints, totalEndpoints };
}

/** True when any endpoint of the slice carries a hints object. */
export function sliceHasHints(slice: EndpointSlice): boolean {
  return slice.endpoints.some((endpoint) => endpoint.hints !== null);
}

/**
 * Removes hints from every slice to create or update, and moves each unchanged slice that carries
 * hints (as a deep copy with hints cleared) to the update list. Unchanged slices without hints stay
 * unchanged, so turning hints off on a Service that never had them writes nothing.
 * Mutates `info`; returns the resulting create and update lists.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/utils.go (RemoveHintsFromSlices)
 */
export function removeHintsFromSlices(info: MutableSliceInfo): { toCreate: MutableEndpointSlice[]; toUpdate: MutableEndpointSlice[] } {
  // 1. Slices being written anyway lose all hints, ready or not.
  for (const slice of [...info.toCreate, ...info.toUpdate]) {
    for (const endpoint of slice.endpoints) endpoint.hints = null;
  }
  // 2. Unchanged slices are only rewritten when they carry hints.
  const stillUnchanged: MutableEndpointSlice[] = [];
  for (const slice of info.unchanged) {
    if (sliceHasHints(slice)) {
      const copy = cloneSlice(slice);
      for (const endpoint of copy.endpoints) endpoint.hints = null;
      info.toUpdate.push(copy);
    } else {
      stillUnchanged.push(slice);
    }
  }
  info.unchanged = stillUnchanged;
  return { toCreate: info.toCreate, toUpdate: info.toUpdate };
}

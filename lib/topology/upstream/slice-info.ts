import type { AddressType, Endpoint, EndpointHints, EndpointSlice, MutableEndpoint, MutableEndpointSlice } from './types';
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

/**
 * A writable copy of one endpoint. Its address list and hints object are shared with the
 * original: both are read-only (`readonly` arrays in {@link Endpoint}), and every algorithm here
 * replaces `hints` as a whole rather than editing it, so a copy only needs its own top-level fields.
 * (Copying the lists too made the cluster pass allocate four objects per endpoint of every
 * rewritten slice, only to overwrite the hints right after.)
 */
export function cloneEndpoint(endpoint: Endpoint): MutableEndpoint {
  return { ...endpoint };
}

/** A writable copy of a slice (upstream `DeepCopy`): own endpoint list and endpoint objects; see {@link cloneEndpoint}. */
export function cloneSlice(slice: EndpointSlice): MutableEndpointSlice {
  const copy: MutableEndpointSlice = { endpoints: slice.endpoints.map(cloneEndpoint) };
  if (slice.name !== undefined) copy.name = slice.name;
  if (slice.addressType !== undefined) copy.addressType = slice.addressType;
  return copy;
}

/** A copy of a slice with every hints object removed (the rewrite {@link removeHintsFromSlices} makes). */
function cloneSliceWithoutHints(slice: EndpointSlice): MutableEndpointSlice {
  const copy: MutableEndpointSlice = { endpoints: slice.endpoints.map(withoutHints) };
  if (slice.name !== undefined) copy.name = slice.name;
  if (slice.addressType !== undefined) copy.addressType = slice.addressType;
  return copy;
}

function withoutHints(endpoint: Endpoint): MutableEndpoint {
  return { ...endpoint, hints: null };
}

/** Zone names {@link zoneHints} keeps before it starts over (clusters have a handful of zones). */
const ZONE_HINTS_LIMIT = 1_024;
const ZONE_HINTS = new Map<string, EndpointHints>();

/**
 * The hints object `{ forZones: [zone] }`, one shared frozen object per zone: the engine gives every
 * ready endpoint of a rewritten slice such a hint, and hints are never edited in place (see
 * {@link cloneEndpoint}), so endpoints can share it instead of allocating two objects each.
 */
export function zoneHints(zone: string): EndpointHints {
  let hints = ZONE_HINTS.get(zone);
  if (hints === undefined) {
    if (ZONE_HINTS.size >= ZONE_HINTS_LIMIT) ZONE_HINTS.clear();
    hints = Object.freeze({ forZones: Object.freeze([zone]) });
    ZONE_HINTS.set(zone, hints);
  }
  return hints;
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
 * hints (as a copy with hints cleared) to the update list. Unchanged slices without hints stay
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
      info.toUpdate.push(cloneSliceWithoutHints(slice));
    } else {
      stillUnchanged.push(slice);
    }
  }
  info.unchanged = stillUnchanged;
  return { toCreate: info.toCreate, toUpdate: info.toUpdate };
}

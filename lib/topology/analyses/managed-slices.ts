/**
 * Who writes a Service's EndpointSlices: whether the EndpointSlice controller manages a slice (its
 * `endpointslice.kubernetes.io/managed-by` label), and why the controller has nothing to do with a
 * Service when it does not (ExternalName, or no selector: slices written by someone else, or
 * mirrored from a hand-written Endpoints object).
 */
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import { ENDPOINTSLICE_CONTROLLER_NAME } from '../upstream/constants';
import { sortStrings } from '../upstream/sorted';

/** Whether the EndpointSlice controller manages a slice (its managed-by label, absent counts as managed). */
export function isControllerManaged(slice: EndpointSliceRecord): boolean {
  return slice.managedBy === null || slice.managedBy === ENDPOINTSLICE_CONTROLLER_NAME;
}

/**
 * Why the EndpointSlice controller has nothing to do with a Service, in one sentence; `null` when
 * it manages the Service. ExternalName Services are a DNS CNAME: kube-proxy does not route them
 * and no EndpointSlice exists. Selector-less Services get slices from whoever writes them (the
 * `endpointslice.kubernetes.io/managed-by` values seen are named); the controller writes no hints.
 */
export function notManagedExplanation(service: ServiceRecord, slices: readonly EndpointSliceRecord[]): string | null {
  if (service.type === 'ExternalName') {
    return 'ExternalName: a DNS CNAME answered by cluster DNS. kube-proxy does not route it and it has no EndpointSlices, so topology routing does not apply.';
  }
  if (service.selector !== null) return null;
  const owners = sortStrings([...new Set(slices.map((s) => s.managedBy ?? '(no managed-by label)'))]);
  const seen =
    slices.length === 0
      ? 'no EndpointSlice exists for it yet'
      : `its EndpointSlices are written by ${owners.map((o) => (o.startsWith('(') ? o : `endpointslice.kubernetes.io/managed-by: ${o}`)).join(', ')}`;
  // The mirroring controller copies a hand-written Endpoints object, which cannot carry hints.
  if (owners.length === 1 && owners[0] === ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME) {
    return `No selector: ${seen}, mirrored from a hand-written Endpoints object, which has no hints. The EndpointSlice controller does not write hints for it, so topology routing does not apply.`;
  }
  return `No selector: ${seen}. The EndpointSlice controller does not write hints for it; only that writer can.`;
}

/** `endpointslice.kubernetes.io/managed-by` of the EndpointSlice mirroring controller (slices mirrored from Endpoints). */
const ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';

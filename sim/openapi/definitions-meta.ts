/**
 * The schema table, part 1: `meta.k8s.io` and the named scalars every group shares (ObjectMeta,
 * ManagedFieldsEntry, OwnerReference, LabelSelector, Time, Quantity, IntOrString, ListMeta, and
 * the bodies of patches, deletes and errors). Descriptions are the simulator's own, short.
 */
import type { Definition } from './schema';
import { atomicList, bool, int64, keyedList, NAMES, opaque, ref, str, stringSet, strMap, struct, time } from './schema';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

export const META_DEFINITIONS: readonly Definition[] = [
  struct(NAMES.objectMeta, 'Metadata every persisted object carries.', {
    name: str('Unique name within the namespace (or the cluster, for cluster-scoped kinds). Cannot be changed.'),
    generateName: str('A prefix the server completes with a random suffix when name is empty on create.'),
    namespace: str('The namespace the object lives in; empty for cluster-scoped kinds.'),
    selfLink: str('Deprecated; never set by the simulator.'),
    uid: str('Unique identity of this incarnation of the object, set by the server on create.'),
    resourceVersion: str('Opaque version of this state of the object, for optimistic concurrency and watches.'),
    generation: int64('Sequence number of the desired state; the server bumps it when the spec changes.'),
    creationTimestamp: time('When the server created the object.'),
    deletionTimestamp: time('When the object is to be deleted (it is terminating).'),
    deletionGracePeriodSeconds: int64('Seconds allowed for a graceful termination before the object is removed.'),
    labels: strMap('Identifying key/value pairs; selectors match them.'),
    annotations: strMap('Non-identifying key/value pairs for tools (zonescope reads service.kubernetes.io/topology-mode here).'),
    ownerReferences: keyedList(`${META}.OwnerReference`, ['uid'], 'Objects this one depends on; when all are gone it is garbage collected.'),
    finalizers: stringSet('Conditions that must be cleared before the object is deleted.', 'merge'),
    managedFields: atomicList({ kind: 'ref', name: `${META}.ManagedFieldsEntry` }, 'Which field manager owns which fields, per operation (server-side apply bookkeeping).'),
  }),
  struct(`${META}.ManagedFieldsEntry`, 'The fields one manager owns through one kind of operation.', {
    manager: str('Who wrote the fields: the fieldManager of the request, or the start of its User-Agent.'),
    operation: str('`Apply` (server-side apply) or `Update` (create, update, patch).', { enum: ['Apply', 'Update'] }),
    apiVersion: str('The API version the field set refers to.'),
    time: time('When the manager last changed the fields it owns.'),
    fieldsType: str('The format of the field set; always `FieldsV1`.'),
    fieldsV1: ref(`${META}.FieldsV1`, 'The owned fields as a trie of `f:<field>`, `k:<keys>`, `v:<value>` and `.` entries.'),
    subresource: str('The subresource written through (`status`, `scale`), empty for the object itself.'),
  }),
  { name: `${META}.FieldsV1`, description: 'A field set in the FieldsV1 trie format.' },
  struct(`${META}.OwnerReference`, 'A reference to an owning object in the same namespace.', {
    apiVersion: str('API version of the owner.', { required: true }),
    kind: str('Kind of the owner.', { required: true }),
    name: str('Name of the owner.', { required: true }),
    uid: str('UID of the owner.', { required: true }),
    controller: bool('Whether the owner is the managing controller.'),
    blockOwnerDeletion: bool('Whether the owner cannot be deleted in the foreground before this object.'),
  }, { atomic: true }),
  struct(NAMES.labelSelector, 'A label query: every matchLabels pair and every matchExpressions requirement must hold.', {
    matchLabels: strMap('Labels that must be present with these values.'),
    matchExpressions: atomicList({ kind: 'ref', name: `${META}.LabelSelectorRequirement` }, 'Set-based requirements.'),
  }, { atomic: true }),
  struct(`${META}.LabelSelectorRequirement`, 'One set-based label requirement.', {
    key: str('The label key.', { required: true }),
    operator: str('In, NotIn, Exists or DoesNotExist.', { required: true }),
    values: atomicList({ kind: 'string' }, 'The values for In and NotIn.'),
  }),
  struct(NAMES.listMeta, 'Metadata of a list.', {
    resourceVersion: str('The resourceVersion the list reflects.'),
    continue: str('Token for the next page, when the list was cut by a limit.'),
    remainingItemCount: int64('Items after this page, when the server knows.'),
    selfLink: str('Deprecated; never set.'),
  }),
  struct(NAMES.status, 'The body of an error (or of a successful delete).', {
    apiVersion: str('`v1`.'),
    kind: str('`Status`.'),
    metadata: ref(NAMES.listMeta, 'Standard list metadata.'),
    status: str('`Success` or `Failure`.'),
    message: str('What went wrong, for people.'),
    reason: str('What went wrong, for programs (NotFound, Conflict, Invalid, ...).'),
    details: opaque('The object the error is about and its causes.'),
    code: { type: { kind: 'integer', format: 'int32' }, description: 'The HTTP status code.' },
  }),
  struct(NAMES.deleteOptions, 'Options of a delete.', {
    apiVersion: str('The versioned schema of this representation.'),
    kind: str('`DeleteOptions`.'),
    gracePeriodSeconds: int64('Seconds before the object is deleted (the simulator deletes at once).'),
    preconditions: opaque('uid and resourceVersion the object must still have.'),
    propagationPolicy: str('Orphan, Background or Foreground garbage collection of dependents.'),
    orphanDependents: bool('Deprecated: use propagationPolicy.'),
    dryRun: atomicList({ kind: 'string' }, '`All` to check the delete without doing it.'),
  }),
  { name: NAMES.patch, description: 'A patch document: JSON patch, JSON merge patch, strategic merge patch or an apply configuration.' },
  { name: NAMES.time, description: 'A timestamp in RFC 3339 form, to the second.', scalar: { type: 'string', format: 'date-time' } },
  { name: NAMES.microTime, description: 'A timestamp in RFC 3339 form, to the microsecond.', scalar: { type: 'string', format: 'date-time' } },
  { name: NAMES.quantity, description: 'A fixed-point amount with a unit suffix, such as 250m (CPU) or 128Mi (memory).', scalar: { type: 'string' } },
  { name: NAMES.intOrString, description: 'Either an integer or a string (a port number or a port name).', scalar: { type: 'string', format: 'int-or-string' } },
];

/**
 * What the write verbs share for field management: the options of a write (`fieldManager` —
 * or the start of the User-Agent —, `fieldValidation`, `force`) checked as the API server's
 * ValidateCreate/Update/PatchOptions do, the field manager's view of a resource (its schema per
 * apiVersion and the conversions between the versions served), and unknown-field validation
 * (`Strict` rejects them, `Warn`, the default, answers a `Warning` header).
 */
import type { FieldManagerScope } from '../managed-fields/field-manager';
import { FIELD_MANAGER_MAX_LENGTH, managerFromUserAgent } from '../managed-fields/field-manager';
import { unknownFields } from '../managed-fields/typed';
import { kindType } from '../openapi/definitions';
import type { ApiResource } from '../resources';
import { API_RESOURCES, apiVersionOf } from '../resources';
import type { StatusCause } from '../status';
import { ApiError, badRequest, invalid } from '../status';
import type { KubeObject } from '../types';
import { rfc3339 } from '../types';
import type { ApiDeps, ResourceRequest } from './request';
import { fromWire, toWire } from './request';

/** `fieldValidation` of a write. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The field-management options of a write. */
export interface WriteOptions {
  /** The manager recorded: `fieldManager`, else the User-Agent's start. */
  readonly manager: string;
  readonly validation: FieldValidation;
  /** `force` of an apply patch. */
  readonly force: boolean;
}

const VALIDATIONS: readonly string[] = ['Ignore', 'Strict', 'Warn'];

/**
 * Reads and checks `fieldManager`, `fieldValidation` and `force`.
 * @throws ApiError 422 `<Kind>.meta.k8s.io "" is invalid` as upstream words it.
 */
export function writeOptions(request: ResourceRequest, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', apply = false): WriteOptions {
  const { query } = request;
  const causes: StatusCause[] = [];
  const fieldManager = query.get('fieldManager') ?? '';
  const forceRaw = query.get('force');
  if (kind === 'PatchOptions') {
    if (!apply && forceRaw !== null) causes.push({ field: 'force', reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch' });
    if (apply && fieldManager === '') causes.push({ field: 'fieldManager', reason: 'FieldValueRequired', message: 'Required value: is required for apply patch' });
  }
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) {
    causes.push({ field: 'fieldManager', reason: 'FieldValueTooLong', message: `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes` });
  }
  [...fieldManager].forEach((char, i) => {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(char)) {
      const code = char.codePointAt(0) ?? 0;
      causes.push({ field: 'fieldManager', message: `Invalid value: ${JSON.stringify(fieldManager)}: invalid character U+${code.toString(16).toUpperCase().padStart(4, '0')} (at position ${i})` });
    }
  });
  const validation = query.get('fieldValidation') ?? '';
  if (validation !== '' && !VALIDATIONS.includes(validation)) {
    causes.push({ field: 'fieldValidation', reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(validation)}: supported values: "", "Ignore", "Strict", "Warn"` });
  }
  if (causes.length > 0) throw invalid(kind, 'meta.k8s.io', '', causes);
  let force = false;
  if (kind === 'PatchOptions' && forceRaw !== null && forceRaw !== '') {
    if (forceRaw !== 'true' && forceRaw !== 'false') throw badRequest(`force: Invalid value: ${JSON.stringify(forceRaw)}: must be true or false`);
    force = forceRaw === 'true';
  }
  return {
    manager: fieldManager !== '' ? fieldManager : managerFromUserAgent(request.userAgent),
    validation: (validation === '' ? 'Warn' : validation) as FieldValidation,
    force,
  };
}

/** The served endpoint of a storage kind at an apiVersion. */
function endpointAt(resource: ApiResource, apiVersion: string): ApiResource | undefined {
  if (apiVersionOf(resource.group, resource.version) === apiVersion) return resource;
  return API_RESOURCES.find((r) => r.storage === resource.storage && r.kind === resource.kind && apiVersionOf(r.group, r.version) === apiVersion);
}

/** The field manager's view of a resource for one write through `resource` (`subresource`: status, scale or ''). */
export function managerScope(deps: ApiDeps, resource: ApiResource, subresource: 'status' | 'scale' | undefined): FieldManagerScope {
  return {
    apiVersion: apiVersionOf(resource.group, resource.version),
    subresource: subresource ?? '',
    typeAt: (apiVersion) => (endpointAt(resource, apiVersion) === undefined ? undefined : kindType(apiVersion, resource.kind)),
    convert: (object: KubeObject, apiVersion: string) => {
      const target = endpointAt(resource, apiVersion);
      return target === undefined ? undefined : toWire(target, fromWire(resource, object));
    },
    statusSeparate: resource.subresources.includes('status'),
    now: rfc3339(deps.now()),
  };
}

/** Formats unknown fields as Go's strict decoding error does. */
function strictMessage(fields: readonly string[]): string {
  return `strict decoding error: ${fields.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`;
}

/** The `Warning` header for unknown fields (`299 - "unknown field \"spec.x\""`, comma-separated). */
function warningHeader(fields: readonly string[]): Record<string, string> {
  return { Warning: fields.map((f) => `299 - ${JSON.stringify(`unknown field ${JSON.stringify(f)}`)}`).join(', ') };
}

/** The unknown fields of an object of a served kind (none for kinds without a schema). */
function unknownOf(resource: ApiResource, object: unknown): string[] {
  const type = kindType(apiVersionOf(resource.group, resource.version), resource.kind);
  return type === undefined ? [] : unknownFields(object, type);
}

/**
 * Unknown fields in a created or replaced object: 400 under Strict (`Service in version "v1"
 * cannot be handled as a Service: strict decoding error: unknown field "spec.x"`), a Warning
 * header under Warn, nothing under Ignore.
 */
export function checkBodyFields(resource: ApiResource, body: KubeObject, validation: FieldValidation): Record<string, string> | undefined {
  if (validation === 'Ignore') return undefined;
  const unknown = unknownOf(resource, body);
  if (unknown.length === 0) return undefined;
  if (validation === 'Strict') {
    const { kind, version } = resource;
    throw new ApiError(400, 'BadRequest', `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${strictMessage(unknown)}`);
  }
  return warningHeader(unknown);
}

/**
 * Unknown fields a patch introduced (fields the object already had are not the patch's doing):
 * 422 under Strict, as upstream's patch handler words it, a Warning header under Warn.
 */
export function checkPatchedFields(resource: ApiResource, before: KubeObject, after: KubeObject, patch: unknown, validation: FieldValidation): Record<string, string> | undefined {
  if (validation === 'Ignore') return undefined;
  const existing = new Set(unknownOf(resource, before));
  const unknown = unknownOf(resource, after).filter((f) => !existing.has(f));
  if (unknown.length === 0) return undefined;
  if (validation === 'Strict') {
    throw invalid('', '', '', [{ field: 'patch', message: `Invalid value: ${JSON.stringify(JSON.stringify(patch))}: ${strictMessage(unknown)}` }]);
  }
  return warningHeader(unknown);
}

/**
 * The review resources a client creates to learn about itself: SelfSubjectAccessReview (may I?
 * — decided by the simulator's RBAC configuration, a denial without a reason as upstream's RBAC
 * gives) and SelfSubjectReview (who am I? — the configured user with the groups upstream's
 * authenticators give it).
 */
import { parseBody } from '../http';
import { apiVersionOf } from '../resources';
import { badRequest, invalid } from '../status';
import { isRecord, recordField, stringField } from '../types';
import type { ApiDeps, ApiResult, ResourceRequest } from './request';

/** Answers a SelfSubjectAccessReview with the simulator's RBAC decision. */
export async function selfSubjectAccessReview(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const body = parseBody(await request.readBody(), request.contentType);
  if (!isRecord(body) || body.kind !== 'SelfSubjectAccessReview') {
    throw badRequest('the object could not be decoded: expected a SelfSubjectAccessReview');
  }
  const spec = recordField(body, 'spec');
  const attrs = recordField(spec, 'resourceAttributes');
  let status: Record<string, unknown>;
  if (attrs !== undefined) {
    const resourceName = stringField(attrs, 'resource') ?? '';
    const subresource = stringField(attrs, 'subresource');
    const namespace = stringField(attrs, 'namespace');
    const name = stringField(attrs, 'name');
    const decision = deps.faults.authorize({
      verb: stringField(attrs, 'verb') ?? '',
      group: stringField(attrs, 'group') ?? '',
      resource: resourceName,
      ...(subresource ? { subresource } : {}),
      ...(namespace ? { namespace } : {}),
      ...(name ? { name } : {}),
    });
    // Like RBAC upstream, a denial carries no reason (kubectl prints a reason after "no").
    status = decision.allowed ? { allowed: true, reason: decision.reason } : { allowed: false };
  } else if (recordField(spec, 'nonResourceAttributes') !== undefined) {
    status = { allowed: true, reason: 'non-resource URLs are allowed by the simulator' };
  } else {
    throw invalid('SelfSubjectAccessReview', 'authorization.k8s.io', '', [
      { field: 'spec.resourceAttributes', reason: 'FieldValueRequired', message: 'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified' },
    ]);
  }
  return {
    code: 201,
    body: { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status },
  };
}

/** The groups upstream's authenticators give a user: service accounts get theirs, everyone `system:authenticated`. */
function groupsOf(user: string): string[] {
  const serviceAccount = /^system:serviceaccount:([^:]+):[^:]+$/.exec(user);
  return serviceAccount ? ['system:serviceaccounts', `system:serviceaccounts:${serviceAccount[1] ?? ''}`, 'system:authenticated'] : ['system:authenticated'];
}

/** Answers a SelfSubjectReview: the user the simulator authenticates every request as. */
export async function selfSubjectReview(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const body = parseBody(await request.readBody(), request.contentType);
  if (!isRecord(body) || body.kind !== 'SelfSubjectReview') {
    throw badRequest('the object could not be decoded: expected a SelfSubjectReview');
  }
  const user = deps.faults.rbac.user;
  return {
    code: 201,
    body: {
      kind: 'SelfSubjectReview',
      apiVersion: apiVersionOf(request.resource.group, request.resource.version),
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: user, groups: groupsOf(user) } },
    },
  };
}

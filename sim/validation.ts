/**
 * The create/update rules the simulator enforces (a small subset of upstream validation and
 * defaulting), and upstream-style 422 Invalid errors for violations.
 */
import type { ResourceKey } from './resources';
import { STORAGE } from './resources';
import type { StatusCause } from './status';
import { invalid } from './status';
import type { KubeObject } from './types';
import { arrayField, isRecord, numberField, pathValue } from './types';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Kinds whose names must be DNS-1123 labels (no dots, 63 characters). */
const LABEL_NAMED = new Set<ResourceKey>(['namespaces', 'services']);

function nameCause(resource: ResourceKey, name: string): StatusCause | undefined {
  if (LABEL_NAMED.has(resource)) {
    if (name.length > 63 || !DNS1123_LABEL.test(name)) {
      return {
        field: 'metadata.name',
        message: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      };
    }
    return undefined;
  }
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    return {
      field: 'metadata.name',
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    };
  }
  return undefined;
}

function nonNegativeInteger(object: KubeObject, path: string[], causes: StatusCause[]): void {
  const value = pathValue(object, path);
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    causes.push({ field: path.join('.'), message: `Invalid value: ${JSON.stringify(value)}: must be greater than or equal to 0` });
  }
}

/**
 * Checks an object about to be stored.
 * @throws ApiError 422 Invalid listing every violation.
 */
export function validateObject(resource: ResourceKey, object: KubeObject): void {
  const causes: StatusCause[] = [];
  const name = object.metadata.name;
  if (name === '') {
    causes.push({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' });
  } else {
    const cause = nameCause(resource, name);
    if (cause) causes.push(cause);
  }
  switch (resource) {
    case 'deployments':
    case 'replicasets':
      nonNegativeInteger(object, ['spec', 'replicas'], causes);
      break;
    case 'horizontalpodautoscalers': {
      const max = numberField(object.spec, 'maxReplicas');
      const min = numberField(object.spec, 'minReplicas');
      if (max === undefined || max < 1) {
        causes.push({ field: 'spec.maxReplicas', message: `Invalid value: ${String(max)}: must be greater than or equal to 1` });
      } else if (min !== undefined && min > max) {
        causes.push({ field: 'spec.maxReplicas', message: `Invalid value: ${max}: must be greater than or equal to \`minReplicas\`` });
      }
      break;
    }
    case 'services':
      arrayField(object.spec, 'ports').forEach((port, i) => {
        const value = isRecord(port) ? port.port : undefined;
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
          causes.push({ field: `spec.ports[${i}].port`, message: `Invalid value: ${JSON.stringify(value)}: must be between 1 and 65535, inclusive` });
        }
      });
      break;
    default:
      break;
  }
  if (causes.length > 0) {
    const def = STORAGE[resource];
    throw invalid(def.kind, def.group, name, causes);
  }
}

/** Validates the replicas of a Scale. @throws ApiError 422 Invalid. */
export function validateScaleReplicas(name: string, replicas: unknown): number {
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('Scale', 'autoscaling', name, [
      { field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0` },
    ]);
  }
  return replicas;
}

/** Hands out Service cluster IPs (10.96.0.0/16) and node ports (30000+), per simulator. */
export class ServiceAllocator {
  private nextIp = 10;
  private nextPort = 30000;

  /** A fresh cluster IP. */
  clusterIp(): string {
    const n = this.nextIp++;
    return `10.96.${Math.floor(n / 256) % 256}.${n % 256}`;
  }

  /** A fresh node port. */
  nodePort(): number {
    return this.nextPort++;
  }
}

/**
 * Defaults the API server applies on create (a subset): Service type, clusterIP, port protocol
 * and nodePorts; Deployment/ReplicaSet replicas; Namespace phase; status reset for kinds whose
 * status only controllers write (as upstream's PrepareForCreate does).
 */
export function applyCreateDefaults(resource: ResourceKey, object: KubeObject, allocator: ServiceAllocator): void {
  switch (resource) {
    case 'services': {
      const spec: Record<string, unknown> = isRecord(object.spec) ? object.spec : {};
      object.spec = spec;
      const type = typeof spec.type === 'string' ? spec.type : 'ClusterIP';
      spec.type = type;
      if (type !== 'ExternalName' && (spec.clusterIP === undefined || spec.clusterIP === '')) {
        spec.clusterIP = allocator.clusterIp();
      }
      if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && spec.clusterIPs === undefined) spec.clusterIPs = [spec.clusterIP];
      for (const port of arrayField(spec, 'ports')) {
        if (!isRecord(port)) continue;
        if (port.protocol === undefined) port.protocol = 'TCP';
        if (port.targetPort === undefined) port.targetPort = port.port;
        if ((type === 'NodePort' || type === 'LoadBalancer') && port.nodePort === undefined) port.nodePort = allocator.nodePort();
      }
      if (spec.sessionAffinity === undefined) spec.sessionAffinity = 'None';
      object.status = { loadBalancer: {} };
      break;
    }
    case 'deployments':
    case 'replicasets':
    case 'daemonsets':
    case 'horizontalpodautoscalers':
      if ((resource === 'deployments' || resource === 'replicasets') && isRecord(object.spec) && object.spec.replicas === undefined) {
        object.spec.replicas = 1;
      }
      object.status = {};
      break;
    case 'pods':
      object.status = { phase: 'Pending' };
      break;
    case 'namespaces':
      object.spec = isRecord(object.spec) ? object.spec : { finalizers: ['kubernetes'] };
      object.status = { phase: 'Active' };
      break;
    default:
      break;
  }
}

/**
 * A Service and its EndpointSlices as YAML, as the API server has them: read from the API server
 * when asked (the informer cache keeps only what the analysis reads), with `managedFields` left out
 * unless asked for. Neither kind can hold credentials (no Secret data, no tokens), so the objects
 * are shown whole; errors carry the API server's redacted message only. Snapshots keep only what
 * the analysis reads, so this needs a live cluster.
 */
import 'server-only';

import { stringify } from 'yaml';
import { errorFromException, errorFromResponse } from '../k8s/errors';
import { LABEL_SERVICE_NAME } from '../topology/upstream/constants';
import { source } from '../server/analysis';
import type { ClusterScope } from '../server/clusters';
import type { DataError } from '../server/http';
import { findService } from './service/view';

/** What {@link getServiceYaml} returns. */
export interface ServiceYaml {
  /** Multi-document YAML: the Service, then each EndpointSlice (sorted by name). */
  readonly yaml: string;
  /** Names of the EndpointSlices included. */
  readonly endpointSlices: readonly string[];
  readonly managedFields: boolean;
}

type Result = { readonly ok: true; readonly value: ServiceYaml } | { readonly ok: false; readonly error: DataError };

type KubeObject = Record<string, unknown> & { metadata?: Record<string, unknown> };

function withoutManagedFields(object: KubeObject): KubeObject {
  if (!object.metadata || !('managedFields' in object.metadata)) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}

async function getJson(scope: ClusterScope, path: string, query?: Readonly<Record<string, string>>): Promise<{ ok: true; body: unknown } | { ok: false; error: DataError }> {
  const connection = source(scope.source).connection;
  if (connection === null) return { ok: false, error: { kind: 'unavailable', message: 'The YAML view reads the live cluster; a snapshot keeps only what the analysis needs.' } };
  try {
    const response = await connection.request({ path, ...(query ? { query } : {}) });
    if (response.status < 200 || response.status > 299) {
      const error = errorFromResponse(response.status, response.body, response.headers);
      return { ok: false, error: { kind: error.kind, message: error.message, ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}) } };
    }
    return { ok: true, body: JSON.parse(response.body) as unknown };
  } catch (cause) {
    const error = errorFromException(cause);
    return { ok: false, error: { kind: error.kind, message: error.message } };
  }
}

/**
 * The Service `namespace/name` and the EndpointSlices labelled `kubernetes.io/service-name=name`
 * as the API server has them now (two GETs), `managedFields` removed unless `managedFields`.
 */
export async function getServiceYaml(scope: ClusterScope, namespace: string, name: string, managedFields = false): Promise<Result> {
  const missing = findService(scope, namespace, name);
  if (missing) return { ok: false, error: missing };
  const ns = encodeURIComponent(namespace);
  const [service, slices] = await Promise.all([
    getJson(scope, `/api/v1/namespaces/${ns}/services/${encodeURIComponent(name)}`),
    getJson(scope, `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, { labelSelector: `${LABEL_SERVICE_NAME}=${name}` }),
  ]);
  if (!service.ok) return { ok: false, error: service.error };
  if (!slices.ok) return { ok: false, error: slices.error };
  const items = ((slices.body as { items?: unknown }).items ?? []) as KubeObject[];
  const ordered = [...items].sort((a, b) => String(a.metadata?.name ?? '').localeCompare(String(b.metadata?.name ?? '')));
  // List items come without apiVersion and kind; a YAML document of its own needs them.
  const objects: KubeObject[] = [service.body as KubeObject, ...ordered.map((slice) => ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', ...slice }))];
  const shown = managedFields ? objects : objects.map(withoutManagedFields);
  return {
    ok: true,
    value: {
      yaml: shown.map((object) => stringify(object, { lineWidth: 0 })).join('---\n'),
      endpointSlices: ordered.map((slice) => String(slice.metadata?.name ?? '')),
      managedFields,
    },
  };
}

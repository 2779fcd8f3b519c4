/**
 * Legacy (unaggregated) API discovery documents: `/version`, `/api`, `/api/v1`, `/apis`,
 * `/apis/<group>`, `/apis/<group>/<version>`. Clients that ask for aggregated discovery
 * (`Accept: ...;as=APIGroupDiscoveryList`) fall back to these when the response is plain
 * `application/json`, as kubectl and client-go do.
 */
import type { ApiResource } from './resources';
import { API_RESOURCES, apiVersionOf, servedGroups } from './resources';

/** The `/version` document. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/**
 * The `/version` document for a `vMAJOR.MINOR.PATCH` gitVersion.
 * @throws Error when `gitVersion` is not of that form.
 */
export function versionInfo(gitVersion: string): VersionInfo {
  const match = /^v(\d+)\.(\d+)\.(\d+)/.exec(gitVersion);
  if (match === null) throw new Error(`server version must look like v1.31.4, got "${gitVersion}"`);
  return {
    major: match[1] ?? '1',
    minor: match[2] ?? '0',
    gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2024-12-10T00:00:00Z',
    goVersion: 'go1.22.9',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/** `/api`: the core group's versions. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: string, versions: readonly string[]): Record<string, unknown> {
  const groupVersions = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: groupVersions, preferredVersion: groupVersions[0] };
}

/** `/apis`: every named group. */
export function apiGroupList(): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: servedGroups()
      .filter((g) => g.group !== '')
      .map((g) => apiGroup(g.group, g.versions)),
  };
}

/** `/apis/<group>`, or `undefined` when the group is not served. */
export function apiGroupDocument(group: string): Record<string, unknown> | undefined {
  const served = servedGroups().find((g) => g.group === group && group !== '');
  if (served === undefined) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(served.group, served.versions) };
}

function resourceEntries(resource: ApiResource): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: resource.plural,
    singularName: resource.singular,
    namespaced: resource.namespaced,
    kind: resource.kind,
    verbs: resource.verbs,
  };
  if (resource.shortNames.length > 0) main.shortNames = resource.shortNames;
  if (resource.categories.length > 0) main.categories = resource.categories;
  const entries = [main];
  for (const sub of resource.subresources) {
    if (sub === 'status') {
      entries.push({
        name: `${resource.plural}/status`, singularName: '', namespaced: resource.namespaced, kind: resource.kind,
        verbs: ['get', 'patch', 'update'],
      });
    } else {
      entries.push({
        name: `${resource.plural}/scale`, singularName: '', namespaced: resource.namespaced, group: 'autoscaling',
        version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'],
      });
    }
  }
  return entries;
}

/** `/api/v1` or `/apis/<group>/<version>`, or `undefined` when not served. */
export function apiResourceList(group: string, version: string): Record<string, unknown> | undefined {
  const resources = API_RESOURCES.filter((r) => r.group === group && r.version === version);
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf(group, version),
    resources: resources.flatMap(resourceEntries),
  };
}

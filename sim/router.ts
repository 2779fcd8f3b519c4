/**
 * HTTP routing of the Kubernetes API surface: non-resource paths (`/version`, health, openapi),
 * discovery, and resource paths (`/api/v1/...`, `/apis/<group>/<version>/...`, legacy
 * `/watch/` prefix) turned into {@link ResourceRequest}s. Every resource request is counted,
 * then passes fault injection (latency, hang, errors, resets) and RBAC before its handler runs;
 * "after apply" faults replace the handler's answer (a reset, an error) once it has run.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { VersionInfo } from './discovery';
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions } from './discovery';
import type { RequestInfo } from './faults/request-match';
import { handleResourceRequest } from './handlers';
import { decodeContinue } from './handlers/continue-token';
import type { ApiDeps, ResourceRequest, Verb } from './handlers/request';
import { negotiate, readBody, sendJson } from './http';
import { answerOpenApiV3 } from './openapi/serve';
import { sendOversized } from './oversized';
import type { ApiResource } from './resources';
import { findApiResource, servedGroups } from './resources';
import { ApiError, forbidden } from './status';
import type { SimStats } from './stats';

/** What the router needs. */
export interface RouterDeps extends ApiDeps {
  stats: SimStats;
  version: VersionInfo;
  /** `host:port` clients use (for `/api` serverAddressByClientCIDRs). */
  serverAddress: () => string;
  /** Handles `/__sim/...`. */
  control: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  /** When it returns a token, requests must carry `Authorization: Bearer <token>` (read per request, so tokens can rotate). */
  requiredToken: () => string | undefined;
  /** Requests held open by "hang" faults (ended on shutdown). */
  hanging: Set<ServerResponse>;
  log: (message: string) => void;
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

function respond(deps: RouterDeps, res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  deps.stats.recordResponse(code);
  sendJson(res, code, body, headers);
}

function respondError(deps: RouterDeps, res: ServerResponse, error: unknown): void {
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = error;
  } else {
    deps.log(`sim: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    apiError = new ApiError(500, 'InternalError', `Internal error occurred: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  respond(deps, res, apiError.code, apiError.toStatus(), { ...apiError.headers });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A resource path split into its parts. */
interface ResourcePath {
  resource: ApiResource;
  namespace: string | undefined;
  name: string | undefined;
  subresource: 'status' | 'scale' | undefined;
  watchPrefix: boolean;
}

function parseResourcePath(group: string, version: string, rest: string[]): ResourcePath {
  let watchPrefix = false;
  let parts = rest;
  if (parts[0] === 'watch') {
    watchPrefix = true;
    parts = parts.slice(1);
  }
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length >= 3) {
    const inner = findApiResource(group, version, parts[2] ?? '');
    if (inner?.namespaced) {
      namespace = parts[1];
      parts = parts.slice(2);
    }
  }
  const resource = findApiResource(group, version, parts[0] ?? '');
  if (resource === undefined || parts.length > 3) throw notFoundPath();
  if (resource.namespaced && namespace === undefined && parts.length > 1) throw notFoundPath();
  const name = parts[1];
  const sub = parts[2];
  let subresource: 'status' | 'scale' | undefined;
  if (sub !== undefined) {
    if (sub !== 'status' && sub !== 'scale') throw notFoundPath();
    if (!resource.subresources.includes(sub)) throw notFoundPath();
    subresource = sub;
  }
  if (name === '') throw notFoundPath();
  return { resource, namespace, name, subresource, watchPrefix };
}

function verbOf(method: string, path: ResourcePath, query: URLSearchParams): Verb {
  const watchParam = query.get('watch');
  const isWatch = path.watchPrefix || watchParam === 'true' || watchParam === '1';
  switch (method) {
    case 'GET':
      if (isWatch) return 'watch';
      return path.name === undefined ? 'list' : 'get';
    case 'POST':
      if (path.name !== undefined) throw methodNotAllowed();
      return 'create';
    case 'PUT':
      if (path.name === undefined) throw methodNotAllowed();
      return 'update';
    case 'PATCH':
      if (path.name === undefined) throw methodNotAllowed();
      return 'patch';
    case 'DELETE':
      return path.name === undefined ? 'deletecollection' : 'delete';
    default:
      throw methodNotAllowed();
  }
}

function nonResource(deps: RouterDeps, res: ServerResponse, method: string, segments: string[]): void {
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed();
  const [first, second, third] = segments;
  if (first === 'healthz' || first === 'livez' || first === 'readyz') deps.stats.recordHealth();
  else deps.stats.recordDiscovery();
  if (first === undefined) {
    respond(deps, res, 200, { paths: ['/api', '/api/v1', '/apis', ...servedGroups().filter((g) => g.group !== '').map((g) => `/apis/${g.group}`), '/healthz', '/livez', '/readyz', '/version'] });
    return;
  }
  if (segments.length === 1 && first === 'version') {
    respond(deps, res, 200, deps.version);
    return;
  }
  if (first === 'healthz' || first === 'livez' || first === 'readyz') {
    deps.stats.recordResponse(200);
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return;
  }
  if (first === 'api' && segments.length === 1) {
    respond(deps, res, 200, apiVersions(deps.serverAddress()));
    return;
  }
  if (first === 'api' && segments.length === 2 && second !== undefined) {
    const doc = apiResourceList('', second);
    if (doc === undefined) throw notFoundPath();
    respond(deps, res, 200, doc);
    return;
  }
  if (first === 'apis' && segments.length === 1) {
    respond(deps, res, 200, apiGroupList());
    return;
  }
  if (first === 'apis' && segments.length === 2 && second !== undefined) {
    const doc = apiGroupDocument(second);
    if (doc === undefined) throw notFoundPath();
    respond(deps, res, 200, doc);
    return;
  }
  if (first === 'apis' && segments.length === 3 && second !== undefined && third !== undefined) {
    const doc = apiResourceList(second, third);
    if (doc === undefined) throw notFoundPath();
    respond(deps, res, 200, doc);
    return;
  }
  // /openapi/v2 (kubectl uses v3, served above) and anything else: 404.
  throw notFoundPath();
}

/** Page number a list request asks for (1 without a continue token). */
function pageOf(query: URLSearchParams): number | undefined {
  const raw = query.get('continue');
  if (raw === null || raw === '') return 1;
  try {
    return decodeContinue(raw).page;
  } catch {
    return undefined;
  }
}

async function route(deps: RouterDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator.invalid');
  if (url.pathname === '/__sim' || url.pathname.startsWith('/__sim/')) {
    await deps.control(req, res, url);
    return;
  }
  const method = (req.method ?? 'GET').toUpperCase();
  try {
    const requiredToken = deps.requiredToken();
    if (requiredToken !== undefined && req.headers.authorization !== `Bearer ${requiredToken}`) {
      throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    }
    let segments: string[];
    try {
      segments = url.pathname.split('/').filter((s) => s !== '').map((s) => decodeURIComponent(s));
    } catch {
      throw new ApiError(400, 'BadRequest', 'malformed URL path');
    }
    const [first, second, third] = segments;
    const isResource =
      (first === 'api' && segments.length > 2) || (first === 'apis' && segments.length > 3);
    if (first === 'openapi' && second === 'v3' && (method === 'GET' || method === 'HEAD')) {
      deps.stats.recordDiscovery();
      const answer = answerOpenApiV3(segments.slice(2), url.searchParams, req.headers.accept);
      if (answer.body === undefined) {
        deps.stats.recordResponse(answer.code);
        res.writeHead(answer.code, answer.headers);
        res.end();
      } else {
        respond(deps, res, answer.code, answer.body, answer.headers);
      }
      return;
    }
    if (!isResource) {
      nonResource(deps, res, method, segments);
      return;
    }
    const group = first === 'api' ? '' : (second ?? '');
    const version = first === 'api' ? (second ?? '') : (third ?? '');
    const rest = segments.slice(first === 'api' ? 2 : 3);
    const path = parseResourcePath(group, version, rest);
    const { resource } = path;
    const query = url.searchParams;
    const verb = verbOf(method, path, query);
    if (path.subresource !== undefined ? !['get', 'update', 'patch'].includes(verb) : !resource.verbs.includes(verb)) {
      throw methodNotAllowed();
    }
    if (verb === 'watch' && path.name !== undefined) {
      // Legacy `/watch/.../name`: a watch of one object.
      const field = query.get('fieldSelector');
      query.set('fieldSelector', field ? `${field},metadata.name=${path.name}` : `metadata.name=${path.name}`);
    }
    const info: RequestInfo = { verb, group: resource.group, resource: resource.plural };
    if (path.subresource !== undefined) info.subresource = path.subresource;
    if (path.namespace !== undefined) info.namespace = path.namespace;
    if (path.name !== undefined) info.name = path.name;
    const authorization = req.headers.authorization;
    if (authorization?.startsWith('Bearer ')) info.token = authorization.slice('Bearer '.length);
    if (verb === 'list') {
      const page = pageOf(query);
      if (page !== undefined) info.page = page;
    }
    deps.stats.recordRequest(verb, path.subresource ? `${resource.plural}/${path.subresource}` : resource.plural);
    if (verb === 'list' && path.subresource === undefined && !query.get('continue')) {
      if (isResumeCheck(query)) deps.stats.recordResumeCheck(resource.plural);
      else deps.stats.recordListStart(resource.plural);
    }

    // 1. Faults: latency, hang, injected errors.
    const decision = deps.faults.evaluate(info);
    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    if (decision.hang) {
      deps.hanging.add(res);
      res.on('close', () => deps.hanging.delete(res));
      return;
    }
    if (decision.error !== undefined) throw decision.error;
    if (decision.reset === true) {
      // `reset` fault: the request arrived, nothing is done, the connection goes away unanswered.
      res.destroy();
      return;
    }
    if (decision.oversizedBytes !== undefined && (verb === 'list' || verb === 'watch')) {
      deps.stats.recordResponse(200);
      await sendOversized(res, verb, decision.oversizedBytes);
      return;
    }

    // 2. Authorization.
    const authz = deps.faults.authorize(info);
    if (!authz.allowed) throw forbidden(deps.faults.rbac.user, info);

    // 3. The verb.
    const request: ResourceRequest = {
      verb,
      resource,
      namespace: path.namespace,
      name: path.watchPrefix ? undefined : path.name,
      subresource: path.subresource,
      query,
      accept: negotiate(req.headers.accept),
      contentType: req.headers['content-type'],
      userAgent: req.headers['user-agent'] ?? '',
      readBody: () => readBody(req),
    };
    const result = await handleResourceRequest(deps, request, res);
    if (result !== undefined && decision.afterApply !== undefined) {
      // `reset` with `afterApply` / `errorAfterApply`: the verb ran (a write landed), its answer is lost.
      if (decision.afterApply === 'reset') {
        res.destroy();
        return;
      }
      throw decision.afterApply;
    }
    if (result === undefined) {
      deps.stats.recordResponse(200);
      return;
    }
    respond(deps, res, result.code, result.body, result.headers);
  } catch (error) {
    respondError(deps, res, error);
  }
}

/** Builds the request listener of the simulator's HTTP server. */
export function createRouter(deps: RouterDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    route(deps, req, res).catch((error: unknown) => respondError(deps, res, error));
  };
}

/**
 * A one-item list at a resourceVersion, not older than it: a client asking whether that version is
 * still served before it resumes a watch (see `StatsSnapshot.resumeChecks`), not a list of the type.
 */
function isResumeCheck(query: URLSearchParams): boolean {
  return query.get('limit') === '1' && query.get('resourceVersionMatch') === 'NotOlderThan' && (query.get('resourceVersion') ?? '') !== '';
}

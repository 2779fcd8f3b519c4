/**
 * A hook in front of Next.js in the Node.js server: requests with a method outside GET, HEAD,
 * POST, PUT, PATCH, DELETE and OPTIONS (TRACE, TRACK, PROPFIND, …) get `405` with `Allow` and the
 * security headers (`request-guards.ts`) before Next.js sees them. Next.js cannot build a
 * `Request` for TRACE: without this, it answers a bare 500 and logs a stack per request. Nothing
 * is logged. (Node.js itself answers methods its parser does not know, such as TRACK, with a bare
 * 400, and closes the connection of a CONNECT, since no one listens for it.)
 *
 * Installed once per process by `instrumentation.ts` (it wraps `http.Server.prototype.emit`, so it
 * covers the server Next.js has already created).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from 'node:http';
import type { Refusal } from './request-guards';
import { KNOWN_METHODS, methodRefusal } from './request-guards';

const INSTALLED = Symbol.for('zonescope.methodGuard');

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const path = raw.startsWith('/') ? raw : (/^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/[^?#]*)?/i.exec(raw)?.[1] ?? '/');
  return path.split(/[?#]/)[0] ?? '/';
}

function send(response: ServerResponse, refusal: Refusal): void {
  response.writeHead(refusal.status, { ...refusal.headers, 'Content-Length': String(Buffer.byteLength(refusal.body)), Connection: 'close' });
  response.end(refusal.body);
}

/**
 * The guard's answer for one request: the refusal for an unknown method, `null` to pass it on.
 * (Exported for tests.)
 */
export function methodGuardRefusal(method: string | undefined, url: string | undefined): Refusal | null {
  const upper = (method ?? '').toUpperCase();
  return KNOWN_METHODS.includes(upper) ? null : methodRefusal(upper, pathOf(url));
}

/** Installs the guard on every `http.Server` of this process (idempotent). */
export function installMethodGuard(): void {
  const proto = Server.prototype as Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return;
  const originalEmit = proto.emit;
  proto.emit = function emit(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') {
      const [request, response] = args as [IncomingMessage, ServerResponse];
      const refused = methodGuardRefusal(request.method, request.url);
      if (refused !== null) {
        request.resume();
        send(response, refused);
        return true;
      }
    }
    return (originalEmit as (this: Server, event: string | symbol, ...rest: unknown[]) => boolean).call(this, event, ...args);
  } as typeof proto.emit;
  proto[INSTALLED] = true;
}

/**
 * The guards of the one mutation and the audit identity: the same-origin check (CSRF, DNS
 * rebinding), the refusal of unauthenticated writes beyond loopback, and who made a request.
 */
import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import { normaliseOrigin } from '../config/syntax';
import type { ExposureConfig } from './exposure';
import { checkWriteAllowed, verifiedProxyUser } from './exposure';
import type { ApiSurface } from './http';
import { errorResponse, truncate } from './http';

// ---------------------------------------------------------------------------------------------
// Same-origin check (CSRF, DNS rebinding, CVE-2025-29927)

/**
 * The setting read by the origin check: `ZONESCOPE_TRUSTED_ORIGINS`, the origins
 * (`https://zonescope.example.com`) the dashboard is served at besides loopback; a listed
 * origin's host is also trusted as `X-Forwarded-Host`.
 */
export type OriginConfig = Pick<Config, 'ZONESCOPE_TRUSTED_ORIGINS'>;


/** Result of {@link checkSameOrigin}. */
export type OriginCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The trusted origins of `ZONESCOPE_TRUSTED_ORIGINS`, normalised (the configuration refused any that is not an origin). */
export function trustedOrigins(config: OriginConfig = getConfig()): Set<string> {
  const out = new Set<string>();
  for (const entry of config.ZONESCOPE_TRUSTED_ORIGINS) {
    const origin = normaliseOrigin(entry);
    if (origin !== null) out.add(origin);
  }
  return out;
}

function hostWithPort(host: string, protocol: string): string {
  const lower = host.trim().toLowerCase();
  const defaultPort = protocol === 'https:' ? ':443' : ':80';
  return lower.endsWith(defaultPort) ? lower.slice(0, -defaultPort.length) : lower;
}

/**
 * Whether a state-changing request comes from a page of this dashboard. Refused:
 * - any `x-middleware-subrequest` header (CVE-2025-29927: a forged internal sub-request);
 * - `Sec-Fetch-Site` other than `same-origin` (when the browser sends it);
 * - a missing, `null` or malformed `Origin`;
 * - an `X-Forwarded-Host` differing from `Host` whose origin is not in `ZONESCOPE_TRUSTED_ORIGINS`;
 * - an `Origin` whose host differs from the request's host (`Host`, or the trusted
 *   `X-Forwarded-Host`);
 * - an `Origin` that is neither loopback (`localhost`, `127.0.0.1`, `[::1]`, any port: the
 *   dashboard on this machine or through `kubectl port-forward`) nor listed in
 *   `ZONESCOPE_TRUSTED_ORIGINS` — this stops DNS rebinding, where a foreign name resolves to the
 *   dashboard and Origin and Host agree.
 */
export function checkSameOrigin(headers: Headers, config: OriginConfig = getConfig()): OriginCheck {
  if (headers.has('x-middleware-subrequest')) return { ok: false, reason: 'internal sub-request header' };
  const fetchSite = headers.get('sec-fetch-site');
  if (fetchSite !== null && fetchSite.trim().toLowerCase() !== 'same-origin') return { ok: false, reason: `Sec-Fetch-Site: ${truncate(fetchSite, 20)}` };
  const originHeader = headers.get('origin');
  if (originHeader === null || originHeader.trim() === '') return { ok: false, reason: 'no Origin header' };
  if (originHeader.trim().toLowerCase() === 'null') return { ok: false, reason: 'Origin: null' };
  const origin = normaliseOrigin(originHeader.trim());
  if (origin === null) return { ok: false, reason: 'malformed Origin' };
  const originUrl = new URL(origin);
  const trusted = trustedOrigins(config);

  const host = headers.get('host');
  if (host === null || host.trim() === '') return { ok: false, reason: 'no Host header' };
  let requestHost = hostWithPort(host, originUrl.protocol);
  const forwarded = headers.get('x-forwarded-host');
  if (forwarded !== null && forwarded.trim() !== '') {
    const first = hostWithPort(forwarded.split(',')[0] ?? '', originUrl.protocol);
    if (first !== requestHost) {
      // Next.js itself fills X-Forwarded-Host with Host; a different value came from a proxy
      // (or a forger) and counts only when it names a trusted origin.
      const forwardedOrigin = normaliseOrigin(`${originUrl.protocol}//${first}`);
      if (forwardedOrigin === null || !trusted.has(forwardedOrigin)) return { ok: false, reason: 'untrusted X-Forwarded-Host' };
      requestHost = first;
    }
  }
  if (hostWithPort(originUrl.host, originUrl.protocol) !== requestHost) return { ok: false, reason: 'Origin differs from the requested host' };
  if (trusted.has(origin) || LOOPBACK_HOSTNAMES.has(originUrl.hostname)) return { ok: true };
  return { ok: false, reason: 'Origin is not loopback and not in ZONESCOPE_TRUSTED_ORIGINS' };
}

/** 403 `cross-site:<surface>` when {@link checkSameOrigin} refuses, else `null`. */
export function refuseCrossSite(request: Request, surface: ApiSurface, config: OriginConfig = getConfig()): Response | null {
  const check = checkSameOrigin(request.headers, config);
  if (check.ok) return null;
  return errorResponse(403, 'cross-site', surface, `Refused: this change must come from the dashboard's own pages (${check.reason}).`);
}

// ---------------------------------------------------------------------------------------------
// Writes beyond loopback

/**
 * 403 `unauthenticated-write:<surface>` when the dashboard listens beyond loopback and the write
 * is neither behind the authenticating proxy (`ZONESCOPE_AUTH_PROXY=1` and its user header on the
 * request) nor explicitly allowed (`ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES=1`); see
 * `exposure.ts`. Else `null`.
 */
export function refuseUnauthenticatedWrite(request: Request, surface: ApiSurface, config: ExposureConfig = getConfig()): Response | null {
  const check = checkWriteAllowed(request.headers, config);
  return check.ok ? null : errorResponse(403, 'unauthenticated-write', surface, check.reason);
}

// ---------------------------------------------------------------------------------------------
// Audit identity

/**
 * The settings read by {@link auditUser}: `ZONESCOPE_AUTH_PROXY=1` says an auth proxy in front
 * sets (and strips client-sent) user headers, and proves it with the secret of
 * `ZONESCOPE_AUTH_PROXY_SECRET_FILE`.
 */
export type AuditConfig = Pick<Config, 'ZONESCOPE_AUTH_PROXY' | 'ZONESCOPE_AUTH_PROXY_SECRET_FILE'>;

/** Who made a request, for the audit log. */
export interface AuditUser {
  /** `X-Forwarded-User` / `X-Auth-Request-User` with the proxy's secret behind an auth proxy, else `anonymous`. */
  readonly user: string;
  /** A user header nothing vouches for: without `ZONESCOPE_AUTH_PROXY=1`, or without the proxy's secret (anyone can send it). */
  readonly unverifiedUser: string | null;
}

/** The audit identity of a request (see {@link AuditUser}). */
export function auditUser(headers: Headers, config: AuditConfig = getConfig()): AuditUser {
  const { user, claimed } = verifiedProxyUser(headers, config);
  return user !== null ? { user, unverifiedUser: null } : { user: 'anonymous', unverifiedUser: claimed };
}

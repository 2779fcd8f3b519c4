// @ts-check

/**
 * Security headers on every response (pages, API, static files). The Content-Security-Policy
 * comes from proxy.ts (per-request script nonce for pages); keep these in step with
 * STATIC_SECURITY_HEADERS in lib/server/security-headers.ts.
 */
const securityHeaders = [
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), interest-cohort=()' },
];

/**
 * A cluster's URL id as a path-to-regexp group: CLUSTER_ID_PATTERN of lib/shared/cluster-path.ts
 * (lib/server/proxy.test.ts keeps the two in step). Unnamed, so Next.js adds it to no query.
 */
const CLUSTER_ID = '([A-Za-z0-9][A-Za-z0-9._-]{0,62})';

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // A separate build folder per consumer (e2e suite, benchmark) so concurrent builds never clobber each other.
  distDir: process.env.ZONESCOPE_DIST_DIR || '.next',
  reactStrictMode: true,
  output: 'standalone',
  serverExternalPackages: ['@kubernetes/client-node'],
  // Types are checked once, by `npm run typecheck` (`next typegen`, then tsc over the sources and
  // Next.js's route types): the first step of `npm test` and of `npm run build`. Checking them again
  // inside every `next build` (the e2e suite's, the benchmark's, the package's, the demo's) cost
  // about 28 s of CPU per build and found nothing the first check had not.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [{ source: '/:path*', headers: securityHeaders }];
  },
  /**
   * `/c/{id}/{rest}` is served by `/{rest}` in this process: proxy.ts (which Next.js runs first)
   * answers what has no per-cluster version and sets the cluster header; these rewrites then
   * change the path. A rewrite from proxy.ts would be an HTTP request of the server to itself
   * (docs/fleet.md, "How `/c/{id}` is served").
   */
  async rewrites() {
    return {
      beforeFiles: [
        { source: `/c/${CLUSTER_ID}`, destination: '/' },
        { source: `/c/${CLUSTER_ID}/:path+`, destination: '/:path+' },
      ],
      afterFiles: [],
      fallback: [],
    };
  },
};

module.exports = nextConfig;

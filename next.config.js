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

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // A separate build folder per consumer (e2e suite, benchmark) so concurrent builds never clobber each other.
  distDir: process.env.ZONESCOPE_DIST_DIR || '.next',
  reactStrictMode: true,
  output: 'standalone',
  serverExternalPackages: ['@kubernetes/client-node'],
  async headers() {
    return [{ source: '/:path*', headers: securityHeaders }];
  },
};

module.exports = nextConfig;

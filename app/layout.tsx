import type { Metadata, Viewport } from 'next';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { Suspense } from 'react';

import { ClusterBaseProvider } from '@/components/layout/cluster-base';
import { RouteFocus } from '@/components/layout/route-focus';
import { SearchShortcut } from '@/components/layout/search-shortcut';
import { SiteHeader, SiteHeaderFallback } from '@/components/layout/site-header';
import { THEME_SCRIPT } from '@/components/layout/theme-script';
import { requestClusterBase } from '@/lib/server/clusters';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'zonescope', template: '%s · zonescope' },
  description: 'How traffic moves between availability zones in your Kubernetes cluster, and why.',
};

export const viewport: Viewport = {
  colorScheme: 'light dark',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The page CSP allows inline scripts only with the per-request nonce set by proxy.ts.
  const nonce = (await headers()).get('x-nonce') ?? undefined;
  // `/c/{id}/…` pages: every link and fetch of the client leaves stays in that cluster.
  const cluster = await requestClusterBase();
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* Applies the saved theme before the first paint (no flash); see components/layout/theme-script.ts. */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <a
          href="#main"
          className="sr-only z-50 focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-slate-900 focus:shadow-lg"
        >
          Skip to content
        </a>
        <ClusterBaseProvider base={cluster.base} clusterId={cluster.clusterId} defaultId={cluster.defaultId}>
          <RouteFocus />
          <SearchShortcut />
          <Suspense fallback={<SiteHeaderFallback />}>
            <SiteHeader />
          </Suspense>
          <main id="main" tabIndex={-1} className="mx-auto max-w-[112rem] px-4 py-6 focus:outline-none">
            {children}
          </main>
        </ClusterBaseProvider>
        <footer className="mx-auto max-w-[112rem] px-4 pb-8 pt-2 text-xs text-slate-600 dark:text-slate-400">
          zonescope recomputes what the EndpointSlice controller and kube-proxy do from the cluster&apos;s objects. Traffic volumes are measured where Prometheus has them
          and assumed otherwise; every volume says which.
        </footer>
      </body>
    </html>
  );
}

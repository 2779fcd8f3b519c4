import type { Metadata } from 'next';
import type { ReactNode } from 'react';

import './globals.css';

export const metadata: Metadata = {
  title: { default: 'zonescope', template: '%s · zonescope' },
  description: 'How traffic moves between availability zones in your Kubernetes cluster, and why.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-slate-900">
          Skip to content
        </a>
        <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
          <div className="mx-auto flex max-w-7xl items-center gap-4 px-4 py-3">
            <span className="text-lg font-semibold tracking-tight">zonescope</span>
            <span className="text-sm text-slate-500 dark:text-slate-400">Topology Aware Routing, explained</span>
          </div>
        </header>
        <main id="main" className="mx-auto max-w-7xl px-4 py-8">
          {children}
        </main>
      </body>
    </html>
  );
}

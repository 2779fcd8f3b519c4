'use client';

/**
 * Re-renders the server components every `intervalMs` while the data is not settled (first sync
 * in progress, a watch down), so progress and recovery show without a reload. Pauses while the
 * tab is hidden.
 */
import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

export function AutoRefresh({ intervalMs }: { readonly intervalMs: number }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') router.refresh();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [router, intervalMs]);
  return null;
}

// After the first sync, the header's LiveStatus (./live-status.tsx) keeps pages on the watch: it
// re-renders them when the cache's generation or any type's health moves.

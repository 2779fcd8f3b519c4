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

/**
 * Keeps the header's freshness honest after the first sync: polls the cheap readiness endpoint
 * (`/api/health/ready`, per-type health only) and re-renders the server components when any
 * resource type changes health (a watch goes stale, recovers, or becomes forbidden). Layouts are
 * not re-rendered on client navigation, so without this a stale banner would wait for a reload.
 */
export function FreshnessWatcher({ intervalMs }: { readonly intervalMs: number }) {
  const router = useRouter();
  useEffect(() => {
    let baseline: string | null = null;
    let stopped = false;
    const poll = async () => {
      if (document.visibilityState !== 'visible') return;
      try {
        const response = await fetch('/api/health/ready', { cache: 'no-store' });
        const body = (await response.json()) as { status?: string; resources?: { resource: string; health: string }[] };
        const signature = `${body.status ?? ''}|${(body.resources ?? []).map((r) => `${r.resource}:${r.health}`).join(',')}`;
        if (stopped) return;
        if (baseline !== null && signature !== baseline) router.refresh();
        baseline = signature;
      } catch {
        // The dashboard server itself is unreachable: nothing to refresh from.
      }
    };
    void poll();
    const timer = setInterval(() => void poll(), intervalMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [router, intervalMs]);
  return null;
}

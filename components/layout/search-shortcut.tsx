'use client';

/**
 * `/` on every page goes to the Services search, unless the user is typing in a field (where `/`
 * is a character). A page with a search that answers to `/` (`aria-keyshortcuts="/"`: the Services
 * table's) has it focused — the table's own handler does that first, on `document`; this one
 * listens on `window`, after it, and leaves a key already handled alone. Any other page (the
 * Overview, a Service, the Dataplane, the fleet) opens the Services page of the same cluster and
 * puts the focus in its search once it shows, after RouteFocus has moved it to the new heading.
 */
import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';

import { withClusterBase } from '@/lib/shared/cluster-path';
import { useClusterBase } from './cluster-base';

/** The search `/` focuses. */
const SEARCH = 'main input[aria-keyshortcuts~="/"]';
/** How long to wait for the Services page to show its search. */
const WAIT_MS = 10_000;

/** Whether a key press happens while the user types in a field. */
export function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

function focusSearch(search: HTMLInputElement): void {
  search.focus();
  search.select();
}

export function SearchShortcut() {
  const router = useRouter();
  const base = useClusterBase();
  const pathname = usePathname();
  /** Set when `/` opened the Services page: its search gets the focus when it shows. */
  const pending = useRef(false);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      event.preventDefault();
      const search = document.querySelector<HTMLInputElement>(SEARCH);
      if (search !== null) {
        focusSearch(search);
        return;
      }
      const services = withClusterBase(base, '/services');
      // The Services page still on its way: its search answers once it shows.
      if (window.location.pathname === services) return;
      pending.current = true;
      router.push(services);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [router, base]);

  useEffect(() => {
    if (!pending.current) return;
    // Frame by frame until the Services page shows (a loading skeleton may come first). RouteFocus,
    // mounted before this, moves the focus to the new heading in the same frame or earlier.
    const deadline = Date.now() + WAIT_MS;
    let frame = 0;
    const step = () => {
      const search = document.querySelector<HTMLInputElement>(SEARCH);
      if (search !== null && document.querySelector('main h1:not([data-skeleton])') !== null) {
        pending.current = false;
        focusSearch(search);
        return;
      }
      if (Date.now() < deadline) frame = requestAnimationFrame(step);
      else pending.current = false;
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [pathname]);

  return null;
}

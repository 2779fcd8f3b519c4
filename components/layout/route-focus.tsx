'use client';

/**
 * After a client-side navigation, moves the focus to the new page's heading (`main h1`), as a
 * full page load would put a screen-reader user at the top of the new content: the heading is
 * announced and Tab continues from there. A loading skeleton's heading (`data-skeleton`) is
 * skipped; the first render (a real page load) is left alone, and so are changes of the query
 * string alone (the Services table's filters).
 */
import { usePathname } from 'next/navigation';
import { useEffect, useRef } from 'react';

/** How long to wait for the new page's heading (a loading skeleton may come first). */
const WAIT_MS = 5_000;

export function RouteFocus() {
  const pathname = usePathname();
  const previous = useRef<string | null>(null);
  useEffect(() => {
    const first = previous.current === null;
    const changed = previous.current !== pathname;
    previous.current = pathname;
    if (first || !changed) return;
    const deadline = Date.now() + WAIT_MS;
    let frame = 0;
    const focusHeading = () => {
      const heading = document.querySelector<HTMLElement>('main h1:not([data-skeleton])');
      if (heading) {
        if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
        heading.focus({ preventScroll: true });
        return;
      }
      if (Date.now() < deadline) frame = requestAnimationFrame(focusHeading);
    };
    focusHeading();
    return () => cancelAnimationFrame(frame);
  }, [pathname]);
  return null;
}

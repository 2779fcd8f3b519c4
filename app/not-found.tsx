import type { Metadata } from 'next';
import Link from 'next/link';

import { LINK } from '@/components/ui/panel';
import { Callout } from '@/components/ui/status';

export const metadata: Metadata = { title: 'Page not found' };

export default function NotFound() {
  return (
    <div className="max-w-2xl space-y-4">
      <h1 className="text-2xl font-semibold tracking-tight">Page not found</h1>
      <Callout tone="warn" title="There is no page at this address.">
        <p>zonescope has three views: the Overview, the Services (with one page per Service) and the Dataplane.</p>
      </Callout>
      <ul className="flex flex-wrap gap-4">
        <li>
          <Link href="/" className={LINK}>
            Overview
          </Link>
        </li>
        <li>
          <Link href="/services" className={LINK}>
            Services
          </Link>
        </li>
        <li>
          <Link href="/dataplane" className={LINK}>
            Dataplane
          </Link>
        </li>
      </ul>
    </div>
  );
}

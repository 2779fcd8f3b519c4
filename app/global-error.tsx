'use client';

import Link from 'next/link';

/** Last-resort error page (an error in the root layout itself): its own document, system fonts, follows the OS theme. */
export default function GlobalError({ retry }: { error: unknown; retry: () => void }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', padding: '2rem', maxWidth: '40rem' }}>
        <h1>zonescope could not render this page</h1>
        <p>Something went wrong in the page frame. This is a bug in zonescope, not a problem with your cluster.</p>
        <button type="button" onClick={() => retry()}>
          Try again
        </button>{' '}
        <Link href="/">Overview</Link>
      </body>
    </html>
  );
}

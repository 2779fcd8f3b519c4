'use client';

import { ErrorView } from '@/components/layout/error-view';

export default function DataplaneError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorView error={error} retry={retry} what="The dataplane" />;
}

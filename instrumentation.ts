/**
 * Next.js start-up hook: begin syncing the cluster when the server boots, so the first page view
 * finds data (or a sync in progress) instead of starting the watches itself.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { getClusterSource } = await import('./lib/k8s/source');
  getClusterSource();
}

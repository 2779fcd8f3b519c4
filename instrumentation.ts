/**
 * Next.js start-up hook. Everything happens in the Node.js runtime (lib/server/start-up.ts: the
 * configuration check that stops a bad start, the method guard, the cluster sync); the import sits
 * inside the runtime check so the Edge build of this file never sees Node-only code.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startServer } = await import('./lib/server/start-up');
    startServer();
  }
}

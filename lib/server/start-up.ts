/**
 * What the Node.js server does once at start (instrumentation.ts calls it, in the Node.js runtime
 * only): check the configuration (a variable whose value cannot be used stops the server here,
 * before it serves anything, with a message naming it on stderr and exit code 2; see lib/config)
 * and read the auth proxy's secret file (lib/server/auth-proxy.ts; one that cannot be used stops
 * the start the same way), put the method guard in front of Next.js (TRACE, TRACK and other
 * unknown methods get 405, see lib/server/method-guard.ts), and begin syncing the cluster, so the
 * first page view finds data (or a sync in progress) instead of starting the watches itself.
 */
import 'server-only';
import { formatConfigErrors } from '../config/config';
import { processConfigResult } from '../config/process-config';
import { startAnalysis } from './analysis';
import { authProxyStartProblem } from './auth-proxy';
import { installMethodGuard } from './method-guard';

export function startServer(): void {
  const config = processConfigResult();
  for (const warning of config.warnings) console.warn(`[zonescope] ${warning}`);
  if (!config.ok) {
    console.error(formatConfigErrors(config.errors));
    process.exit(2);
  }
  // The auth proxy's secret is read once, now: a file that cannot be used stops the start too.
  const secretProblem = authProxyStartProblem(config.config);
  if (secretProblem !== null) {
    console.error(formatConfigErrors([{ variable: 'ZONESCOPE_AUTH_PROXY_SECRET_FILE', message: secretProblem }]));
    process.exit(2);
  }
  installMethodGuard();
  // The source and its analysis scheduler: the first analysis pass runs as soon as the sync completes.
  startAnalysis();
}

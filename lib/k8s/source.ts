/**
 * The process-wide cluster source: ONE {@link ClusterSource} (one set of watches) per server
 * process, whatever the number of routes, requests or browsers. Stored on `globalThis` so Next.js
 * dev reloads reuse it instead of leaking watches.
 *
 * Server-only: pages and route handlers import this; scripts run outside Next use
 * `createClusterSource` from `./cluster-source` directly.
 */
import 'server-only';
import type { ClusterSource } from './cluster-source';
import { createClusterSource } from './cluster-source';

const KEY = Symbol.for('zonescope.clusterSource');

type Holder = { [KEY]?: ClusterSource };

function holder(): Holder {
  return globalThis as unknown as Holder;
}

/**
 * The cluster source chosen from the environment (see `createClusterSource`), created and
 * started on first use.
 */
export function getClusterSource(): ClusterSource {
  const h = holder();
  let state = h[KEY];
  if (state === undefined) {
    state = createClusterSource(process.env, {
      live: {
        log: (event) => {
          const line = `[zonescope] ${event.resource}: ${event.message}`;
          if (event.level === 'warn') console.warn(line);
        },
      },
    });
    h[KEY] = state;
    state.start();
  }
  return state;
}

/** Stops and forgets the source (tests; a changed environment). */
export async function resetClusterSource(): Promise<void> {
  const h = holder();
  const state = h[KEY];
  h[KEY] = undefined;
  await state?.stop();
}

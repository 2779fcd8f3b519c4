/**
 * An answer that leaves a write's outcome unknown (a timeout, a connection lost after sending, an
 * ambiguous 5xx) is never a success: the Service is re-read, and what the re-read shows decides
 * the outcome (`applied`, `not-applied`, still `unknown`) and the sentence the user reads.
 */
import 'server-only';

import type { ClusterSource } from '../../k8s/cluster-source';
import type { KubeError } from '../../k8s/errors';
import type { UnknownOutcomeCause } from '../../k8s/mutations';
import { readServiceAnnotations } from '../../k8s/mutations';
import { annotationsOfCurrent, describeTopologyAnnotations } from './annotations';
import { writeTimeoutMs } from './settings';
import type { TopologyModeCurrent, TopologyModeWriteOutcome } from './types';

/** The Service's topology annotations as the API server has them now (`null` when it cannot be read). */
export async function reRead(state: ClusterSource, namespace: string, name: string, minor: number): Promise<TopologyModeCurrent | null> {
  if (state.connection === null) return null;
  const read = await readServiceAnnotations(state.connection, namespace, name, { timeoutMs: writeTimeoutMs() });
  return read.ok ? describeTopologyAnnotations(read.annotations, read.resourceVersion, minor) : null;
}

/** What a re-read shows of a write whose answer was lost: the Service carries what it set and lacks what it removed. */
export function writeOutcome(current: TopologyModeCurrent | null, ifMatch: string, set: Readonly<Record<string, string>>, remove: readonly string[]): TopologyModeWriteOutcome {
  if (current === null) return 'unknown';
  const annotations = annotationsOfCurrent(current);
  const carries = Object.entries(set).every(([key, value]) => annotations[key] === value) && remove.every((key) => !Object.prototype.hasOwnProperty.call(annotations, key));
  // Unchanged at If-Match and not already as requested: the write did not land (it would have bumped the resourceVersion).
  return carries ? 'applied' : 'not-applied';
}

const CAUSE_TEXT: Readonly<Record<UnknownOutcomeCause, string>> = {
  timeout: 'The write timed out',
  'connection-lost': 'The connection to the API server was lost after the write was sent',
  'server-error': 'The API server answered with an error that does not say whether the write was stored',
};

/** What the user reads of an unknown outcome: why the answer did not say, and what the re-read shows (`wanted`: `key: value` set, or `no topology annotation`). */
export function unknownOutcomeMessage(cause: UnknownOutcomeCause, error: KubeError, outcome: TopologyModeWriteOutcome, current: TopologyModeCurrent | null, ifMatch: string, wanted: string): string {
  const status = error.status !== undefined ? ` (HTTP ${error.status}: ${error.message})` : '';
  const head = `${CAUSE_TEXT[cause]}${status}, so its outcome is unknown from the answer alone.`;
  if (outcome === 'unknown' || current === null) return `${head} The Service could not be re-read either: the outcome is unknown. Re-read before trying again.`;
  if (outcome === 'applied') return `${head} A re-read shows the write was applied: ${wanted} (resourceVersion ${current.resourceVersion}).`;
  if (current.resourceVersion === ifMatch) return `${head} A re-read shows the write was not applied: the Service is unchanged (resourceVersion ${ifMatch}); the same write can be retried.`;
  return `${head} A re-read shows the write was not applied: the Service has changed since (resourceVersion ${current.resourceVersion}) and does not carry ${wanted}. Check its current value before trying again.`;
}

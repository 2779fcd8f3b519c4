/**
 * When the topology-mode toggle re-reads its state (`GET …/topology-mode`), and what it says when
 * the prediction changed: the pure rules behind components/topology-mode/toggle.tsx.
 *
 * The toggle reads its state once on mount; the page follows the cluster (router.refresh(), see
 * lib/shared/live-refresh.ts) and hands the toggle a key of the data it was rendered from (the
 * Service's resourceVersion and its analysis version). When the key moved since the toggle's last
 * read, it reads again — but only in a phase where nothing the user is looking at or waiting for
 * can change under them: not while a confirmation is open (what is confirmed must stay what was
 * reviewed), nor while a write is in flight or being followed (those read again when they end).
 *
 * No DOM, no React: unit-tested in topology-mode-sync.test.ts.
 */
import type { TopologyModePrediction } from '@/lib/views/topology-mode/types';

/** The toggle's phases, as far as these rules need them. */
export type TogglePhaseKind = 'idle' | 'confirm' | 'writing' | 'following' | 'done' | 'conflict' | 'unknown' | 'error';

/** The key of the page data the toggle should match: changes when the Service or its analysis changed. */
export function toggleDataKey(resourceVersion: string, analysisVersion: number | string): string {
  return `${resourceVersion}/${analysisVersion}`;
}

/**
 * Whether a phase lets a page-driven re-read run: it only replaces the state (annotations,
 * permission, prediction), never the phase, so outcome messages (done, conflict, unknown, error)
 * stay; the confirm step and a write in flight or being followed wait.
 */
export function refetchAllowed(phase: TogglePhaseKind): boolean {
  return phase !== 'confirm' && phase !== 'writing' && phase !== 'following';
}

/**
 * Whether to re-read now: the page's key differs from the one the last read was started for
 * (`null`: none yet, or it was given up), and the phase allows it.
 */
export function shouldRefetch(input: { readonly pageKey: string; readonly readKey: string | null; readonly phase: TogglePhaseKind }): boolean {
  return input.readKey !== input.pageKey && refetchAllowed(input.phase);
}

type Sentences = Pick<TopologyModePrediction, 'enable' | 'disable'>;

/**
 * What a polite live region says after a re-read: `null` when there was no earlier prediction
 * (the first read) or neither sentence changed, else the sentences that changed.
 */
export function predictionAnnouncement(before: Sentences | null, after: Sentences): string | null {
  if (before === null) return null;
  const parts: string[] = [];
  if (before.enable.text !== after.enable.text) parts.push(`Enabling: ${after.enable.text}.`);
  if (before.disable.text !== after.disable.text) parts.push(`Disabling: ${after.disable.text}.`);
  return parts.length === 0 ? null : `Topology-mode prediction updated for the cluster's current state. ${parts.join(' ')}`;
}

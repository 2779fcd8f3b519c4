import { describe, expect, it } from 'vitest';
import type { TogglePhaseKind } from './sync';
import { predictionAnnouncement, refetchAllowed, shouldRefetch, toggleDataKey } from './sync';

const PHASES: readonly TogglePhaseKind[] = ['idle', 'confirm', 'writing', 'following', 'done', 'conflict', 'unknown', 'error'];

function sentences(enable: string, disable: string) {
  return { enable: { text: enable }, disable: { text: disable } } as Parameters<typeof predictionAnnouncement>[1];
}

describe('toggle data key', () => {
  it('changes with the resourceVersion and with the analysis version', () => {
    expect(toggleDataKey('41', 7)).toBe('41/7');
    expect(toggleDataKey('41', 8)).not.toBe(toggleDataKey('41', 7));
    expect(toggleDataKey('42', 7)).not.toBe(toggleDataKey('41', 7));
  });
});

describe('when the toggle re-reads its state', () => {
  it('waits in the confirm step and while a write is in flight or followed; re-reads in every other phase', () => {
    expect(PHASES.filter((p) => !refetchAllowed(p))).toEqual(['confirm', 'writing', 'following']);
  });

  it('re-reads when the page key moved past the last read, once', () => {
    expect(shouldRefetch({ pageKey: '41/7', readKey: null, phase: 'idle' })).toBe(true);
    expect(shouldRefetch({ pageKey: '41/8', readKey: '41/7', phase: 'idle' })).toBe(true);
    expect(shouldRefetch({ pageKey: '41/8', readKey: '41/8', phase: 'idle' })).toBe(false);
  });

  it('keeps an outcome on screen while re-reading (done, conflict, unknown, error), and holds in confirm, writing and following', () => {
    for (const phase of ['done', 'conflict', 'unknown', 'error'] as const) expect(shouldRefetch({ pageKey: '42/9', readKey: '41/7', phase })).toBe(true);
    for (const phase of ['confirm', 'writing', 'following'] as const) expect(shouldRefetch({ pageKey: '42/9', readKey: '41/7', phase })).toBe(false);
  });
});

describe('prediction announcement', () => {
  const before = sentences('hints off, cross-zone 61.1 % → hints on, 0.0 %', 'hints off, cross-zone 61.1 % → hints off, 61.1 %');

  it('says nothing on the first read or when neither sentence changed', () => {
    expect(predictionAnnouncement(null, before)).toBeNull();
    expect(predictionAnnouncement(before, sentences(before.enable.text, before.disable.text))).toBeNull();
  });

  it('says the sentences that changed', () => {
    const after = sentences('hints off, cross-zone 66.7 % → hints on, 0.0 %', 'hints off, cross-zone 66.7 % → hints off, 66.7 %');
    expect(predictionAnnouncement(before, after)).toBe(
      "Topology-mode prediction updated for the cluster's current state. Enabling: hints off, cross-zone 66.7 % → hints on, 0.0 %. Disabling: hints off, cross-zone 66.7 % → hints off, 66.7 %.",
    );
    expect(predictionAnnouncement(before, sentences(after.enable.text, before.disable.text))).toBe(
      "Topology-mode prediction updated for the cluster's current state. Enabling: hints off, cross-zone 66.7 % → hints on, 0.0 %.",
    );
  });
});

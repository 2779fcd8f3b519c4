/**
 * The verdict under the Overview's hint counts: every Service of a real analysis (eks-demo, from
 * its fixture) either in sync or in exactly one group, and Services taken out of sync the three
 * ways the controller would act on them.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import { analyseFixture } from '@/lib/views/fleet/fleet-test-support';
import type { ClusterAnalysis } from '@/lib/topology/report/analysis-schema';
import type { SyncService } from './hints-sync';
import { hintsSync, hintsSyncSentence } from './hints-sync';

let demo: ClusterAnalysis;

beforeAll(async () => {
  demo = await analyseFixture('eks-demo');
});

/** A Service of eks-demo the controller manages whose slices carry the hints it would write. */
function inSyncService(hintsOn: boolean): SyncService {
  const found = demo.services.find((s) => s.expected.applicable && s.diff.inSync && s.expected.hintsEnabled === hintsOn && s.unknown.expectedHints === undefined);
  if (found === undefined) throw new Error(`eks-demo has no Service in sync with hints ${hintsOn ? 'on' : 'off'}`);
  return found;
}

function renamed(service: SyncService, name: string, change: { hintsExpected?: boolean; hintsPresent?: boolean; attention?: SyncService['needsAttention'] }): SyncService {
  return {
    ...service,
    name,
    expected: { ...service.expected, hintsEnabled: change.hintsExpected ?? service.expected.hintsEnabled },
    observed: { ...service.observed, hintsPresent: change.hintsPresent ?? service.observed.hintsPresent },
    diff: { ...service.diff, inSync: false },
    needsAttention: change.attention === undefined ? service.needsAttention : change.attention,
  };
}

const OUT_OF_SYNC = { reason: 'out-of-sync', message: 'The slices differ from what the controller would write: 3 missing hint(s).' } as const;

describe('hintsSync', () => {
  it('puts every Service of a real cluster in sync or in one group, as its slices and expected hints say', () => {
    const sync = hintsSync(demo.services);
    const grouped = [...sync.waiting, ...sync.removing, ...sync.rewriting];
    expect(new Set(grouped).size).toBe(grouped.length);
    for (const s of demo.services) {
      const key = `${s.namespace}/${s.name}`;
      const outOfSync = s.expected.applicable && s.unknown.expectedHints === undefined && !s.diff.inSync;
      expect(grouped.includes(key), key).toBe(outOfSync);
    }
  });

  it('tells Services waiting for hints from those whose hints the controller would remove or rewrite', () => {
    const on = inSyncService(true);
    const off = inSyncService(false);
    const services = [
      renamed(on, 'waits', { hintsPresent: false, attention: OUT_OF_SYNC }),
      renamed(off, 'cleared', { hintsPresent: true, attention: OUT_OF_SYNC }),
      renamed(on, 'stale', { attention: OUT_OF_SYNC }),
      on,
      off,
    ];
    const sync = hintsSync(services);
    expect(sync).toEqual({ waiting: [`${on.namespace}/waits`], removing: [`${off.namespace}/cleared`], rewriting: [`${on.namespace}/stale`], unknown: 0, tableFilterMatches: true });
    expect(hintsSyncSentence(sync)).toEqual({
      tone: 'warn',
      text: '1 Service waits for the controller to write hints; 1 Service has hints the controller would remove; 1 Service has hints the controller would rewrite.',
    });
  });

  it('links the Services table only when its "Out of sync" filter lists exactly these Services', () => {
    const on = inSyncService(true);
    const off = inSyncService(false);
    // Hints to be removed from a Service that asks for them: the table lists it under "Hints off" first.
    const hintsOff = { reason: 'hints-off', message: 'Hints off.' } as const;
    expect(hintsSync([renamed(on, 'waits', { hintsPresent: false, attention: OUT_OF_SYNC }), renamed(off, 'cleared', { hintsPresent: true, attention: hintsOff })]).tableFilterMatches).toBe(false);
    // Another Service listed as out of sync whose slices are not (its reason from another time): not exactly them either.
    expect(hintsSync([renamed(on, 'waits', { hintsPresent: false, attention: OUT_OF_SYNC }), { ...off, needsAttention: OUT_OF_SYNC }]).tableFilterMatches).toBe(false);
    expect(hintsSync([on, off]).tableFilterMatches).toBe(false);
  });

  it('leaves out Services whose expected hints are unknown, and says so', () => {
    const on = inSyncService(true);
    const unknown = { ...renamed(on, 'hidden', { hintsPresent: false }), unknown: { expectedHints: 'unknown: zonescope could not read Nodes (forbidden)' } };
    const sync = hintsSync([on, unknown]);
    expect(sync).toMatchObject({ waiting: [], removing: [], rewriting: [], unknown: 1 });
    expect(hintsSyncSentence(sync)).toEqual({ tone: 'info', text: 'In sync as far as zonescope can tell. Unknown for 1 Service: zonescope could not read what their hints depend on.' });
  });
});

describe('hintsSyncSentence', () => {
  it('says in sync when nothing differs', () => {
    expect(hintsSyncSentence({ waiting: [], removing: [], rewriting: [], unknown: 0, tableFilterMatches: false })).toEqual({ tone: 'ok', text: 'In sync: the slices carry the hints the controller would write.' });
  });

  it('counts several Services of a group, plural and all', () => {
    expect(hintsSyncSentence({ waiting: ['a/x', 'a/y', 'a/z'], removing: [], rewriting: [], unknown: 0, tableFilterMatches: false }).text).toBe('3 Services wait for the controller to write hints.');
    expect(hintsSyncSentence({ waiting: [], removing: ['a/x', 'a/y'], rewriting: [], unknown: 2, tableFilterMatches: false }).text).toBe(
      '2 Services have hints the controller would remove. Unknown for 2 Services: zonescope could not read what their hints depend on.',
    );
  });
});

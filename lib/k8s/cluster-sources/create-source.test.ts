/** Which source a configuration makes (lib/k8s/cluster-sources/create-source.ts), and the setting it hands the informers. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../config/config';
import { createClusterSource } from './create-source';
import { LiveClusterSource } from './live-source';
import { SnapshotClusterSource } from './snapshot-source';
import { UnavailableClusterSource } from './unavailable-source';

const TESTDATA = path.join(__dirname, '..', 'testdata');
const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-state-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('createClusterSource', () => {
  it('chooses a snapshot from ZONESCOPE_SNAPSHOT', () => {
    const state = createClusterSource(configFromEnv({ ZONESCOPE_SNAPSHOT: `${TESTDATA},${path.join(tmp, 'x')}`, KUBECONFIG: '/ignored' }));
    expect(state).toBeInstanceOf(SnapshotClusterSource);
    expect(state.snapshotPath).toBe(`${TESTDATA}, ${path.join(tmp, 'x')}`);
  });

  it('chooses live from KUBECONFIG and ZONESCOPE_CONTEXT', () => {
    const file = path.join(tmp, 'kubeconfig');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [
          { name: 'a', context: { cluster: 'c', user: 'u' } },
          { name: 'b', context: { cluster: 'c', user: 'u' } },
        ],
        'current-context': 'a',
      }),
    );
    const state = createClusterSource(configFromEnv({ KUBECONFIG: file, ZONESCOPE_CONTEXT: 'b', HOME: tmp }));
    expect(state).toBeInstanceOf(LiveClusterSource);
    expect(state.contextName).toBe('b');
    expect(state.serverUrl).toBe('https://10.0.0.1:6443');
    expect(state.isSynced()).toBe(false);

    const missing = createClusterSource(configFromEnv({ KUBECONFIG: file, ZONESCOPE_CONTEXT: 'zzz', HOME: tmp }));
    expect(missing).toBeInstanceOf(UnavailableClusterSource);
    expect(missing.problems()[0]).toMatch(/Context "zzz" is not in the kubeconfig/);
    expect(missing.status('pods')).toMatchObject({ health: 'stale', error: { kind: 'unavailable' } });
  });

  it('is unavailable, saying why, when nothing is configured', () => {
    const state = createClusterSource(configFromEnv({ HOME: tmp }));
    expect(state).toBeInstanceOf(UnavailableClusterSource);
    expect(state.problems()[0]).toMatch(/No cluster configured/);
    expect(state.snapshot().nodes).toEqual([]);
  });
});

describe('ZONESCOPE_LIST_PAGES_AHEAD', () => {
  it('turns asking for pages ahead on or off, leaves the default when unset, and refuses anything else', () => {
    for (const on of ['1', 'true', 'ON', ' yes ']) expect(configFromEnv({ ZONESCOPE_LIST_PAGES_AHEAD: on }).ZONESCOPE_LIST_PAGES_AHEAD, on).toBe(true);
    for (const off of ['0', 'false', 'Off', 'no']) expect(configFromEnv({ ZONESCOPE_LIST_PAGES_AHEAD: off }).ZONESCOPE_LIST_PAGES_AHEAD, off).toBe(false);
    for (const unset of [undefined, '', '  ']) expect(configFromEnv({ ZONESCOPE_LIST_PAGES_AHEAD: unset }).ZONESCOPE_LIST_PAGES_AHEAD, String(unset)).toBeUndefined();
    for (const other of ['maybe', '2']) expect(() => configFromEnv({ ZONESCOPE_LIST_PAGES_AHEAD: other }), other).toThrow(`ZONESCOPE_LIST_PAGES_AHEAD must be on (1, true, yes, on) or off (0, false, no, off), in any case, not "${other}".`);
  });
});

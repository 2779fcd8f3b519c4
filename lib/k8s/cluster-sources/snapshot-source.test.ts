/** The snapshot source (lib/k8s/cluster-sources/snapshot-source.ts): loading, reloading, a snapshot given directly. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../topology/model/cluster-model';
import { snapshotFromText } from '../snapshot/from-text';
import { SnapshotClusterSource } from './snapshot-source';

const TESTDATA = path.join(__dirname, '..', 'testdata');
const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-state-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function dumpSnapshot(): ClusterSnapshot {
  const result = snapshotFromText(readFileSync(path.join(TESTDATA, 'kubectl-dump.yaml'), 'utf8'), 'dump.yaml');
  if (!result.ok) throw new Error('bad testdata');
  return result.snapshot;
}

describe('SnapshotClusterSource', () => {
  it('loads a folder on start and reports every type synced', async () => {
    const state = new SnapshotClusterSource(TESTDATA);
    expect(state.isSynced()).toBe(false);
    expect(state.status('nodes').health).toBe('syncing');
    state.start();
    expect(await state.waitForSync(5000)).toBe(true);
    expect(state.mode).toBe('snapshot');
    expect(state.snapshotPath).toBe(TESTDATA);
    expect(state.connection).toBeNull();
    expect(state.serverVersion()?.gitVersion).toBe('v1.30.2-eks-db838b0');
    expect(state.status('nodes')).toMatchObject({ health: 'synced', count: 2 });
    expect(state.statuses()).toHaveLength(10);
    expect(state.problems()).toEqual([]);
    expect(state.generation).toBe(1);
    const snapshot = state.snapshot();
    expect(state.snapshot()).toBe(snapshot);
    expect(state.index()).toBe(state.index());
    expect(state.index().servicesByKey.has('shop/checkout')).toBe(true);
    expect(state.loadSummary()?.records.services).toBe(2);
    await state.stop();
  });

  it('keeps the last good snapshot and reports problems when a reload fails', async () => {
    const file = path.join(tmp, 'snap.yaml');
    writeFileSync(file, stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
    const state = new SnapshotClusterSource(file);
    const changes: boolean[] = [];
    state.onChange((change) => changes.push(change.dataChanged));
    expect((await state.reload()).ok).toBe(true);
    writeFileSync(file, 'kind: Node\nmetadata: [');
    expect((await state.reload()).ok).toBe(false);
    expect(state.snapshot().nodes.map((n) => n.name)).toEqual(['n1']);
    expect(state.problems()[0]).toMatch(/snap\.yaml, document 1 \(line \d+, column \d+\): YAML syntax error/);
    expect(state.status('nodes')).toMatchObject({ health: 'stale', error: { kind: 'invalid' } });
    // Listeners hear of changes on a later macrotask.
    await expect.poll(() => changes.length, { message: 'a change notification' }).toBeGreaterThan(0);
  });

  it('serves a snapshot given directly', () => {
    const state = new SnapshotClusterSource({ snapshot: dumpSnapshot(), label: 'test' });
    expect(state.isSynced()).toBe(true);
    expect(state.snapshotPath).toBe('test');
    expect(state.snapshot().services).toHaveLength(2);
  });
});

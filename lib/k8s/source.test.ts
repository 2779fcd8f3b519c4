/** The process-wide source of the dashboard server (lib/k8s/source.ts). */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getClusterSource, resetClusterSource } from './source';

const TESTDATA = path.join(__dirname, 'testdata');

describe('getClusterSource', () => {
  const saved = process.env.ZONESCOPE_SNAPSHOT;
  afterEach(async () => {
    await resetClusterSource();
    if (saved === undefined) delete process.env.ZONESCOPE_SNAPSHOT;
    else process.env.ZONESCOPE_SNAPSHOT = saved;
  });

  it('creates one started source per process and returns it to every caller', async () => {
    process.env.ZONESCOPE_SNAPSHOT = TESTDATA;
    const a = getClusterSource();
    const b = getClusterSource();
    expect(a).toBe(b);
    expect(await a.waitForSync(5000)).toBe(true);
    expect(a.snapshot().nodes).toHaveLength(2);
    await resetClusterSource();
    expect(getClusterSource()).not.toBe(a);
  });
});

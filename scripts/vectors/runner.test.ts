import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { vectorChecks } from './registry';
import { findVectorFiles, runVectorFiles } from './runner';

function folderWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'zonescope-vectors-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

const envelope = (vectors: unknown[]) => ({ schema: 'k8s-topology-vectors/1', category: 'x', vectors });
const hintsVector = (id: string, range: string, annotations: Record<string, string>, enabled: boolean) => ({
  id,
  category: 'controller.hintsEnabled',
  kubernetesVersion: range,
  input: { annotations },
  expected: { enabled },
});

describe('vector runner', () => {
  it('passes a vector only if it holds at every release of its range', () => {
    const dir = folderWith({
      'a.json': envelope([
        hintsVector('ok', '>=1.27', { 'service.kubernetes.io/topology-mode': 'Auto' }, true),
        // topology-mode is unknown before 1.27, so this fails at 1.26 only.
        hintsVector('bad', '1.26-1.27', { 'service.kubernetes.io/topology-mode': 'Auto' }, true),
      ]),
    });
    const result = runVectorFiles(findVectorFiles([dir]).files, vectorChecks);
    expect(result.passed).toBe(1);
    expect(result.failed).toBe(1);
    expect(result.failures[0]).toMatch(/^FAIL bad @1\.26: enabled: expected true, got false/);
  });

  it('reports unknown categories and unreadable files as errors, never skipping them', () => {
    const dir = folderWith({
      'broken.json': '{ not json',
      'unknown.json': envelope([{ id: 'u', category: 'controller.nope', kubernetesVersion: '1.30', input: {}, expected: {} }]),
    });
    const result = runVectorFiles(findVectorFiles([dir]).files, vectorChecks);
    expect(result.errors.some((line) => line.includes('broken.json') && line.includes('cannot read or parse'))).toBe(true);
    expect(result.errors.some((line) => line.includes('unknown category "controller.nope"'))).toBe(true);
    expect(result.failed).toBe(1);
  });

  it('fails a vector whose release range cannot be read', () => {
    const dir = folderWith({ 'a.json': envelope([hintsVector('r', 'someday', {}, false)]) });
    expect(runVectorFiles(findVectorFiles([dir]).files, vectorChecks).failures[0]).toMatch(/unreadable kubernetesVersion/);
  });
});

/**
 * The repository carries its own copy of the upstream reference (test vectors in `test/vectors/`,
 * the semantics in `docs/topology-semantics.md`), so a plain clone tests itself. Where the
 * project's shared folder sits beside the checkout (`../shared/reference`, as on the
 * developers' machines and in CI), the copies must be identical to it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const SHARED = path.resolve(ROOT, '..', 'shared', 'reference');
const VECTORS = path.join(ROOT, 'test', 'vectors');
const hasShared = existsSync(SHARED);

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.json')).sort();
}

describe('the in-repo reference', () => {
  it('has the vectors and the semantics document a plain clone needs', () => {
    expect(jsonFiles(VECTORS).length).toBeGreaterThan(0);
    expect(readFileSync(path.join(ROOT, 'docs', 'topology-semantics.md'), 'utf8')).toMatch(/^#/);
  });

  it.skipIf(!hasShared)('is identical to ../shared/reference (vectors and topology-semantics.md)', () => {
    expect(jsonFiles(VECTORS)).toEqual(jsonFiles(path.join(SHARED, 'vectors')));
    for (const name of jsonFiles(VECTORS)) {
      expect(readFileSync(path.join(VECTORS, name), 'utf8'), `test/vectors/${name}`).toBe(readFileSync(path.join(SHARED, 'vectors', name), 'utf8'));
    }
    expect(readFileSync(path.join(ROOT, 'docs', 'topology-semantics.md'), 'utf8')).toBe(readFileSync(path.join(SHARED, 'topology-semantics.md'), 'utf8'));
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { expandReleaseRange, formatKubeMinor, resolveFeatureGates } from '../../lib/topology/upstream/version';
import type { Vector, VectorCheck } from './types';

/** The vector file envelope (topology-semantics.md §1). */
interface VectorFile {
  schema: string;
  category: string;
  vectors: Vector[];
}

export const VECTOR_SCHEMA = 'k8s-topology-vectors/1';

/** Outcome of running vector files: counts, and one line per failure or file problem. */
export interface RunResult {
  passed: number;
  failed: number;
  /** Problems that are not a single vector's failure: unreadable files, unknown categories. */
  errors: string[];
  /** One line per failing vector. */
  failures: string[];
}

/** Every `*.json` file under the given paths (a path may also be a file), sorted. */
export function findVectorFiles(paths: readonly string[]): { files: string[]; errors: string[] } {
  const files: string[] = [];
  const errors: string[] = [];
  const walk = (path: string) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      errors.push(`${path}: no such file or folder`);
      return;
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort()) {
        const child = join(path, entry);
        if (statSync(child).isDirectory() || entry.endsWith('.json')) walk(child);
      }
    } else {
      files.push(path);
    }
  };
  for (const path of paths) walk(path);
  return { files, errors };
}

/**
 * Runs every vector of every file against `checks` (category → checker). A vector passes only
 * if it holds at every release its `kubernetesVersion` range names, with its `featureGates`
 * applied over that release's defaults.
 */
export function runVectorFiles(files: readonly string[], checks: Readonly<Record<string, VectorCheck>>): RunResult {
  const result: RunResult = { passed: 0, failed: 0, errors: [], failures: [] };
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      result.errors.push(`${file}: cannot read or parse: ${(error as Error).message}`);
      continue;
    }
    const envelope = parsed as Partial<VectorFile>;
    if (envelope?.schema !== VECTOR_SCHEMA || !Array.isArray(envelope.vectors)) {
      result.errors.push(`${file}: not a vector file (schema must be "${VECTOR_SCHEMA}" with a vectors array)`);
      continue;
    }
    for (const vector of envelope.vectors) {
      const failure = runVector(vector, checks);
      if (failure === 'unknown-category') {
        result.errors.push(`${file}: ${vector?.id ?? '(no id)'}: unknown category "${vector?.category}"`);
        result.failed++;
      } else if (failure) {
        result.failures.push(failure);
        result.failed++;
      } else {
        result.passed++;
      }
    }
  }
  return result;
}

/** Runs one vector; returns `null` when it passes, else the failure line. */
function runVector(vector: Vector, checks: Readonly<Record<string, VectorCheck>>): string | null | 'unknown-category' {
  const id = typeof vector?.id === 'string' ? vector.id : '(vector without id)';
  const check = checks[vector?.category];
  if (!check) return 'unknown-category';
  const minors = typeof vector.kubernetesVersion === 'string' ? expandReleaseRange(vector.kubernetesVersion) : null;
  if (!minors) return `FAIL ${id}: unreadable kubernetesVersion ${JSON.stringify(vector.kubernetesVersion)}`;
  for (const minor of minors) {
    const gates = resolveFeatureGates(minor, vector.featureGates ?? {});
    let diffs: string[];
    try {
      diffs = check(vector, { minor, gates });
    } catch (error) {
      diffs = [`error: ${(error as Error).message}`];
    }
    if (diffs.length > 0) return `FAIL ${id} @${formatKubeMinor(minor)}: ${diffs.join('; ')}`;
  }
  return null;
}

import type { FeatureGates, KubeMinor } from '../../lib/topology/upstream/version';

/** One test vector as stored in `reference/vectors/*.json` (see topology-semantics.md §1). */
export interface Vector {
  id: string;
  category: string;
  kubernetesVersion: string;
  featureGates?: Record<string, boolean>;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
  [key: string]: unknown;
}

/** The release a vector is checked at, with its resolved feature gates. */
export interface CheckContext {
  minor: KubeMinor;
  gates: FeatureGates;
}

/**
 * Checks one vector at one release. Returns the differences found, each a short
 * human-readable line (`"clusterEndpoints: expected [a] got [a,b]"`); empty means it holds.
 * May throw for malformed vector input; the runner reports that as a failure.
 */
export type VectorCheck = (vector: Vector, context: CheckContext) => string[];

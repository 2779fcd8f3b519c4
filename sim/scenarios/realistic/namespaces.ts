/**
 * The realistic cluster's namespaces: application namespaces named after teams, with a long tail
 * of team sizes (weights 1/√k), and the Namespace objects — the four every cluster has, then the
 * applications' (Helm-managed, labelled with their team).
 */
import type { KubeObject } from '../../types';
import { CLUSTER_CREATED, WORDS_A, WORDS_B } from './catalogue';
import type { Dice } from './dice';

/** The application namespaces and their weights (a long tail). */
export interface NamespaceLayout {
  readonly names: readonly string[];
  readonly weights: readonly number[];
  readonly weightSum: number;
}

/** `count` application namespaces. */
export function layoutNamespaces(count: number): NamespaceLayout {
  const namespaceNames: string[] = [];
  for (let n = 0; n < count; n++) {
    const base = `${WORDS_A[n % WORDS_A.length]}${n >= WORDS_A.length ? `-${WORDS_B[Math.floor(n / WORDS_A.length) % WORDS_B.length]}` : ''}`;
    namespaceNames.push(n >= WORDS_A.length * WORDS_B.length ? `${base}-${n}` : base);
  }
  const namespaceWeights = namespaceNames.map((_, i) => 1 / Math.sqrt(i + 1));
  const namespaceWeightSum = namespaceWeights.reduce((a, b) => a + b, 0);
  return { names: namespaceNames, weights: namespaceWeights, weightSum: namespaceWeightSum };
}

/** The Namespace objects: the four every cluster has, then `names`. */
export function namespaceObjects(names: readonly string[], dice: Dice): KubeObject[] {
  const { int, past, uid } = dice;
  const namespaces: KubeObject[] = [];
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease', ...names]) {
    const labels: Record<string, string> = { 'kubernetes.io/metadata.name': name };
    if (!name.startsWith('kube') && name !== 'default') Object.assign(labels, { 'app.kubernetes.io/managed-by': 'Helm', 'team': name.split('-')[0] ?? name });
    namespaces.push({
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name, uid: uid(), resourceVersion: String(int(1000, 99_999)), creationTimestamp: name.startsWith('kube') || name === 'default' ? CLUSTER_CREATED : past(400), labels, managedFields: [{ manager: 'helm', operation: 'Update', apiVersion: 'v1', time: past(400), fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } } }] },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }
  return namespaces;
}

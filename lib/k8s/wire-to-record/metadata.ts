/**
 * What every projection reads of an object's metadata and selectors: namespace and name, the
 * controller owner reference, and `metav1.LabelSelector`.
 */
import type { LabelSelector } from '../../topology/model/cluster-model';
import { internRecord } from '../intern';
import type { Json } from './json';
import { arr, isJsonObject, obj, str, stringMap } from './json';

/** `metadata.namespace` and `metadata.name` of an object (`''` when absent). */
export function objectMeta(raw: unknown): { readonly namespace: string; readonly name: string } {
  const metadata = obj(obj(raw).metadata);
  return { namespace: str(metadata.namespace) ?? '', name: str(metadata.name) ?? '' };
}

/** The controller owner reference (`ownerReferences[controller=true]`), `null` when there is none. */
export function controllerOwner(metadata: Json): { readonly kind: string; readonly name: string } | null {
  for (const ref of arr(metadata.ownerReferences).map(obj)) {
    if (ref.controller !== true) continue;
    const kind = str(ref.kind);
    const name = str(ref.name);
    if (kind !== null && name !== null) return internRecord({ kind, name });
  }
  return null;
}

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

/**
 * `metav1.LabelSelector` → {@link LabelSelector}; `null` when `raw` is not an object.
 * Expressions with an unknown operator or no key are dropped (the API server rejects them anyway).
 */
export function labelSelector(raw: unknown): LabelSelector | null {
  if (!isJsonObject(raw)) return null;
  const matchExpressions: { key: string; operator: SelectorOperator; values: string[] }[] = [];
  for (const expression of arr(raw.matchExpressions).map(obj)) {
    const key = str(expression.key);
    const operator = SELECTOR_OPERATORS.find((op) => op === expression.operator);
    if (key === null || operator === undefined) continue;
    matchExpressions.push({ key, operator, values: arr(expression.values).map(str).filter((v): v is string => v !== null) });
  }
  return { matchLabels: stringMap(raw.matchLabels), matchExpressions };
}

/**
 * Stable JSON for comparisons: the simulated controllers compare slices, ports and pod templates
 * by their JSON with object keys sorted.
 */
import { isJsonObject } from '../../lib/k8s/wire-to-record/json';

/** JSON with object keys sorted, so equal objects give equal text whatever their key order. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isJsonObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(',')}}`;
  return JSON.stringify(value);
}

/**
 * The schema table as one index: every definition by name, the definition of a kind by its
 * apiVersion and kind, and the field type of a kind's top level for the walkers of
 * sim/managed-fields/ and the strict field validation.
 */
import { CORE_DEFINITIONS } from './definitions-core';
import { GROUP_DEFINITIONS } from './definitions-groups';
import { META_DEFINITIONS } from './definitions-meta';
import { POD_DEFINITIONS } from './definitions-pod';
import type { Definition, FieldType } from './schema';

/** Every definition, in table order. */
export const DEFINITIONS: readonly Definition[] = [...META_DEFINITIONS, ...CORE_DEFINITIONS, ...POD_DEFINITIONS, ...GROUP_DEFINITIONS];

const BY_NAME: ReadonlyMap<string, Definition> = new Map(DEFINITIONS.map((d) => [d.name, d]));

/**
 * The definition of a name.
 * @throws Error for a name the table does not hold (a mistake in the table).
 */
export function definition(name: string): Definition {
  const found = BY_NAME.get(name);
  if (found === undefined) throw new Error(`sim/openapi: no definition named ${name}`);
  return found;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The definition of a top-level kind (`undefined` when the table has none). */
export function definitionForKind(apiVersion: string, kind: string): Definition | undefined {
  const { group, version } = splitApiVersion(apiVersion);
  return DEFINITIONS.find((d) => d.gvk?.some((g) => g.group === group && g.version === version && g.kind === kind));
}

/** The field type of a kind's object (a reference to its definition), or `undefined`. */
export function kindType(apiVersion: string, kind: string): FieldType | undefined {
  const def = definitionForKind(apiVersion, kind);
  return def === undefined ? undefined : { kind: 'ref', name: def.name };
}

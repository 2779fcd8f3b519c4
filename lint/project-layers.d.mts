// Types of the helpers lint/project-layers.mjs exports for its tests.
import type { ESLint } from 'eslint';

/** The run-time import specifiers of a source text. */
export function runtimeImports(text: string): string[];
/** The project's run-time import graph: module (repo-relative, with extension) → the modules it imports. */
export function importGraph(): Map<string, string[]>;
/** For each module on a cycle, one cycle through it (first and last element the module). */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]>;
/** The project's layer order of lib/, lowest first. */
export const LIB_LAYERS: readonly string[];

declare const plugin: ESLint.Plugin;
export default plugin;

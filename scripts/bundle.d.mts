/** Types of scripts/bundle.mjs, for the TypeScript that imports it (scripts/pack/build.ts). */

/** Bundles `entry` (a TypeScript file, relative to the project) with its dependencies into `outfile`, an ES module for Node 20+. */
export declare function bundleEntry(entry: string, outfile: string, options?: { readonly sourcemap?: boolean | 'inline'; readonly logLevel?: 'silent' | 'warning' }): Promise<void>;

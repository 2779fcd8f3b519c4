/** Types of scripts/bundle.mjs, for the TypeScript that imports it (scripts/pack/build.ts). */

/** Bundles `entry` (a TypeScript file, relative to the project) with its dependencies into `outfile`, an ES module for Node 20+. */
export declare function bundleEntry(entry: string, outfile: string, options?: { readonly sourcemap?: boolean | 'inline'; readonly logLevel?: 'silent' | 'warning' }): Promise<string[]>;

/** The project folder (where package.json is). */
export declare const PROJECT_ROOT: string;

/** `entry` bundled as {@link bundleEntry} does, cached in `cacheDir` until a file it was built from changes. */
export declare function cachedBundle(entry: string, cacheDir: string, options?: { readonly sourcemap?: boolean | 'inline'; readonly logLevel?: 'silent' | 'warning' }): Promise<{ readonly file: string; readonly reused: boolean }>;

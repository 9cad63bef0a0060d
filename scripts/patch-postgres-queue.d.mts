// Types of patch-postgres-queue.mjs (plain JavaScript, so that npm's postinstall runs it under any Node).
export declare const MARKER: string;
export declare const REPLACEMENT: { esm: string; cjs: string };
/** Replaces the 3.4.9 queue files under `packageDir`; one line per file found, saying what was done. */
export declare function patchPostgresQueue(packageDir: string): string[];

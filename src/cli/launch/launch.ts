/**
 * What the launcher (bin/sign-cli.js) runs for every command line but `--version`: the
 * bundle's main.cjs, its chunks loaded with the code caches of code-cache.ts, which are
 * written when the process exits. Without a cache directory (no home, not private, or
 * NODE_DISABLE_COMPILE_CACHE set), and under --verbose, the chunks are required as before,
 * with Node's compile cache where Node has one. Built on its own into dist/cli/launch.cjs
 * (scripts/build/build.mjs), with the build's hash as SIGN_BUILD_ID.
 */
import { createRequire, Module } from 'node:module';
import { join } from 'node:path';
import { ChunkLoader } from './chunk-loader.js';
import { openCodeCache } from './open-cache.js';

export interface CliMain {
  /** Runs the command line and exits the process with its exit code. */
  runProcess(argv: string[]): Promise<never>;
}

/** main.cjs of the bundle in `dir`. */
export function loadCli(dir: string, argv: readonly string[], env: NodeJS.ProcessEnv): CliMain {
  const cache = openCodeCache(argv, env);
  if (!cache) {
    // Node 22.1+: its compile cache (in the OS temp dir); Node 20 has none.
    (Module as { enableCompileCache?: () => void }).enableCompileCache?.();
    return createRequire(join(dir, 'main.cjs'))('./main.cjs') as CliMain;
  }
  return new ChunkLoader(dir, cache).load('main.cjs') as CliMain;
}

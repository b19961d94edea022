/** The code caches of the running build (code-cache.ts), for the package's launcher and the single executable. */
import { cacheRoot, CodeCache, commandKey } from './code-cache.js';

/** The hash of the bundle's chunks, given by the build (scripts/build/build.mjs, scripts/build/build-exe.mjs). */
declare const SIGN_BUILD_ID: string;

/**
 * The user's home as os.homedir() gives it: $HOME where that is what it reads (all but Windows),
 * so that node:os (about 1 million instructions to load on Node 24) loads only without one.
 */
const homeOf = (env: NodeJS.ProcessEnv) => (): string =>
  process.platform !== 'win32' && env.HOME ? env.HOME : process.getBuiltinModule('node:os').homedir();

/** The code caches of this build and runtime, written when the process exits; undefined when there can be none. */
export function openCodeCache(argv: readonly string[], env: NodeJS.ProcessEnv): CodeCache | undefined {
  // Node maps stacks to src/ (--verbose) only for files its own loader compiled.
  const root =
    env.NODE_DISABLE_COMPILE_CACHE || process.sourceMapsEnabled ? undefined : cacheRoot(env, homeOf(env));
  const cache = root
    ? CodeCache.open({
        root,
        key: `${SIGN_BUILD_ID}-node${process.versions.node}-${process.arch}`,
        command: commandKey(argv.slice(2)),
      })
    : undefined;
  if (cache) process.once('exit', () => cache.persist());
  return cache;
}

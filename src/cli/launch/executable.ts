/** The single executable's loader of the CLI (src/cli/exe.ts). */
import { join } from 'node:path';
import { ChunkLoader } from './chunk-loader.js';
import type { CliMain } from './launch.js';
import { openCodeCache } from './open-cache.js';

/**
 * main.cjs of the single executable, whose chunks are its assets `cli/<name>`
 * (scripts/build/build-exe.mjs), named as files under the executable's path (no file is there:
 * the names are for stacks and require.cache).
 */
export function loadExecutableCli(argv: readonly string[], env: NodeJS.ProcessEnv): CliMain {
  const sea = process.getBuiltinModule('node:sea');
  const asset = (name: string): string =>
    Buffer.from(sea.getRawAsset(`cli/${name}`) as ArrayBuffer).toString('utf8');
  return new ChunkLoader(join(process.execPath, 'cli'), openCodeCache(argv, env), asset).load(
    'main.cjs',
  ) as CliMain;
}

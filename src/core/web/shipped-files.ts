/**
 * Files sign-cli ships beside its code (fonts, stylesheets, scripts), found wherever it runs: in a
 * single executable they are assets of the executable (scripts/build/build-exe.mjs); in the built
 * CLI they are files beside the bundle (dist/<dir>, copied by scripts/build/build.mjs); from
 * source (tests) they are read from assets/<dir>.
 */
import { existsSync, readFileSync } from 'node:fs';

/** The folders of assets/ that ship (scripts/build/cli-bundle.mjs lists their files). */
export type ShippedDir = 'fonts' | 'pages' | 'inspector';

export function readShipped(dir: ShippedDir, name: string): Buffer {
  const sea = process.getBuiltinModule?.('node:sea') as typeof import('node:sea') | undefined;
  if (sea?.isSea()) return Buffer.from(sea.getRawAsset(`${dir}/${name}`) as ArrayBuffer);
  // The bundle's chunks are in dist/cli, so these files are in dist/<dir>; from source this file is in src/core/web.
  const beside = new URL(`../${dir}/${name}`, import.meta.url);
  if (existsSync(beside)) return readFileSync(beside);
  return readFileSync(new URL(`../../../assets/${dir}/${name}`, import.meta.url));
}

/**
 * The pages' web fonts (WOFF2 subsets of the signed copy's DejaVu fonts, made
 * by scripts/fonts/web-fonts.sh), wherever sign-cli runs, found the three ways
 * font-files.ts finds the TTFs: in a single executable they are assets of the
 * executable (scripts/build/build-exe.mjs); in the built CLI they are files
 * beside the bundle (dist/fonts, copied by scripts/build/build.mjs); from
 * source (tests) they are read from assets/fonts.
 */
import { existsSync, readFileSync } from 'node:fs';

/** The web fonts: what the build copies and the executable carries (scripts/build/cli-bundle.mjs lists them too). */
export const WEB_FONT_FILES = ['sandbox-sans.woff2', 'sandbox-sans-bold.woff2'] as const;

export type WebFontName = (typeof WEB_FONT_FILES)[number];

export function readWebFont(name: WebFontName): Buffer {
  const sea = process.getBuiltinModule?.('node:sea') as typeof import('node:sea') | undefined;
  if (sea?.isSea()) return Buffer.from(sea.getRawAsset(`fonts/${name}`) as ArrayBuffer);
  // The bundle's chunks are in dist/cli, so its fonts are at ../fonts; this file is two levels below the root.
  const beside = new URL(`../fonts/${name}`, import.meta.url);
  if (existsSync(beside)) return readFileSync(beside);
  return readFileSync(new URL(`../../../assets/fonts/${name}`, import.meta.url));
}

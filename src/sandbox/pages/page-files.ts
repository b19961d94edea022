/**
 * The pages' files that are files of their own, wherever sign-cli runs: the web fonts (WOFF2
 * subsets of the signed copy's DejaVu fonts, made by scripts/fonts/web-fonts.sh; the handwriting
 * fonts of a typed signature, scripts/fonts/signature-fonts.sh, which the signed copy draws with
 * too), the stylesheet and the script. They are found the three ways font-files.ts finds the TTFs: in a single executable
 * they are assets of the executable (scripts/build/build-exe.mjs); in the built CLI they are
 * files beside the bundle (dist/fonts and dist/pages, copied by scripts/build/build.mjs); from
 * source (tests) they are read from assets/fonts and assets/pages.
 */
import { existsSync, readFileSync } from 'node:fs';

/** The web fonts: what the build copies and the executable carries (scripts/build/cli-bundle.mjs lists them too). */
export const WEB_FONT_FILES = [
  'sandbox-sans.woff2',
  'sandbox-sans-bold.woff2',
  'signature-latin.woff',
  'signature-latin-ext.woff',
  'signature-arabic.woff',
] as const;

export type WebFontName = (typeof WEB_FONT_FILES)[number];

/** The pages' one stylesheet and one script (assets/pages; scripts/build/cli-bundle.mjs names them too). */
export const STYLESHEET = 'ceremony.css';
export const SCRIPT = 'ceremony.js';

function readShipped(dir: 'fonts' | 'pages', name: string): Buffer {
  const sea = process.getBuiltinModule?.('node:sea') as typeof import('node:sea') | undefined;
  if (sea?.isSea()) return Buffer.from(sea.getRawAsset(`${dir}/${name}`) as ArrayBuffer);
  // The bundle's chunks are in dist/cli, so these files are in dist/<dir>; from source this file is in src/sandbox/pages.
  const beside = new URL(`../${dir}/${name}`, import.meta.url);
  if (existsSync(beside)) return readFileSync(beside);
  return readFileSync(new URL(`../../../assets/${dir}/${name}`, import.meta.url));
}

export const readWebFont = (name: WebFontName): Buffer => readShipped('fonts', name);

export const readStylesheet = (): Buffer => readShipped('pages', STYLESHEET);

export const readScript = (): Buffer => readShipped('pages', SCRIPT);

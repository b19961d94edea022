/**
 * The DejaVu fonts of the signed copy, wherever sign-cli runs: in a single
 * executable they are assets of the executable (scripts/build/build-exe.mjs); in
 * the built CLI they are files beside the bundle (dist/fonts, copied there by
 * the build, so an installed package needs no font package); from source
 * (tests) they come from the `dejavu-fonts-ttf` dev dependency.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The fonts the signed copy embeds: what the build copies and the executable carries. */
export const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'] as const;

export function readFontFile(file: (typeof FONT_FILES)[number]): Buffer {
  const sea = process.getBuiltinModule?.('node:sea') as typeof import('node:sea') | undefined;
  // A view of the executable's own bytes, not a copy: fontkit only reads it.
  if (sea?.isSea()) return Buffer.from(sea.getRawAsset(`fonts/${file}`) as ArrayBuffer);
  const beside = new URL(`../fonts/${file}`, import.meta.url);
  if (existsSync(beside)) return readFileSync(beside);
  return readFileSync(createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${file}`));
}

/**
 * The handwriting fonts a typed signature is drawn in (Dancing Script's Latin and Latin
 * Extended, Aref Ruqaa's Arabic; SIL Open Font License, kept unmodified as Fontsource ships
 * them: scripts/fonts/signature-fonts.sh), in assets/fonts. The signer's pages serve the same
 * files (pages/page-files.ts), so a signature looks the same on the page and in the PDF. WOFF,
 * not WOFF2: fontkit subsets a WOFF's glyphs for the PDF, not a WOFF2's.
 */
export const SIGNATURE_FONT_FILES = [
  'signature-latin.woff',
  'signature-latin-ext.woff',
  'signature-arabic.woff',
] as const;

export function readSignatureFont(file: (typeof SIGNATURE_FONT_FILES)[number]): Buffer {
  const sea = process.getBuiltinModule?.('node:sea') as typeof import('node:sea') | undefined;
  if (sea?.isSea()) return Buffer.from(sea.getRawAsset(`fonts/${file}`) as ArrayBuffer);
  // The bundle's chunks are in dist/cli, so these are in dist/fonts; from source, in assets/fonts.
  const beside = new URL(`../fonts/${file}`, import.meta.url);
  if (existsSync(beside)) return readFileSync(beside);
  return readFileSync(new URL(`../../../assets/fonts/${file}`, import.meta.url));
}

/**
 * The pages' files that are files of their own, wherever sign-cli runs: the web fonts (WOFF2
 * subsets of the signed copy's DejaVu fonts, made by scripts/fonts/web-fonts.sh; the handwriting
 * fonts of a typed signature, scripts/fonts/signature-fonts.sh, which the signed copy draws with
 * too), the stylesheet and the script, found as every shipped file is (core/web/shipped-files.ts: an
 * asset of the single executable, dist/fonts and dist/pages beside the bundle, assets/fonts and
 * assets/pages from source).
 */
import { readShipped } from '../../core/web/shipped-files.js';

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

export const readWebFont = (name: WebFontName): Buffer => readShipped('fonts', name);

export const readStylesheet = (): Buffer => readShipped('pages', STYLESHEET);

export const readScript = (): Buffer => readShipped('pages', SCRIPT);

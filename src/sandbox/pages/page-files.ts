/**
 * The pages' files that are files of their own, wherever sign-cli runs: the web fonts (WOFF2
 * subsets of the signed copy's DejaVu fonts, made by scripts/fonts/web-fonts.sh) and the
 * stylesheet, found as every shipped file is (core/web/shipped-files.ts: an asset of the single
 * executable, dist/fonts and dist/pages beside the bundle, assets/fonts and assets/pages from source).
 */
import { readShipped } from '../../core/web/shipped-files.js';

/** The web fonts: what the build copies and the executable carries (scripts/build/cli-bundle.mjs lists them too). */
export const WEB_FONT_FILES = ['sandbox-sans.woff2', 'sandbox-sans-bold.woff2'] as const;

export type WebFontName = (typeof WEB_FONT_FILES)[number];

/** The pages' one stylesheet (assets/pages; scripts/build/cli-bundle.mjs names it too). */
export const STYLESHEET = 'ceremony.css';

export const readWebFont = (name: WebFontName): Buffer => readShipped('fonts', name);

export const readStylesheet = (): Buffer => readShipped('pages', STYLESHEET);

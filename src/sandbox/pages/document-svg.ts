/**
 * The document as it will be signed, for the signer's page: the first part of
 * the signed copy (signed-copy.ts), laid out by the same code as the PDF
 * (pdf-layout.ts), so the lines break and the pages turn where the PDF's do.
 * One SVG per page, drawn with presentation attributes only: the pages are
 * served under a Content-Security-Policy without 'unsafe-inline', which
 * ignores style attributes and style elements.
 *
 * Each run is a `<text>` at its x, in logical order: the browser shapes
 * Arabic itself. A right-to-left run is anchored at its right end, so that an
 * Arabic line stays flush right, and its characters are drawn right to left
 * with bidi-override, as the layout put them (a run holds one direction only,
 * so the browser's own bidi would only second-guess the layout). Text from
 * the envelope (a title, a signer's name) is untrusted: control characters,
 * bidi overrides, embeddings and isolates are shown as visible `\u202e`
 * escapes (src/core/envelope/text.ts, as the CLI shows them), so nothing can reorder
 * the page, then every XML special is escaped, so nothing becomes markup.
 */
import type { AuditEntry } from '../../core/envelope/audit.js';
import { html as svg, visibleControls, type Markup } from '../../core/web/html.js';
import { PAGE_HEIGHT, PAGE_WIDTH, layoutPages, type LaidOutRun, type PdfRow } from '../signing/pdf-layout.js';
import type { EnvelopeRecord } from '../store/records.js';
import { signedCopyRows } from '../signing/signed-copy.js';

const defaultLabel = (n: number, total: number) => `Page ${n} of ${total}`;

/** A number for an attribute: at most two decimals, no trailing zeros. */
const num = (value: number): string => String(Math.round(value * 100) / 100);

/**
 * Text XML can hold: what it forbids even as a reference (C0 controls, lone surrogates, U+FFFE
 * and U+FFFF) as U+FFFD. The tag (html.ts, named `svg` here) then escapes the specials.
 */
const xmlText = (text: string): string =>
  text.replace(
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '\ufffd',
  );

/**
 * A cell's text with every control and bidi control character as a visible
 * escape (html.ts: joiners and bidi marks stay), except the line breaks and tabs that the layout turns into
 * lines and spaces as in the PDF. Escaped before the layout, so the escapes
 * are measured and wrapped like any other text.
 */
function visible(text: string): string {
  return text
    .split(/(\r\n|[\n\r\u0085\u2029])/)
    .map((part, i) => (i % 2 === 1 ? '\n' : visibleControls(part.replace(/\t/g, ' '))))
    .join('');
}

function textElement(run: LaidOutRun): Markup {
  const at = run.rtl
    ? svg`x="${num(run.x + run.width)}" direction="rtl" unicode-bidi="bidi-override" text-anchor="start"`
    : svg`x="${num(run.x)}" direction="ltr" unicode-bidi="bidi-override"`;
  const size = svg`font-size="${num(run.size)}"${run.bold && svg` font-weight="bold"`}`;
  // xml:space on each element: Chrome does not inherit it from the <svg>, and a run's edge spaces are part of its width.
  return svg`<text xml:space="preserve" ${at} y="${num(run.baseline)}" ${size}>${xmlText(run.text)}</text>`;
}

/** Rows as SVG pages, one per page. */
export async function rowsSvg(
  rows: readonly PdfRow[],
  label: (n: number, total: number) => string = defaultLabel,
): Promise<Markup[]> {
  const safe = rows.map((row) => ({
    ...row,
    cells: row.cells.map((cell) => ({ ...cell, text: visible(cell.text) })),
  }));
  const pages = await layoutPages(safe);
  const [width, height] = [num(PAGE_WIDTH), num(PAGE_HEIGHT)];
  const look = svg`font-family="Sandbox Sans, sans-serif" fill="#1b1b1b" text-rendering="geometricPrecision"`;
  const sheet = svg`width="${num(PAGE_WIDTH - 1)}" height="${num(PAGE_HEIGHT - 1)}" fill="#fff" stroke="#c4c7cc"`;
  return pages.map((runs, i) => {
    const name = svg`role="group" aria-label="${xmlText(label(i + 1, pages.length))}"`;
    const text = runs.filter((run) => run.text !== '').map((run) => svg`${textElement(run)}\n`);
    return svg`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" ${name} ${look}>
<rect x="0.5" y="0.5" ${sheet} stroke-width="1"/>
${text}</svg>`;
  });
}

/**
 * The envelope's document as the signer will sign it: one `<svg>` per page
 * (A4, in points), labelled "Page N of M" or by `label`.
 */
export async function documentPagesSvg(
  envelope: EnvelopeRecord,
  audit: readonly AuditEntry[],
  label?: (n: number, total: number) => string,
): Promise<Markup[]> {
  return rowsSvg(signedCopyRows(envelope, audit), label);
}

/**
 * The document as the signer's page shows it: one SVG per page, laid out by
 * the PDF's own layout, drawn with presentation attributes only (the pages'
 * Content-Security-Policy ignores style attributes), every text from the
 * envelope escaped so that it can be neither markup nor a bidi override.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainAuditEntry, type AuditEntry } from '../../src/core/envelope/audit.js';
import { documentPagesSvg } from '../../src/sandbox/pages/document-svg.js';
import { renderPdf } from '../../src/sandbox/signing/pdf.js';
import type { EnvelopeRecord, SignerRecord } from '../../src/sandbox/store/records.js';
import { signedCopyRows } from '../../src/sandbox/signing/signed-copy.js';
import { ROOT } from '../helpers/paths.js';
import { readPdf } from '../helpers/pdf.js';

type Body = Record<string, unknown> & { signers: Record<string, unknown>[] };
const example = (name: string) => JSON.parse(readFileSync(join(ROOT, 'examples', name), 'utf8')) as Body;

const AT = '2027-03-01T09:00:00.000Z';
const AUDIT: AuditEntry[] = [
  chainAuditEntry(undefined, {
    at: AT,
    type: 'envelope.created',
    actor: 'api_key:key_test',
    detail: 'created',
  }),
];

/** An envelope as the sandbox holds it while its signers have yet to sign. */
function sent(body: Body): EnvelopeRecord {
  return {
    id: 'env_3k9x2m7q4w8z',
    object: 'envelope',
    status: 'sent',
    ...body,
    owner: 'key_test',
    sequential: body.sequential === true,
    signers: body.signers.map((signer, i): SignerRecord => ({
      id: `sgn_${i + 1}`,
      ...(signer as { name: string; channel: string }),
      status: 'pending',
      next_at: null,
    })),
    created_at: AT,
    updated_at: AT,
    expires_at: null,
  };
}

const unescape = (text: string) =>
  text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** Each page's lines: the texts of the runs that share a baseline, joined in the order drawn (logical order). */
function lines(svg: string): string[] {
  const byLine = new Map<string, string>();
  for (const [, y, text] of svg.matchAll(/<text [^>]*?y="([\d.]+)"[^>]*>([^<]*)<\/text>/g))
    byLine.set(y!, (byLine.get(y!) ?? '') + unescape(text!));
  return [...byLine.values()];
}

/** Every tag of an SVG page: only the page's own. */
const tags = (svg: string) => new Set([...svg.matchAll(/<\/?([^\s>/]+)/g)].map((m) => m[1]));

describe('the document as SVG pages', () => {
  it('shows an Arabic title and English text, the RTL runs anchored at their right end', async () => {
    const body = example('envelope-ar.json');
    body.signers[1]!.name = 'Omar Khalil & Sons "Ltd"';
    const pages = (await documentPagesSvg(sent(body), AUDIT)).map(String);
    expect(pages).toHaveLength(1);
    const [page] = pages as [string];
    expect(page).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 595.28 841.89" role="group"/,
    );
    expect(page).toContain('aria-label="Page 1 of 1"');
    expect(page).toMatch(/<rect [^>]*fill="#fff" stroke="[^"]+"/);
    const text = lines(page);
    expect(text).toContain('Signed copy');
    expect(text).toContain('عقد إيجار مكتب 2027');
    expect(text).toContain('1.ليلى حداد');
    expect(text).toContain('2.Omar Khalil & Sons "Ltd"');
    expect(page).toContain('Omar Khalil &#38; Sons &#34;Ltd&#34;');
    // Before signing, the fields of the signed copy not known yet show as they would: "-".
    expect(text).toContain('Completed:-');
    expect(page).toMatch(/<text [^>]*direction="rtl"[^>]*text-anchor="start"[^>]*>عقد إيجار مكتب <\/text>/);
    expect(page).toMatch(/font-family="Sandbox Sans, sans-serif"/);
    expect(page).not.toMatch(/style/i);
    expect(tags(page)).toEqual(new Set(['svg', 'rect', 'text']));
  });

  it('shows a hostile name as text: no tag, no bidi control, nothing XML forbids', async () => {
    const body = example('envelope.json');
    body.title = 'Lease\u202e2027 <script>alert(1)</script>';
    body.signers[0]!.name = '<img src=x onerror=alert(1)>\u2066evil\u2069\u0007';
    const pages = (await documentPagesSvg(sent(body), AUDIT, (n, total) => `صفحة ${n} من ${total} <b>`)).map(
      String,
    );
    const [page] = pages as [string];
    expect(tags(page)).toEqual(new Set(['svg', 'rect', 'text']));
    expect(page).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u202a-\u202e\u2066-\u2069]/);
    expect(lines(page)).toContain('Lease\\u202e2027 <script>alert(1)</script>');
    expect(lines(page)).toContain('1.<img src=x onerror=alert(1)>\\u2066evil\\u2069\\u0007');
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(page).toContain('aria-label="صفحة 1 من 1 &#60;b&#62;"');
    expect(page).not.toMatch(/style/i);
  });

  it('turns the page where the PDF does: the same layout', async () => {
    const body = example('envelope-ar.json');
    body.title = Array.from({ length: 120 }, (_, i) => (i % 4 === 0 ? `إيجار ${i}` : 'إيجار')).join(' ');
    body.signers = Array.from({ length: 24 }, (_, i) => ({
      name: i % 2 ? `ليلى حداد ${i + 1}` : `Layla Haddad ${i + 1}`,
      email: `${'x'.repeat(90)}${i}@example.com`,
      channel: 'email',
      order: i + 1,
    }));
    const envelope = sent(body);
    const pages = (await documentPagesSvg(envelope, AUDIT)).map(String);
    const pdf = await readPdf(
      await renderPdf(signedCopyRows(envelope, AUDIT), { title: 't', createdAt: new Date(AT) }),
    );
    expect(pages.length).toBeGreaterThan(2);
    expect(pages).toHaveLength(pdf.pages);
    let compared = 0;
    pages.forEach((page, i) => {
      expect(page).toContain(`aria-label="Page ${i + 1} of ${pages.length}"`);
      expect(page).not.toMatch(/style/i);
      // The same lines on the same page (pdf.js joins a line's runs with the spaces it sees).
      const pdfLines = pdf.lines[i]!.map((line) => line.replace(/ /g, ''));
      for (const line of lines(page).filter((text) => /^(Contact|Channel):/.test(text))) {
        expect(pdfLines).toContain(line.replace(/ /g, ''));
        compared++;
      }
    });
    expect(compared).toBeGreaterThan(pages.length);
  });
});

/**
 * The signed copy as a PDF reader sees it: built from an envelope record like
 * the sandbox's store holds, read back with pdf.js. Names, titles and
 * contract ids in Arabic (joined, right to left, mixed with Latin and digits)
 * must come back exactly as written, in logical order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainAuditEntry, type AuditEntry, type AuditFields } from '../../src/core/envelope/audit.js';
import { Templates } from '../../src/sandbox/documents/templates.js';
import { ownCopyPdf, signedCopyPdf } from '../../src/sandbox/signing/signed-copy.js';
import type { EnvelopeRecord, SignerRecord } from '../../src/sandbox/store/records.js';
import { ROOT } from '../helpers/paths.js';
import { readPdf, type PdfContent } from '../helpers/pdf.js';

type Body = Record<string, unknown> & { signers: Record<string, unknown>[] };
const example = (name: string) => JSON.parse(readFileSync(join(ROOT, 'examples', name), 'utf8')) as Body;

const START = Date.parse('2027-03-01T09:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A completed envelope as the sandbox stores it (server.ts buildEnvelope, then
 * the journey), with its hash-chained audit trail.
 */
function completed(body: Body): { envelope: EnvelopeRecord; audit: AuditEntry[] } {
  const audit: AuditEntry[] = [];
  const record = (at: number, type: string, actor: string, detail: string) =>
    audit.push(chainAuditEntry(audit.at(-1), { at: iso(at), type, actor, detail } satisfies AuditFields));
  record(START, 'envelope.created', 'api_key:key_test (sandbox)', `created "${String(body.title)}"`);
  record(START, 'envelope.sent', 'system', 'sent');
  let at = START;
  const signers = body.signers.map((input, i): SignerRecord => {
    const signer: SignerRecord = {
      id: `sgn_${i + 1}`,
      ...(input as { name: string; channel: string }),
      status: 'signed',
      next_at: null,
    };
    const actor = `signer:${signer.id} (${signer.name})`;
    signer.notified_at = iso((at += 500));
    record(at, 'signer.notified', 'system', `notified by ${signer.channel}`);
    signer.viewed_at = iso((at += 1000));
    record(at, 'signer.viewed', actor, 'opened the envelope');
    if (signer.verification) {
      signer.verified_at = iso((at += 800));
      record(at, 'signer.verified', actor, `identity verified with ${String(signer.verification)}`);
    }
    signer.signed_at = iso((at += 1000));
    record(at, 'signer.signed', actor, 'signed');
    return signer;
  });
  record(at, 'envelope.completed', 'system', 'every signer has signed');
  const envelope: EnvelopeRecord = {
    id: 'env_3k9x2m7q4w8z',
    object: 'envelope',
    status: 'completed',
    ...body,
    environment: 'test',
    signers,
    sequential: body.sequential === true,
    created_at: iso(START),
    updated_at: iso(at),
    expires_at: iso(START + 14 * 86_400_000),
    owner: 'key_test',
    completed_at: iso(at),
    finished_at: iso(at),
  };
  return { envelope, audit };
}

async function render(
  body: Body,
  change: (envelope: EnvelopeRecord) => void = () => {},
  templates?: Templates,
): Promise<{ pdf: Buffer; read: PdfContent; envelope: EnvelopeRecord; audit: AuditEntry[] }> {
  const { envelope, audit } = completed(body);
  change(envelope);
  const pdf = await signedCopyPdf(envelope, audit, templates);
  return { pdf, read: await readPdf(pdf), envelope, audit };
}

const PAGE_WIDTH = 595.28;
const MARGIN = 56;
const hashOf = (audit: AuditEntry[]) => audit.at(-1)!.hash;
/** Where the page draws an item: its left end (the first item with exactly this text). */
const xOf = (read: PdfContent, page: number, str: string) =>
  read.items[page]!.find((item) => item.str === str)?.x ?? Number.NaN;
/** The pages before the certificate of completion: the document. */
const documentPart = (read: PdfContent) => read.lines.slice(0, certificatePage(read)).flat();
const certificatePage = (read: PdfContent) =>
  read.lines.findIndex((lines) => lines[0] === 'Certificate of completion' || lines[0] === 'شهادة الإتمام');

describe('signed copy PDF (pdfkit, DejaVu Sans, bidi)', () => {
  it('prints the Arabic example as its signers read it: the lease in Arabic, filled in, each signature in its place, then the certificate', async () => {
    const body = example('envelope-ar.json');
    const { read, envelope, audit } = await render(body);
    const [layla, omar] = body.signers.map((s) => String(s.name)) as [string, string];
    expect(layla).toBe('ليلى حداد');
    const copy = documentPart(read);
    expect(copy[0]).toBe(`المرجع: ${String(body.contract_id)} أُرسل: · 1 مارس 2027 المظروف: · ${envelope.id}`);
    expect(copy[1]).toBe('عقد إيجار مكتب');
    // The template's placeholders, filled from the envelope: the contract id, the date sent, the parties.
    expect(copy.slice(2, 4).join(' ')).toBe(
      `حُرِّر عقد إيجار المكتب هذا («العقد»)، ومرجعه ${String(body.contract_id)}، بتاريخ 1 مارس 2027 بين ${layla} («المؤجِّر») و${omar} («المستأجِر»).`,
    );
    expect(copy).toContain('10. التوقيع الإلكتروني');
    // Each signer's place: who, their signature (typed: their name, as the automatic journey signs), when.
    const places = copy.slice(copy.indexOf('التوقيعات'));
    expect(places.slice(0, 5)).toEqual([
      'التوقيعات',
      'الموقّع 1 من 2',
      layla,
      layla,
      'وُقّع في 1 مارس 2027، 09:00 UTC',
    ]);
    expect(places).toContain('الموقّع 2 من 2');
    expect(places.filter((line) => line === omar)).toHaveLength(2);

    // The certificate of completion closes the copy in the document's language, its values in words.
    const certificate = read.lines[certificatePage(read)]!;
    expect(certificate[0]).toBe('شهادة الإتمام');
    for (const line of [
      `المظروف: ${envelope.id}`,
      `العنوان: ${String(body.title)}`,
      `رقم العقد: ${String(body.contract_id)}`,
      'الحالة: مكتمل',
      'الموقّعون: 2، بالترتيب',
      'أرسله: api_key:key_test (sandbox)',
      'أُرسل: 1 مارس 2027، 09:00:00 UTC',
      `1. ${layla}`,
      'القناة: البريد الإلكتروني',
      'جهة الاتصال: layla.haddad@example.com',
      'وقّع: 1 مارس 2027، 09:00:03 UTC',
      `التوقيع: توقيع مكتوب: «${layla}»`,
      `2. ${omar}`,
      'القناة: واتساب',
      `جهة الاتصال: ${String(body.signers[1]!.phone)}`,
      'التحقق: لا يوجد',
      `القيود: ${audit.length} (من 1 إلى ${audit.length})، كل قيد مربوط بما قبله بـ SHA-256`,
      `تجزئة SHA-256 لآخر قيد: ${hashOf(audit)}`,
      'القيد الأول: 1 مارس 2027، 09:00:00 UTC envelope.created',
      `للتحقق: sign-cli envelopes audit ${envelope.id} --verify`,
    ]) {
      expect(certificate).toContain(line);
    }
    expect(certificate.join(' ')).toContain(
      'التحقق: الهوية الرقمية الإماراتية (UAE PASS)، تحقق في 1 مارس 2027، 09:00:02 UTC',
    );
    // Laid out as an Arabic form: labels at the right margin, values flush right before them.
    const page = certificatePage(read);
    const rightEnd = (str: string) =>
      xOf(read, page, str) + read.items[page]!.find((i) => i.str === str)!.width;
    expect(rightEnd('المظروف:')).toBeCloseTo(PAGE_WIDTH - MARGIN, 0);
    expect(rightEnd(envelope.id)).toBeCloseTo(PAGE_WIDTH - MARGIN - 150, 0);
    expect(certificate.join(' ')).not.toMatch(/uae_pass|whatsapp|\d{4}-\d\d-\d\dT/);
    expect(read.lines.at(-1)!.at(-1)).toMatch(/مستند اختباري ليس له أثر قانوني\.$/);
    // Nothing of it is lost to "?" (what the standard fonts printed for Arabic), nor to a glyph with no text.
    expect(read.text.join('')).not.toMatch(/[?\u0000-\u0008]/);
  });

  it('prints the signature each signer adopted: the typed text as typed, a drawing as its strokes', async () => {
    const body = { ...example('envelope.json'), locale: 'en' };
    const { read } = await render(body, (envelope) => {
      envelope.signers[0]!.signature = { kind: 'typed', text: 'L. Haddad' };
      envelope.signers[1]!.signature = {
        kind: 'drawn',
        strokes: [
          [10, 150, 80, 20, 150, 160],
          [200, 90, 400, 100],
        ],
      };
    });
    const copy = documentPart(read);
    const places = copy.slice(copy.indexOf('Signatures'));
    expect(places.slice(0, 5)).toEqual([
      'Signatures',
      'Signer 1 of 2',
      'Layla Haddad',
      'L. Haddad',
      'Signed 1 March 2027, 09:00 UTC',
    ]);
    expect(places.slice(5, 8)).toEqual(['Signer 2 of 2', 'Omar Khalil', 'Signed 1 March 2027, 09:00 UTC']);
    const certificate = read.lines[certificatePage(read)]!;
    expect(certificate).toContain('Signature: typed signature "L. Haddad"');
    expect(certificate).toContain('Signature: drawn signature (2 strokes)');
  });

  it('lays out a line mixing Arabic, digits and Latin in bidi order, and reads back in logical order', async () => {
    const title = 'عقد إيجار 2027 — CTR-2027-0042';
    // An English envelope's certificate (left to right), an Arabic title in it.
    const { read } = await render({ ...example('envelope.json'), locale: 'en', title });
    const page = certificatePage(read);
    expect(read.lines[page]).toContain(`Title: ${title}`);
    // A right-to-left paragraph: the Arabic words on the right, the contract id at the left end.
    const [arabic, year, id] = [
      xOf(read, page, 'عقد إيجار'),
      xOf(read, page, '2027'),
      xOf(read, page, 'CTR-2027-0042'),
    ];
    expect(id).toBeCloseTo(MARGIN + 150, 0);
    expect(id).toBeLessThan(year);
    expect(year).toBeLessThan(arabic);
  });

  it('sets an Arabic document flush right, its lines inside the margins', async () => {
    const { read } = await render(example('envelope-ar.json'));
    for (const item of read.items[0]!.filter(
      (it) => it.str.trim() !== '' && /[\u0600-\u06ff]/.test(it.str),
    )) {
      expect(item.x).toBeGreaterThanOrEqual(MARGIN - 0.5);
      expect(item.x + item.width).toBeLessThanOrEqual(PAGE_WIDTH - MARGIN + 0.5);
    }
    // The heading ends at the right margin.
    const heading = read.items[0]!.find((item) => item.str === 'عقد إيجار مكتب')!;
    expect(heading.x + heading.width).toBeCloseTo(PAGE_WIDTH - MARGIN, 0);
  });

  it('keeps lam-alef ligatures and brackets in Arabic names exactly as written', async () => {
    const names = ['عبد الله سلام', 'لا', 'لانا (أم علي)'];
    const body = example('envelope-ar.json');
    body.signers = names.map((name, i) => ({
      name,
      email: `s${i}@example.com`,
      channel: 'email',
      order: i + 1,
    }));
    const { read } = await render(body);
    const copy = documentPart(read);
    const certificate = read.lines[certificatePage(read)]!;
    names.forEach((name, i) => {
      // Its place: the name, and the typed signature's text.
      expect(copy.filter((line) => line === name)).toHaveLength(2);
      expect(certificate).toContain(`${i + 1}. ${name}`);
    });
  });

  it('prints a Latin-only envelope (examples/envelope.json) in English when its locale is not Arabic', async () => {
    const body = { ...example('envelope.json'), locale: 'en' };
    const { read, audit, envelope } = await render(body);
    const copy = documentPart(read);
    expect(copy.slice(0, 4)).toEqual([
      `Reference: CTR-2027-0042 · Sent: 1 March 2027 · Envelope: ${envelope.id}`,
      'Office lease agreement',
      'This office lease agreement ("the Lease"), reference CTR-2027-0042, is made on 1 March 2027',
      'between Layla Haddad ("the Landlord") and Omar Khalil ("the Tenant").',
    ]);
    expect(copy).toContain('10. Electronic signatures');
    const certificate = read.lines[certificatePage(read)]!;
    expect(certificate).toEqual(
      expect.arrayContaining([
        'Certificate of completion',
        'Status: Completed',
        'Signers: 2, in order',
        'Sent: 1 March 2027, 09:00:00 UTC',
        '1. Layla Haddad',
        'Channel: E-mail',
        'Verification: UAE PASS, verified 1 March 2027, 09:00:02 UTC',
        'Signed: 1 March 2027, 09:00:03 UTC',
        '2. Omar Khalil',
        'Channel: WhatsApp',
        'Contact: +971501234567',
        'Verification: None',
        `Entries: ${audit.length} (seq 1 to ${audit.length}), each chained to the one before by SHA-256`,
        'First entry: 1 March 2027, 09:00:00 UTC envelope.created',
        `Head hash (SHA-256): ${hashOf(audit)}`,
        `Check: sign-cli envelopes audit ${envelope.id} --verify`,
      ]),
    );
  });

  it('prints a template of --templates, and a stand-in that says so for a template the sandbox does not hold', async () => {
    const nda = await render(
      { ...example('envelope.json'), locale: 'en', document: { template_id: 'tpl_nda', version: 1 } },
      () => {},
      Templates.fromDirectory(join(ROOT, 'examples', 'templates')),
    );
    expect(documentPart(nda.read)).toContain('Mutual non-disclosure agreement');
    const unknown = await render({
      ...example('envelope.json'),
      locale: 'en',
      document: { template_id: 'tpl_x', version: 7 },
    });
    const text = documentPart(unknown.read).join(' ');
    expect(text).toContain('The sandbox holds no text for the template tpl_x, version 7');
    expect(text).toContain('This document is to be signed by Layla Haddad and Omar Khalil.');
  });

  it('wraps long values inside the page and carries on over pages, each signer’s place whole, the certificate last', async () => {
    const word = 'إيجار';
    const title = Array.from({ length: 400 }, (_, i) => (i % 3 === 0 ? `${word} ${i}` : word)).join(' ');
    const body = example('envelope-ar.json');
    body.title = title;
    body.signers = Array.from({ length: 30 }, (_, i) => ({
      name: `ليلى حداد ${i + 1}`,
      email: `${'x'.repeat(120)}${i}@example.com`,
      channel: 'email',
      order: i + 1,
    }));
    const { read } = await render(body);
    expect(read.pages).toBeGreaterThan(5);
    for (const page of read.items) {
      for (const item of page.filter((it) => it.str.trim() !== '')) {
        expect(item.x).toBeGreaterThanOrEqual(MARGIN - 0.5);
        expect(item.x + item.width).toBeLessThanOrEqual(PAGE_WIDTH - MARGIN + 0.5);
      }
    }
    const certificate = certificatePage(read);
    expect(certificate).toBeGreaterThan(0);
    // A signer's place is never cut by a page: its number, name, signature and date on one page.
    for (const lines of read.lines.slice(0, certificate)) {
      const first = lines.findIndex((line) => /^الموقّع \d+ من 30$/.test(line));
      if (first < 0) continue;
      expect(
        lines.slice(first).filter((line) => /^الموقّع \d+ من 30$/.test(line)).length * 4,
      ).toBeLessThanOrEqual(lines.slice(first).filter((line) => !line.startsWith('أُنشئ')).length);
    }
    // The title wraps between words, onto a second page, and its lines read back as the whole title.
    const rest = read.lines.slice(certificate).flat();
    const titleLines = rest.slice(
      rest.findIndex((line) => line.startsWith('العنوان: ')),
      rest.findIndex((line) => line.startsWith('رقم العقد: ')),
    );
    expect(titleLines.length).toBeGreaterThan(10);
    expect(titleLines.join(' ')).toBe(`العنوان: ${title}`);
    expect(rest).toContain('30. ليلى حداد 30');
  });

  it("makes a signer's own copy before everyone has signed: the document and the signatures so far, no certificate", async () => {
    const { envelope, audit } = completed({ ...example('envelope.json'), locale: 'en' });
    envelope.status = 'sent';
    envelope.signers[1]!.status = 'notified';
    delete envelope.signers[1]!.signed_at;
    const read = await readPdf(await ownCopyPdf(envelope, envelope.signers[0]!, audit));
    const lines = read.lines.flat();
    expect(lines).not.toContain('Certificate of completion');
    const places = lines.slice(lines.indexOf('Signatures'));
    expect(places.slice(0, 5)).toEqual([
      'Signatures',
      'Signer 1 of 2',
      'Layla Haddad',
      'Layla Haddad',
      'Signed 1 March 2027, 09:00 UTC',
    ]);
    expect(places.slice(5, 8)).toEqual(['Signer 2 of 2', 'Omar Khalil', 'Not signed yet']);
    expect(lines.join(' ')).toContain('Copy for Layla Haddad: 1 of 2 signers have signed.');
  });
});

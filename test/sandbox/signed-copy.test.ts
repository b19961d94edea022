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
import { signedCopyPdf } from '../../src/sandbox/signing/signed-copy.js';
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
): Promise<{ pdf: Buffer; read: PdfContent; envelope: EnvelopeRecord; audit: AuditEntry[] }> {
  const { envelope, audit } = completed(body);
  const pdf = await signedCopyPdf(envelope, audit);
  return { pdf, read: await readPdf(pdf), envelope, audit };
}

const PAGE_WIDTH = 595.28;
const MARGIN = 56;
const hashOf = (audit: AuditEntry[]) => audit.at(-1)!.hash;
/** Where the page draws an item: its left end (the first item with exactly this text). */
const xOf = (read: PdfContent, page: number, str: string) =>
  read.items[page]!.find((item) => item.str === str)?.x ?? Number.NaN;

describe('signed copy PDF (pdfkit, DejaVu Sans, bidi)', () => {
  it('prints the Arabic example as written: title, names and contract id, then a certificate of completion', async () => {
    const body = example('envelope-ar.json');
    const { read, envelope, audit } = await render(body);
    expect(read.pages).toBe(2);
    const [copy, certificate] = read.lines as [string[], string[]];
    const [layla, omar] = body.signers.map((s) => String(s.name)) as [string, string];
    expect(layla).toBe('ليلى حداد');

    expect(copy[0]).toBe('Signed copy');
    expect(copy[1]).toBe(body.title); // عقد إيجار مكتب 2027, in logical order
    expect(copy).toContain(`Contract ID: ${String(body.contract_id)}`);
    expect(copy).toContain('Locale: ar');
    expect(copy).toContain(`1. ${layla}`);
    expect(copy).toContain(`2. ${omar}`);
    expect(copy).toContain(`Head hash (SHA-256): ${hashOf(audit)}`);

    expect(certificate[0]).toBe('Certificate of completion');
    for (const line of [
      `Envelope: ${envelope.id}`,
      `Title: ${String(body.title)}`,
      `Contract ID: ${String(body.contract_id)}`,
      'Status: completed',
      'Sent by: api_key:key_test (sandbox)',
      `1. ${layla}`,
      'Channel: email',
      'Contact: layla.haddad@example.com',
      `Verification: uae_pass, verified ${String(envelope.signers[0]!.verified_at)}`,
      `Signed: ${String(envelope.signers[0]!.signed_at)}`,
      `2. ${omar}`,
      'Channel: whatsapp',
      `Contact: ${String(body.signers[1]!.phone)}`,
      'Verification: none',
      `Signed: ${String(envelope.signers[1]!.signed_at)}`,
      `Entries: ${audit.length} (seq 1 to ${audit.length}), each chained to the one before by SHA-256`,
      `Head hash (SHA-256): ${hashOf(audit)}`,
      `Completed: ${String(envelope.completed_at)}`,
    ]) {
      expect(certificate).toContain(line);
    }
    expect(certificate.at(-1)).toMatch(/a test document with no legal effect\.$/);
    // Nothing of it is lost to "?" (what the standard fonts printed for Arabic).
    expect(read.text.join('')).not.toContain('?');
  });

  it('lays out a line mixing Arabic, digits and Latin in bidi order, and reads back in logical order', async () => {
    const title = 'عقد إيجار 2027 — CTR-2027-0042';
    const { read } = await render({ ...example('envelope-ar.json'), title });
    expect(read.lines[0]![1]).toBe(title);
    expect(read.lines[1]).toContain(`Title: ${title}`);
    // A right-to-left paragraph: the Arabic words on the right, the contract id at the left end.
    const [arabic, year, id] = [
      xOf(read, 0, 'عقد إيجار'),
      xOf(read, 0, '2027'),
      xOf(read, 0, 'CTR-2027-0042'),
    ];
    expect(id).toBeCloseTo(MARGIN, 0);
    expect(id).toBeLessThan(year);
    expect(year).toBeLessThan(arabic);
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
    names.forEach((name, i) => {
      expect(read.lines[0]).toContain(`${i + 1}. ${name}`);
      expect(read.lines[1]).toContain(`${i + 1}. ${name}`);
    });
  });

  it('prints a Latin-only envelope (examples/envelope.json) the same way', async () => {
    const body = example('envelope.json');
    const { read, audit } = await render(body);
    expect(read.pages).toBe(2);
    expect(read.lines[0]).toEqual(
      expect.arrayContaining([
        String(body.title),
        'Contract ID: CTR-2027-0042',
        'Document template: tpl_lease_renewal, version 3',
        '1. Layla Haddad',
        '2. Omar Khalil',
        'Verification: uae_pass',
      ]),
    );
    expect(read.lines[1]![0]).toBe('Certificate of completion');
    expect(read.lines[1]).toEqual(
      expect.arrayContaining([
        '1. Layla Haddad',
        '2. Omar Khalil',
        'Channel: whatsapp',
        'Contact: +971501234567',
        `Head hash (SHA-256): ${hashOf(audit)}`,
      ]),
    );
  });

  it('wraps long values inside the page and carries on over pages, the certificate last', async () => {
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
    expect(read.pages).toBeGreaterThan(4);
    for (const page of read.items) {
      for (const item of page.filter((it) => it.str.trim() !== '')) {
        expect(item.x).toBeGreaterThanOrEqual(MARGIN - 0.5);
        expect(item.x + item.width).toBeLessThanOrEqual(PAGE_WIDTH - MARGIN + 0.5);
      }
    }
    const starts = read.lines.map((lines) => lines[0]);
    const certificate = starts.indexOf('Certificate of completion');
    expect(certificate).toBeGreaterThan(0);
    expect(starts.slice(certificate + 1)).not.toContain('Signed copy');
    // The title wraps between words, onto a second page, and its lines read back as the whole title.
    const copy = read.lines.slice(0, certificate).flat();
    const titleLines = copy.slice(
      1,
      copy.findIndex((line) => line.startsWith('Envelope: ')),
    );
    expect(titleLines.length).toBeGreaterThan(10);
    expect(titleLines.join(' ')).toBe(title);
    expect(read.lines.slice(certificate).flat()).toContain('30. ليلى حداد 30');
  });
});

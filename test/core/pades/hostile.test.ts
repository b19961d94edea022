/**
 * Files made to break the verifier's PDF and DER readers: loops in the
 * cross-reference chain and the page tree, references that resolve to each
 * other, nesting thousands deep, a stream that inflates to far more than it
 * may, a million %%EOF, a CMS cut short, and random bytes flipped in a signed
 * file. Each ends with a verdict (or "not a readable PDF"), never a hang, a
 * crash or a signature that passes. The bounds on size and work: bounds.test.ts.
 */
import { deflateSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { addSignature, appendRevision, basePdf } from '../../helpers/pdf-build.js';
import { NO_OPENSSL, Pki, type Party } from '../../helpers/openssl-pki.js';
import { tempDir } from '../../helpers/paths.js';
import { NotAPdfError, verifyPdf } from '../../../src/core/pades/verify.js';
import { readPdf } from '../../../src/core/pades/pdf-file.js';

/** The verdict, or the reason it is not a PDF: anything else thrown fails the test. */
async function outcome(pdf: Buffer, trusted: Uint8Array[] = []): Promise<'valid' | 'invalid' | 'not a pdf'> {
  try {
    return (await verifyPdf(pdf, { trusted, systemRoots: false })).valid ? 'valid' : 'invalid';
  } catch (error) {
    if (error instanceof NotAPdfError) return 'not a pdf';
    throw error;
  }
}

describe('hostile structure', () => {
  it('a cross-reference whose /Prev points at itself, and a page tree that contains itself', async () => {
    const base = basePdf({ objects: { 2: '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1 >>' } }).toString(
      'latin1',
    );
    const at = base.lastIndexOf('startxref');
    const xref = /startxref\s+(\d+)/.exec(base.slice(at))![1];
    const looped = Buffer.from(base.replace('/Root 1 0 R >>', `/Root 1 0 R /Prev ${xref} >>`), 'latin1');
    expect(await outcome(looped)).toBe('invalid');
    expect(readPdf(looped).repaired).toBe(true);
  });

  it('references that resolve to each other, and arrays nested 100,000 deep', async () => {
    const cyclic = basePdf({ objects: { 10: '11 0 R', 11: '10 0 R' }, catalog: ' /Outlines 10 0 R' });
    expect(await outcome(cyclic)).toBe('invalid');
    const deep = basePdf({
      objects: { 10: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
      catalog: ' /Outlines 10 0 R',
    });
    expect(await outcome(deep)).toBe('invalid');
  });

  it('a cross-reference stream that inflates past the bound, and a million %%EOF', async () => {
    const bomb = deflateSync(Buffer.alloc(80 * 1024 * 1024));
    const pdf = Buffer.concat([
      basePdf(),
      Buffer.from(
        `99 0 obj\n<< /Type /XRef /W [1 4 2] /Size 100 /Root 1 0 R /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`,
      ),
      bomb,
      Buffer.from('\nendstream\nendobj\n'),
    ]);
    const text = pdf.toString('latin1');
    const withXref = Buffer.concat([pdf, Buffer.from(`startxref\n${text.lastIndexOf('99 0 obj')}\n%%EOF\n`)]);
    // A compression bomb is refused, naming it (bounds.test.ts: the bounds, each and in all).
    expect(await outcome(withXref)).toBe('not a pdf');
    await expect(verifyPdf(withXref, { systemRoots: false })).rejects.toThrow(
      'a stream inflates to more than 64 MB (a compression bomb)',
    );
    expect(await outcome(Buffer.concat([basePdf(), Buffer.from('%%EOF\n'.repeat(1_000_000))]))).toBe(
      'invalid',
    );
  });

  it('bytes that are not a PDF, or a PDF with no catalog', async () => {
    expect(await outcome(Buffer.from('%PDF-1.7\n'))).toBe('not a pdf');
    expect(await outcome(Buffer.from('hello'))).toBe('not a pdf');
  });
});

describe.skipIf(NO_OPENSSL)('hostile signatures', () => {
  let pki: Pki;
  let ca: Party;
  let signer: Party;
  let trusted: Uint8Array[];
  let signed: Buffer;
  beforeAll(async () => {
    pki = new Pki(tempDir('sign-cli-hostile-'));
    ca = pki.ca('Hostile CA');
    signer = pki.issue(ca, 'Hostile Signer');
    trusted = [
      new Uint8Array(Buffer.from(readFileSync(ca.cert, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64')),
    ];
    signed = await addSignature(basePdf(), { field: 'Sig', sign: (bytes) => pki.cms(bytes, signer, ca) });
  });

  it('a CMS cut short at every length is invalid, never a crash', async () => {
    const cms = pki.cms(Buffer.from('x'), signer, ca);
    for (let cut = 0; cut < cms.length; cut += 37) {
      const pdf = await addSignature(basePdf(), { field: 'Sig', sign: () => cms.subarray(0, cut) });
      expect(await outcome(pdf, trusted)).toBe('invalid');
    }
  });

  it('a byte flipped anywhere the signature covers, or appended, is never valid', async () => {
    expect(await outcome(signed, trusted)).toBe('valid');
    const range = /\/ByteRange \[0 +(\d+) +(\d+) +(\d+)\]/.exec(signed.toString('latin1'))!;
    const [gapStart, gapEnd] = [Number(range[1]), Number(range[2])];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    for (let i = 0; i < 300; i++) {
      const at = next(signed.length);
      if (at >= gapStart && at < gapEnd) continue;
      const copy = Buffer.from(signed);
      copy[at] = copy[at]! ^ (1 << next(8));
      expect(await outcome(copy, trusted), `byte ${at}`).not.toBe('valid');
    }
    expect(
      await outcome(
        appendRevision(signed, { 3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>' }),
        trusted,
      ),
    ).toBe('invalid');
  });
});

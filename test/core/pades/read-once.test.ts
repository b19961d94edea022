/**
 * What the verifier reads faster than byte by byte, or once for the same bytes (issue 54's
 * start-up of `verify`), read the same as before: the byte range's gap compared by Node first,
 * in every case the byte-by-byte comparison decides; a certificate parsed once per bytes from
 * its own copy (what is kept for the next file holds no view of this one); the file's SHA-256
 * going on from a signature's digest of its start; and the bounded memo what is worked out once
 * is kept in.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyPdf } from '../../../src/core/pades/verify.js';
import { addSignature, basePdf } from '../../helpers/pdf-build.js';
import { NO_OPENSSL, Pki } from '../../helpers/openssl-pki.js';
import { byteRange } from '../../../src/core/pades/signature-base.js';
import type { PdfSignature } from '../../../src/core/pades/pdf-signatures.js';
import { parseCertificate } from '../../../src/core/pades/x509.js';
import { BoundedMemo } from '../../../src/core/pades/bounded-memo.js';
import { SandboxCa } from '../../../src/sandbox/signing/signing-identity.js';
import { tempDir } from '../../helpers/paths.js';

const CONTENTS = Uint8Array.from([0x30, 0x82, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x7f]);

/** A file `before<gap>after` and a signature whose byte range leaves out exactly `<gap>`. */
function signedAround(gap: string): { pdf: Buffer; signature: PdfSignature } {
  const before = '%PDF-1.7\n1 0 obj << /Contents ';
  const after = ' >> endobj\n%%EOF\n';
  const pdf = Buffer.from(`${before}<${gap}>${after}`, 'latin1');
  const start2 = before.length + gap.length + 2;
  const signature = {
    byteRange: [0, before.length, start2, pdf.length - start2],
    contents: CONTENTS,
    contentsTooLong: null,
  } as unknown as PdfSignature;
  return { pdf, signature };
}

const holds = (gap: string) => {
  const { pdf, signature } = signedAround(gap);
  return byteRange(pdf, signature).check.ok;
};

const hex = Buffer.from(CONTENTS).toString('hex');

describe('what is worked out once (BoundedMemo)', () => {
  it('makes a value once per key, keeps null, and forgets all at its bound rather than grow', () => {
    const memo = new BoundedMemo<number | null>(3);
    let made = 0;
    const make = (value: number | null) => () => (made++, value);
    expect(memo.get('a', make(1))).toBe(1);
    expect(memo.get('a', make(9))).toBe(1);
    expect(memo.get('b', make(null))).toBeNull();
    expect(memo.get('b', make(9))).toBeNull();
    expect(made).toBe(2);
    memo.get('c', make(3));
    // Full: the fourth key clears the three before it.
    expect(memo.get('d', make(4))).toBe(4);
    expect(memo.get('a', make(5))).toBe(5);
    expect(made).toBe(5);
  });
});

describe("the byte range's gap", () => {
  it("holds the signature's /Contents in hex of either case, with or without white-space", () => {
    expect(holds(hex)).toBe(true);
    expect(holds(hex.toUpperCase())).toBe(true);
    expect(holds(`${hex.slice(0, 4)}\n${hex.slice(4, 9).toUpperCase()} ${hex.slice(9)}`)).toBe(true);
  });

  it('holds nothing else: another digit, a non-hex byte, a digit too many or too few', () => {
    expect(holds(`${hex.slice(0, -1)}e`)).toBe(false);
    // Latin-1 letters lower-case to other letters, never to a hex digit.
    expect(holds(`${hex.slice(0, -2)}\u00c0f`)).toBe(false);
    expect(holds(`${hex.slice(0, -2)}Gf`)).toBe(false);
    expect(holds(`${hex}0`)).toBe(false);
    expect(holds(`${hex.slice(0, -1)} `)).toBe(false);
  });
});

describe('a certificate', () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is parsed once for the same bytes, wherever they are, into views of its own copy', async () => {
    const { ca } = await SandboxCa.open(dir, new Date());
    // The same certificate inside two larger buffers (a file and a CMS that carry it).
    const inFile = Buffer.concat([Buffer.alloc(100, 1), ca, Buffer.alloc(100, 2)]).subarray(
      100,
      100 + ca.length,
    );
    const inCms = Buffer.concat([Buffer.alloc(7), ca]).subarray(7);
    const first = parseCertificate(inFile);
    expect(parseCertificate(inCms)).toBe(first);
    // Bytes after it (a stream's padding) are no part of it.
    expect(parseCertificate(Buffer.concat([ca, Buffer.alloc(50, 9)]))).toBe(first);
    expect(Buffer.from(first.der).equals(ca)).toBe(true);
    // Nothing it keeps holds the file it was found in.
    for (const view of [first.der, first.tbs, first.issuer, first.subject, first.spki, first.signature])
      expect(view.buffer.byteLength).toBe(ca.length);
  });
});

describe.skipIf(NO_OPENSSL)("the file's SHA-256", () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is the whole file's after a signature hashed its start, and of the bytes as they are at each verification", async () => {
    const pki = new Pki(dir);
    const ca = pki.ca('Read-once CA');
    const signer = pki.issue(ca, 'Read-once Signer');
    const pdf = await addSignature(basePdf(), { field: 'Sig', sign: (bytes) => pki.cms(bytes, signer, ca) });
    const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    const first = await verifyPdf(pdf, { systemRoots: false });
    expect(first.signatures[0]!.checks.find((c) => c.check === 'digest')?.ok).toBe(true);
    expect(first.sha256).toBe(sha256(pdf));
    // The same buffer changed in place, inside the signed range: its own hash, not the last one's.
    pdf[pdf.indexOf(' ')] = 0x0a;
    const second = await verifyPdf(pdf, { systemRoots: false });
    expect(second.signatures[0]!.checks.find((c) => c.check === 'digest')?.ok).toBe(false);
    expect(second.sha256).toBe(sha256(pdf));
  });
});

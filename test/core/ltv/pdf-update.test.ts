/**
 * The core's incremental-update writer (core/ltv), judged by qpdf and OpenSSL:
 * a document timestamp and a DSS appended to a file whose cross-reference is a
 * table and to one whose cross-reference is a stream (qpdf rewrites it so),
 * each result read by qpdf without a complaint, the original bytes a prefix
 * of it, its token verified by `openssl ts -verify`, and the DSS added to
 * without duplicates; an encrypted file and one with bytes after its %%EOF
 * refused.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/paths.js';
import { NO_OPENSSL, Pki } from '../../helpers/openssl-pki.js';
import { missingTools } from '../../helpers/system-tools.js';
import { basePdf } from '../../helpers/pdf-build.js';
import { dssOf, lastDocumentTimestamp, openssl } from '../../helpers/ltv.js';
import { appendDocumentTimestamp } from '../../../src/core/ltv/document-timestamp.js';
import { addToDss } from '../../../src/core/ltv/dss.js';
import { UpdateRefusedError } from '../../../src/core/ltv/pdf-update.js';
import { verifyPdf } from '../../../src/core/pades/verify.js';
import { pemToDer } from '../../../src/sandbox/signing/web-crypto.js';

const NO_QPDF = missingTools(['qpdf'], 'qpdf', "the checks of the core's PDF updates");

describe.skipIf(NO_OPENSSL || NO_QPDF)('an incremental update', { timeout: 120_000 }, () => {
  const dir = tempDir('sign-cli-pdf-update-');
  const pki = new Pki(dir);
  const ca = pki.ca('Update CA');
  const tsa = pki.issue(ca, 'Update TSA', { timestamping: true });
  const stamp = (digest: Uint8Array) => Promise.resolve(new Uint8Array(pki.timestampDigest(digest, tsa, ca)));
  const caDer = pemToDer(readFileSync(ca.cert, 'utf8'));
  const qpdfCheck = (file: string) => {
    try {
      return execFileSync('qpdf', ['--check', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      return `${e.stdout ?? ''}${e.stderr ?? ''}`;
    }
  };

  it.each([
    ['a cross-reference table', (pdf: Buffer) => pdf],
    [
      'a cross-reference stream',
      (pdf: Buffer) => {
        writeFileSync(join(dir, 'plain.pdf'), pdf);
        execFileSync('qpdf', ['--object-streams=generate', join(dir, 'plain.pdf'), join(dir, 'streams.pdf')]);
        return readFileSync(join(dir, 'streams.pdf'));
      },
    ],
  ])('is written after %s as the file wrote its own, and qpdf and OpenSSL accept it', async (name, make) => {
    const original = make(basePdf());
    const data = { certificates: [caDer], ocspResponses: [], crls: [] };
    const first = await appendDocumentTimestamp(original, (update) => void addToDss(update, data), stamp);
    expect(first.bytes.subarray(0, original.length).equals(original)).toBe(true);
    const tail = first.bytes.subarray(original.length).toString('latin1');
    expect(tail.includes('\nxref\n')).toBe(name === 'a cross-reference table');
    expect(tail.includes('/Type /XRef')).toBe(name === 'a cross-reference stream');
    // Again, over the first: the same certificate is not added twice, and the second timestamp covers the first.
    const second = await appendDocumentTimestamp(first.bytes, (update) => void addToDss(update, data), stamp);
    expect(first.field).toBe('Timestamp1');
    expect(second.field).toBe('Timestamp2');
    expect(dssOf(second.bytes).certificates).toHaveLength(1);
    const file = join(dir, `${name.replace(/\W+/g, '-')}.pdf`);
    writeFileSync(file, second.bytes);
    expect(qpdfCheck(file)).toContain('No syntax or stream encoding errors found');
    const token = lastDocumentTimestamp(second.bytes);
    writeFileSync(join(dir, 'token.der'), token.token);
    expect(
      openssl(
        dir,
        'ts',
        '-verify',
        '-token_in',
        '-in',
        'token.der',
        '-digest',
        token.digest,
        '-CAfile',
        ca.cert,
      ),
    ).toContain('Verification: OK');
    const verdict = await verifyPdf(second.bytes, { trusted: [caDer], systemRoots: false });
    expect(verdict.signatures.map((s) => [s.field, s.type, s.valid])).toEqual([
      ['Timestamp1', 'document timestamp', true],
      ['Timestamp2', 'document timestamp', true],
    ]);
    expect(verdict.valid).toBe(true);
  });

  it('is refused for an encrypted file, and for one with bytes after its last %%EOF', async () => {
    writeFileSync(join(dir, 'clear.pdf'), basePdf());
    execFileSync('qpdf', [
      '--encrypt',
      '',
      'owner',
      '256',
      '--',
      join(dir, 'clear.pdf'),
      join(dir, 'locked.pdf'),
    ]);
    const nothing = () => undefined;
    await expect(
      appendDocumentTimestamp(readFileSync(join(dir, 'locked.pdf')), nothing, stamp),
    ).rejects.toThrow(new UpdateRefusedError('it is encrypted'));
    const trailing = Buffer.concat([basePdf(), Buffer.from('garbage that is no revision\n')]);
    await expect(appendDocumentTimestamp(trailing, nothing, stamp)).rejects.toThrow(UpdateRefusedError);
  });
});

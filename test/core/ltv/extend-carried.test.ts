/**
 * What `extend` moves into the DSS from where a file already carries it: Acrobat's
 * adbe-revocationInfoArchival (DSS's test file adbe_ocsp_signed.pdf, read from
 * ../shared/pades-realworld, never copied here) holds an OCSP response signed with the signature;
 * the renewal puts that response, found by verify's own reader, into the DSS, where OpenSSL reads
 * it as the responder's answer about the signer. The document timestamp is OpenSSL's TSA's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extendPdf } from '../../../src/core/ltv/extend.js';
import { tempDir } from '../../helpers/paths.js';
import { NO_OPENSSL, Pki } from '../../helpers/openssl-pki.js';
import { CORPUS, present } from '../../helpers/pades-corpus.js';
import { dssOf, openssl } from '../../helpers/ltv.js';

describe.skipIf(NO_OPENSSL || !present)('extend of a file that carries revocation data in its CMS', () => {
  it("moves adbe-revocationInfoArchival's OCSP response into the DSS, the earlier bytes untouched", async () => {
    const dir = tempDir('sign-cli-extend-carried-');
    const pki = new Pki(dir);
    const ca = pki.ca('Stamp CA');
    const tsa = pki.issue(ca, 'Stamp TSA', { timestamping: true });
    const original = readFileSync(join(CORPUS, 'dss', 'adbe_ocsp_signed.pdf'));
    expect(dssOf(original).ocspResponses).toHaveLength(0);
    const result = await extendPdf(original, {
      stamp: (sha256) => Promise.resolve(pki.timestampDigest(sha256, tsa, ca)),
      verify: { now: new Date('2026-06-01T00:00:00Z') },
    });
    expect(result.added.ocspResponses).toBe(1);
    expect(result.bytes.subarray(0, original.length).equals(original)).toBe(true);
    const [response] = dssOf(result.bytes).ocspResponses;
    writeFileSync(join(dir, 'carried.der'), response!);
    // An OCSPResponse as a DSS keeps it, successful, as OpenSSL reads it.
    const text = openssl(dir, 'ocsp', '-respin', 'carried.der', '-resp_text', '-noverify');
    expect(text).toContain('OCSP Response Status: successful (0x0)');
    expect(text).toContain('Cert Status: good');
  });
});

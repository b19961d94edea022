/**
 * A one-signature PAdES B-LTA copy made from OpenSSL's parts, for `npm run bench verify` (which
 * bundles this file with esbuild) until the sandbox's own copies are B-LTA: a CMS by `openssl cms`,
 * its signature timestamp by `openssl ts`, a DSS with the CA's and the TSA's certificates and
 * `openssl ocsp`'s responses for the signer and the TSA, then a document timestamp, written by
 * pdf-build.ts and pdf-ltv.ts. Trusting `caFile`, it verifies (exit 0).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addSignature, basePdf } from './pdf-build.js';
import { Pki, signatureValue, withSignatureTimestamp } from './openssl-pki.js';
import { DAY, OpenSslCa } from './openssl-ca.js';
import { withDss } from './pdf-ltv.js';

export async function bltaCopy(dir: string): Promise<{ file: string; caFile: string }> {
  const pki = new Pki(dir);
  const ca = new OpenSslCa(dir, 'Bench CA');
  const tsa = ca.issue('Bench TSA', { kind: 'tsa', notAfter: new Date(Date.now() + 700 * DAY) });
  const signer = ca.issue('Bench Signer');
  const signed = await addSignature(basePdf(), {
    field: 'Signature1',
    sign: (bytes) => {
      const cms = pki.cms(bytes, signer, ca.party);
      return withSignatureTimestamp(cms, pki.timestamp(signatureValue(cms), tsa, ca.party));
    },
  });
  const lt = withDss(signed, {
    certs: [ca.der(), ca.der(tsa)],
    ocsps: [ca.ocspResponse(signer), ca.ocspResponse(tsa)],
  });
  const lta = await addSignature(lt, {
    field: 'Archive',
    subFilter: 'ETSI.RFC3161',
    sign: (bytes) => pki.timestamp(bytes, tsa, ca.party),
  });
  const file = join(dir, 'blta.pdf');
  writeFileSync(file, lta);
  const caFile = join(dir, 'bench-ca.pem');
  writeFileSync(caFile, readFileSync(ca.party.cert));
  return { file, caFile };
}

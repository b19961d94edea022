/**
 * A signed copy made PAdES B-LTA (ETSI EN 319 142-1): after its signature
 * (B-T, pades.ts), one incremental update with the document security store
 * (the CA, signing and TSA certificates; an OCSP response for the signing
 * and the TSA certificate; the CA's CRL) and a document timestamp over all of
 * it, by the core's writer (core/ltv), as `envelopes extend` adds them.
 *
 * All of it speaks as of the completion time T, so that a copy made again is
 * the same bytes: the status is what the CA had recorded by T, the responses
 * and the CRL are dated the next whole second (after the signature's
 * timestamp, which is at T: revocation data issued after the time it speaks
 * for, as validators look for), and the document timestamp a second later.
 */
import { appendDocumentTimestamp } from '../../core/ltv/document-timestamp.js';
import { addToDss } from '../../core/ltv/dss.js';
import * as pkijs from 'pkijs';
import { crlAt, ocspResponseFor, wholeSeconds, type StatusSigner } from './revocation-status.js';
import type { SigningIdentity } from './signing-identity.js';
import { timestampOfDigest } from './tsa.js';

/** Room for the sandbox TSA's token (about 3 KB: its signature and two certificates). */
const TOKEN_ROOM = 6144;

/** The signed PDF with its validation data and a document timestamp, as of `completion`. */
export async function archivedCopy(
  signedPdf: Uint8Array,
  ca: StatusSigner,
  identity: SigningIdentity,
  completion: Date,
): Promise<Buffer> {
  const issued = new Date(wholeSeconds(completion).getTime() + 1000);
  const stampedAt = new Date(issued.getTime() + 1000);
  const serialOf = (der: Uint8Array) =>
    Buffer.from(pkijs.Certificate.fromBER(der).serialNumber.valueBlock.valueHexView).toString('hex');
  const data = {
    certificates: [identity.certificate, identity.tsa.certificate, identity.ca],
    ocspResponses: [
      await ocspResponseFor(ca, serialOf(identity.certificate), issued, completion),
      await ocspResponseFor(ca, serialOf(identity.tsa.certificate), issued, completion),
    ],
    crls: [await crlAt(ca, issued, completion)],
  };
  const { bytes } = await appendDocumentTimestamp(
    signedPdf,
    (update) => void addToDss(update, data),
    async (digest) => {
      const token = await timestampOfDigest(identity.tsa, digest, stampedAt);
      return new Uint8Array(token.toSchema().toBER(false));
    },
    TOKEN_ROOM,
  );
  return bytes;
}

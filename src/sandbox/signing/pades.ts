/**
 * Signing a PDF the way signing services deliver a signed copy: PAdES
 * baseline B-T (ETSI EN 319 142-1), a CMS SignedData detached over the whole
 * file but the signature itself (`/SubFilter /ETSI.CAdES.detached`), SHA-256.
 * @signpdf adds the signature dictionary (an incremental update) and fills in
 * the byte ranges; pkijs makes the CMS. The signed attributes are those
 * PAdES B-B asks for: content type, message digest and the ESS
 * signing-certificate-v2 (the signer's certificate, bound by its hash); the
 * signing time is the dictionary's /M, as PAdES wants, not a CMS attribute.
 * The signature value is then timestamped by the sandbox's TSA (tsa.ts) and
 * the token added as the unsigned attribute id-aa-signatureTimeStampToken:
 * B-T, the time proved rather than claimed.
 */
import { createHash } from 'node:crypto';
import * as pkijs from 'pkijs';
import { plainAddPlaceholder } from '@signpdf/placeholder-plain';
import { SignPdf } from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import type { SigningIdentity } from './signing-identity.js';
import type { TsaIdentity } from './tsa.js';
import { usePkijsWithNodeCrypto } from './web-crypto.js';
import { timestampOf } from './tsa.js';
import { signedData } from './cms-builder.js';

usePkijsWithNodeCrypto(pkijs);

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
};

/** Room for the CMS in the file: the signature, two certificates, the attributes and the timestamp token (two more certificates), with margin. */
const SIGNATURE_LENGTH = 12288;

/** Who signs: the sandbox's identity, or (in tests) a certificate of another CA, with no TSA (B-B). */
export type PdfSigner = Omit<SigningIdentity, 'tsa'> & { tsa?: TsaIdentity };

class CadesSigner extends Signer {
  constructor(
    private readonly identity: PdfSigner,
    private readonly signingTime: Date,
  ) {
    super();
  }

  override async sign(signedBytes: Buffer): Promise<Buffer> {
    const signed = await signedData({
      certificate: this.identity.certificate,
      privateKey: this.identity.privateKey,
      certificates: [this.identity.certificate, this.identity.ca],
      contentType: OID.data,
      content: { digest: createHash('sha256').update(signedBytes).digest() },
    });
    const info = signed.signerInfos[0]!;
    if (this.identity.tsa) {
      // Timestamped at the signing time: the sandbox is its own TSA, and the copy must be the same bytes every time.
      const token = await timestampOf(
        this.identity.tsa,
        new Uint8Array(info.signature.valueBlock.valueHexView),
        this.signingTime,
      );
      info.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
        type: 1,
        attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [token.toSchema()] })],
      });
    }
    const content = new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) });
    return Buffer.from(content.toSchema().toBER(false));
  }
}

/** The PDF with a PAdES signature over all of it, by the sandbox's signing certificate, at `signingTime`, timestamped by its TSA (B-T; B-B without one). */
export async function signPdf(pdf: Buffer, identity: PdfSigner, signingTime: Date): Promise<Buffer> {
  const prepared = plainAddPlaceholder({
    pdfBuffer: pdf,
    reason: 'Signed copy of a completed envelope',
    contactInfo: 'sandbox@sign-cli.invalid',
    name: 'sign-cli sandbox signing service',
    location: 'sign-cli sandbox',
    signingTime,
    signatureLength: SIGNATURE_LENGTH,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    // A PDF name: no spaces (a space ends it, and the rest is taken for a key).
    appName: 'sign-cli-sandbox',
  });
  return new SignPdf().sign(
    startxrefAtKeyword(prepared),
    new CadesSigner(identity, signingTime),
    signingTime,
  );
}

/**
 * @signpdf's update names, after `startxref`, the newline before its `xref` keyword: readers
 * skip it, but qpdf --check warns of it. Pointed at the keyword before the bytes are signed.
 */
function startxrefAtKeyword(pdf: Buffer): Buffer {
  const at = pdf.lastIndexOf('startxref');
  const found = /^startxref\s+(\d+)/.exec(pdf.toString('latin1', at, at + 40));
  if (at === -1 || !found) return pdf;
  const named = Number(found[1]);
  let keyword = named;
  while (pdf[keyword] === 0x0a || pdf[keyword] === 0x0d || pdf[keyword] === 0x20) keyword++;
  if (keyword === named || pdf.toString('latin1', keyword, keyword + 4) !== 'xref') return pdf;
  return Buffer.concat([
    pdf.subarray(0, at),
    Buffer.from(`startxref\n${keyword}`, 'latin1'),
    pdf.subarray(at + found[0].length),
  ]);
}

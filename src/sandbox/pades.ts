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
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { plainAddPlaceholder } from '@signpdf/placeholder-plain';
import { SignPdf } from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import type { SigningIdentity } from './signing-identity.js';
import { usePkijsWithNodeCrypto } from '../core/web-crypto.js';
import { timestampOf } from './tsa.js';

usePkijsWithNodeCrypto(pkijs);

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
};

/** Room for the CMS in the file: the signature, two certificates, the attributes and the timestamp token (two more certificates), with margin. */
const SIGNATURE_LENGTH = 12288;

class CadesSigner extends Signer {
  constructor(
    private readonly identity: SigningIdentity,
    private readonly signingTime: Date,
  ) {
    super();
  }

  override async sign(signedBytes: Buffer): Promise<Buffer> {
    const signer = pkijs.Certificate.fromBER(this.identity.certificate);
    const ca = pkijs.Certificate.fromBER(this.identity.ca);
    const digest = createHash('sha256').update(signedBytes).digest();
    // ESS signing-certificate-v2 (RFC 5035): [[ESSCertIDv2{ certHash, issuerSerial{ GeneralNames[directoryName], serial } }]].
    const issuerSerial = new asn1js.Sequence({
      value: [
        new asn1js.Sequence({ value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [signer.issuer.toSchema()] })] }),
        signer.serialNumber,
      ],
    });
    const certHash = createHash('sha256').update(this.identity.certificate).digest();
    const signingCertificateV2 = new asn1js.Sequence({
      value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash }), issuerSerial] })] })],
    });
    const signedData = new pkijs.SignedData({
      version: 1,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
      signerInfos: [
        new pkijs.SignerInfo({
          version: 1,
          sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
          signedAttrs: new pkijs.SignedAndUnsignedAttributes({
            type: 0,
            attributes: [
              new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
              new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: digest })] }),
              new pkijs.Attribute({ type: OID.signingCertificateV2, values: [signingCertificateV2] }),
            ],
          }),
        }),
      ],
      certificates: [signer, ca],
    });
    await signedData.sign(this.identity.privateKey as unknown as Parameters<typeof signedData.sign>[0], 0, 'SHA-256');
    const info = signedData.signerInfos[0]!;
    if (this.identity.tsa) {
      // Timestamped at the signing time: the sandbox is its own TSA, and the copy must be the same bytes every time.
      const token = await timestampOf(this.identity.tsa, new Uint8Array(info.signature.valueBlock.valueHexView), this.signingTime);
      info.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [token.toSchema()] })] });
    }
    const content = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
    return Buffer.from(content.toSchema().toBER(false));
  }
}

/** The PDF with a PAdES signature over all of it, by the sandbox's signing certificate, at `signingTime` (timestamped when the identity has a TSA). */
export async function signPdf(pdf: Buffer, identity: SigningIdentity, signingTime: Date): Promise<Buffer> {
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
  return new SignPdf().sign(prepared, new CadesSigner(identity, signingTime), signingTime);
}

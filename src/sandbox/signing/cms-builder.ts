/**
 * The CMS SignedData the sandbox writes, for its signed copies (pades.ts) and
 * its timestamp tokens (tsa.ts): one signer named by issuer and serial, the
 * signed attributes CAdES asks for (content type, message digest, ESS
 * signing-certificate-v2 binding the signer's certificate by its SHA-256,
 * with its issuer and serial), SHA-256 with the signer's RSA key.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { usePkijsWithNodeCrypto } from './web-crypto.js';
import type { CryptoKey } from './key-files.js';

usePkijsWithNodeCrypto(pkijs);

const OID = {
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
} as const;

export interface SignedDataInput {
  /** The signer's certificate (DER) and key; `certificates` are carried in the CMS (DER). */
  certificate: Uint8Array;
  privateKey: CryptoKey;
  certificates: Uint8Array[];
  contentType: string;
  /** The content, attached (a TSTInfo), or only its SHA-256 for a detached signature. */
  content: { attached: Uint8Array } | { digest: Uint8Array };
}

/** A signed SignedData (RFC 5652) with CAdES's signed attributes. */
export async function signedData(input: SignedDataInput): Promise<pkijs.SignedData> {
  const signer = pkijs.Certificate.fromBER(input.certificate);
  const digest =
    'digest' in input.content
      ? input.content.digest
      : createHash('sha256').update(input.content.attached).digest();
  // ESS signing-certificate-v2 (RFC 5035): [[ESSCertIDv2{ certHash, issuerSerial{ GeneralNames[directoryName], serial } }]].
  const issuerSerial = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [
          new asn1js.Constructed({
            idBlock: { tagClass: 3, tagNumber: 4 },
            value: [signer.issuer.toSchema()],
          }),
        ],
      }),
      signer.serialNumber,
    ],
  });
  const certHash = createHash('sha256').update(input.certificate).digest();
  const essV2 = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [
          new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash }), issuerSerial] }),
        ],
      }),
    ],
  });
  const attached = 'attached' in input.content ? input.content.attached : undefined;
  const data = new pkijs.SignedData({
    version: attached ? 3 : 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: input.contentType,
      ...(attached ? { eContent: new asn1js.OctetString({ valueHex: attached }) } : {}),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({
              type: OID.contentType,
              values: [new asn1js.ObjectIdentifier({ value: input.contentType })],
            }),
            new pkijs.Attribute({
              type: OID.messageDigest,
              values: [new asn1js.OctetString({ valueHex: digest })],
            }),
            new pkijs.Attribute({ type: OID.signingCertificateV2, values: [essV2] }),
          ],
        }),
      }),
    ],
    ...(input.certificates.length > 0
      ? { certificates: input.certificates.map((der) => pkijs.Certificate.fromBER(der)) }
      : {}),
  });
  await data.sign(input.privateKey, 0, 'SHA-256');
  return data;
}

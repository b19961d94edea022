/**
 * The sandbox's timestamp authority (RFC 3161): tokens signed with the TSA
 * certificate the sandbox CA issued (signing-identity.ts: the timeStamping
 * purpose, critical, as RFC 3161 wants; `tsa.pem`, its key `tsa-key.pem`,
 * 0600). It timestamps every signed copy's signature (PAdES B-T) and the copy
 * itself (its document timestamp, B-LTA), and answers `POST /_sandbox/tsa`
 * (`application/timestamp-query`), so users and tests can timestamp their
 * own files. RSA PKCS#1 v1.5, deterministic: a signed copy made again is the
 * same bytes, since its token's time is the completion time and its serial
 * the hash of what it stamps.
 */
import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { usePkijsWithNodeCrypto } from './web-crypto.js';
import type { CryptoKey } from './key-files.js';
import { signedData } from './cms-builder.js';

usePkijsWithNodeCrypto(pkijs);

/** The sandbox's timestamp policy: an OID under the arc ITU-T X.660 sets aside for examples. */
const POLICY = '2.999.1.3161';
const OID = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;
const HASHES: Record<string, number> = {
  '2.16.840.1.101.3.4.2.1': 32,
  '2.16.840.1.101.3.4.2.2': 48,
  '2.16.840.1.101.3.4.2.3': 64,
};

export interface TsaIdentity {
  certificate: Uint8Array;
  ca: Uint8Array;
  privateKey: CryptoKey;
}

export interface TokenRequest {
  /** The imprint's hash algorithm (OID) and value. */
  hashOid: string;
  hashed: Uint8Array;
  genTime: Date;
  nonce?: asn1js.Integer;
  /** Carry the TSA's certificates in the token (certReq). */
  certificates: boolean;
  /** The serial; by default the hash of the imprint and the time (deterministic). */
  serial?: Uint8Array;
}

/**
 * The bytes of a serial as a positive INTEGER in DER's one encoding: the high bit of the first
 * byte clear, and that byte never 0 (a leading zero the next byte does not need is "illegal
 * padding" to OpenSSL, which then refuses the whole token; random serials met it once in 256).
 */
export function positiveSerial(serial: Uint8Array): Uint8Array {
  return Uint8Array.from([Math.max(1, serial[0]! & 0x7f), ...serial.subarray(1)]);
}

/** An RFC 3161 timestamp token (a ContentInfo with SignedData over a TSTInfo). */
export async function timestampToken(tsa: TsaIdentity, request: TokenRequest): Promise<pkijs.ContentInfo> {
  const serial =
    request.serial ??
    createHash('sha256')
      .update(request.hashed)
      .update(request.genTime.toISOString())
      .digest()
      .subarray(0, 12);
  const tstInfo = new pkijs.TSTInfo({
    version: 1,
    policy: POLICY,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: request.hashOid }),
      hashedMessage: new asn1js.OctetString({ valueHex: request.hashed }),
    }),
    serialNumber: new asn1js.Integer({ valueHex: positiveSerial(serial) }),
    genTime: request.genTime,
    accuracy: new pkijs.Accuracy({ seconds: 1 }),
    ...(request.nonce ? { nonce: request.nonce } : {}),
  });
  const signed = await signedData({
    certificate: tsa.certificate,
    privateKey: tsa.privateKey,
    certificates: request.certificates ? [tsa.certificate, tsa.ca] : [],
    contentType: OID.tstInfo,
    content: { attached: new Uint8Array(tstInfo.toSchema().toBER(false)) },
  });
  return new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) });
}

/** A token over the SHA-256 of `data`, at `genTime`, with the TSA's certificates (for the signed copies). */
export function timestampOf(tsa: TsaIdentity, data: Uint8Array, genTime: Date): Promise<pkijs.ContentInfo> {
  return timestampOfDigest(tsa, createHash('sha256').update(data).digest(), genTime);
}

/** A token over a SHA-256 digest, at `genTime`, with the TSA's certificates (a signed copy's document timestamp). */
export function timestampOfDigest(
  tsa: TsaIdentity,
  sha256: Uint8Array,
  genTime: Date,
): Promise<pkijs.ContentInfo> {
  return timestampToken(tsa, { hashOid: OID.sha256, hashed: sha256, genTime, certificates: true });
}

export class BadTimestampRequest extends Error {}

/**
 * The answer to a DER TimeStampReq: a TimeStampResp granting a token at `now`,
 * or rejecting an imprint whose hash it does not support (badAlg), as TSAs do.
 * BadTimestampRequest when the body is not a TimeStampReq at all.
 */
export async function answerTimestampRequest(
  tsa: TsaIdentity,
  body: Uint8Array,
  now: Date,
): Promise<Uint8Array> {
  let request: pkijs.TimeStampReq;
  try {
    request = pkijs.TimeStampReq.fromBER(body);
  } catch {
    throw new BadTimestampRequest(
      'the body is not a DER TimeStampReq (RFC 3161): make one with `openssl ts -query -data <file> -sha256 -cert`',
    );
  }
  const hashOid = request.messageImprint.hashAlgorithm.algorithmId;
  const hashed = new Uint8Array(request.messageImprint.hashedMessage.valueBlock.valueHexView);
  if (HASHES[hashOid] !== hashed.length) {
    // PKIStatus rejection (2) with PKIFailureInfo badAlg (bit 0).
    const status = new pkijs.PKIStatusInfo({
      status: 2,
      statusStrings: [
        new asn1js.Utf8String({ value: 'the sandbox TSA takes SHA-256, SHA-384 or SHA-512 imprints' }),
      ],
      failInfo: new asn1js.BitString({ valueHex: new Uint8Array([0x80]), unusedBits: 7 }),
    });
    return new Uint8Array(new pkijs.TimeStampResp({ status }).toSchema().toBER(false));
  }
  const token = await timestampToken(tsa, {
    hashOid,
    hashed,
    genTime: now,
    certificates: request.certReq === true,
    serial: randomBytes(12),
    ...(request.nonce ? { nonce: request.nonce } : {}),
  });
  return new Uint8Array(
    new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: 0 }), timeStampToken: token })
      .toSchema()
      .toBER(false),
  );
}

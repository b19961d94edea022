/**
 * The sandbox's signing identity: a certificate authority of its own and a
 * signing certificate it issued, made on first start with @peculiar/x509 (no
 * hand-written ASN.1) and kept in the data dir (`ca.pem`, published at
 * GET /_sandbox/ca.pem; `signing.pem`; both private keys 0600). RSA with
 * PKCS#1 v1.5 signatures, whose signatures are deterministic: the same
 * document signed twice is the same bytes, so a signed copy rendered again
 * matches the hash its audit trail recorded.
 */
import 'reflect-metadata';
import { pemToDer as der, webcrypto } from './web-crypto.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import {
  ALGORITHM,
  importSigningKey as importKey,
  pem,
  writePrivateFile,
  type CryptoKey,
} from './key-files.js';
import { tsaIdentity, type TsaIdentity } from './tsa.js';

x509.cryptoProvider.set(webcrypto() as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export const CA_FILE = 'ca.pem';
const CA_KEY_FILE = 'ca-key.pem';
const SIGNING_FILE = 'signing.pem';
const SIGNING_KEY_FILE = 'signing-key.pem';

const YEAR_MS = 365 * 86_400_000;

export interface SigningIdentity {
  /** The CA certificate (DER) and the path of its PEM. */
  ca: Uint8Array;
  caFile: string;
  /** The signing certificate (DER) and its private key. */
  certificate: Uint8Array;
  privateKey: CryptoKey;
  /** The timestamp authority that stamps its signatures (PAdES B-T); without one, signatures are B-B. */
  tsa?: TsaIdentity;
}

/** The identity in `dataDir`, made on first use. `now` dates the certificates (the sandbox's clock). */
export async function signingIdentity(dataDir: string, now: Date): Promise<SigningIdentity> {
  const caFile = join(dataDir, CA_FILE);
  const files = [caFile, join(dataDir, SIGNING_FILE), join(dataDir, SIGNING_KEY_FILE)];
  if (files.every((file) => existsSync(file))) {
    const ca = der(readFileSync(caFile, 'utf8'));
    return {
      ca,
      caFile,
      certificate: der(readFileSync(files[1]!, 'utf8')),
      privateKey: await importKey(readFileSync(files[2]!, 'utf8')),
      // A data dir from before the TSA gets one now, from its own CA.
      tsa: await tsaIdentity(dataDir, ca),
    };
  }
  // Valid from a day before now: a client whose clock is a little behind still accepts them.
  const notBefore = new Date(now.getTime() - 86_400_000);
  const caKeys = await webcrypto().subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto().getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[089a-f]/, '1'),
    name: 'CN=sign-cli sandbox CA, O=sign-cli sandbox',
    notBefore,
    notAfter: new Date(now.getTime() + 20 * YEAR_MS),
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = await webcrypto().subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(webcrypto().getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[089a-f]/, '1'),
    subject: 'CN=sign-cli sandbox signing service, O=sign-cli sandbox',
    issuer: ca.subject,
    notBefore,
    notAfter: new Date(now.getTime() + 10 * YEAR_MS),
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca, false),
    ],
  });
  // Keys first, certificates last: a start cut short leaves no certificate without its key.
  writePrivateFile(
    join(dataDir, CA_KEY_FILE),
    pem('PRIVATE KEY', await webcrypto().subtle.exportKey('pkcs8', caKeys.privateKey)),
  );
  writePrivateFile(
    files[2]!,
    pem('PRIVATE KEY', await webcrypto().subtle.exportKey('pkcs8', keys.privateKey)),
  );
  writePrivateFile(files[1]!, certificate.toString('pem'));
  writePrivateFile(caFile, ca.toString('pem'));
  const caDer = new Uint8Array(ca.rawData);
  return {
    ca: caDer,
    caFile,
    certificate: new Uint8Array(certificate.rawData),
    privateKey: await importKey(readFileSync(files[2]!, 'utf8')),
    tsa: await tsaIdentity(dataDir, caDer),
  };
}

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
import type { webcrypto as WebCrypto } from 'node:crypto';
import { pemToDer as der, webcrypto } from '../core/web-crypto.js';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto() as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = WebCrypto.CryptoKey;
type CryptoKeyPair = WebCrypto.CryptoKeyPair;

export const CA_FILE = 'ca.pem';
const CA_KEY_FILE = 'ca-key.pem';
const SIGNING_FILE = 'signing.pem';
const SIGNING_KEY_FILE = 'signing-key.pem';

const ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 } as const;
const YEAR_MS = 365 * 86_400_000;

/** Readable by the owner only, whatever the umask (as credentials.env). */
function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

export interface SigningIdentity {
  /** The CA certificate (DER) and the path of its PEM. */
  ca: Uint8Array;
  caFile: string;
  /** The signing certificate (DER) and its private key. */
  certificate: Uint8Array;
  privateKey: CryptoKey;
}

const pem = (label: string, der: ArrayBuffer | Uint8Array) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der as Uint8Array).toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END ${label}-----\n`;

async function importKey(text: string): Promise<CryptoKey> {
  return webcrypto().subtle.importKey('pkcs8', der(text), { name: ALGORITHM.name, hash: ALGORITHM.hash }, false, ['sign']) as Promise<CryptoKey>;
}

/** The identity in `dataDir`, made on first use. `now` dates the certificates (the sandbox's clock). */
export async function signingIdentity(dataDir: string, now: Date): Promise<SigningIdentity> {
  const caFile = join(dataDir, CA_FILE);
  const files = [caFile, join(dataDir, SIGNING_FILE), join(dataDir, SIGNING_KEY_FILE)];
  if (files.every((file) => existsSync(file))) {
    return {
      ca: der(readFileSync(caFile, 'utf8')),
      caFile,
      certificate: der(readFileSync(files[1]!, 'utf8')),
      privateKey: await importKey(readFileSync(files[2]!, 'utf8')),
    };
  }
  // Valid from a day before now: a client whose clock is a little behind still accepts them.
  const notBefore = new Date(now.getTime() - 86_400_000);
  const caKeys = (await webcrypto().subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto().getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1'),
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
  const keys = (await webcrypto().subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(webcrypto().getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1'),
    subject: 'CN=sign-cli sandbox signing service, O=sign-cli sandbox',
    issuer: ca.subject,
    notBefore,
    notAfter: new Date(now.getTime() + 10 * YEAR_MS),
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca, false),
    ],
  });
  // Keys first, certificates last: a start cut short leaves no certificate without its key.
  writePrivateFile(join(dataDir, CA_KEY_FILE), pem('PRIVATE KEY', await webcrypto().subtle.exportKey('pkcs8', caKeys.privateKey)));
  writePrivateFile(files[2]!, pem('PRIVATE KEY', await webcrypto().subtle.exportKey('pkcs8', keys.privateKey)));
  writePrivateFile(files[1]!, certificate.toString('pem'));
  writePrivateFile(caFile, ca.toString('pem'));
  return { ca: new Uint8Array(ca.rawData), caFile, certificate: new Uint8Array(certificate.rawData), privateKey: await importKey(readFileSync(files[2]!, 'utf8')) };
}

/**
 * Certificates, CMS signatures and RFC 3161 timestamps made by OpenSSL, the
 * independent implementation the verifier is checked against: `openssl req`
 * and `x509` for a CA and its signers (RSA, RSA-PSS, ECDSA, Ed25519),
 * `openssl cms -sign -cades -binary` for the CMS a PDF signature holds, and
 * `openssl ts -reply` as a TSA. Certificates whose validity lies in the past
 * (which OpenSSL 3.0's command line cannot date) come from @peculiar/x509, and
 * OpenSSL signs with them all the same.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import * as nodeCrypto from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { children, encoded, readDer, sequence, value, type Der } from '../../src/core/pades/der.js';
import { encode } from '../../src/core/pades/der-write.js';
import { parseSignedData } from '../../src/core/pades/cms.js';
import { missingTools } from './system-tools.js';

/** For describe.skipIf: true when openssl is missing here. */
export const NO_OPENSSL = missingTools(['openssl'], 'openssl', "the tests against OpenSSL's CMS and TSA");

export interface Party {
  name: string;
  cert: string;
  key: string;
}

export class Pki {
  private serial = 1;
  constructor(readonly dir: string) {}

  private run(...args: string[]): Buffer {
    return execFileSync('openssl', args, { cwd: this.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  }

  private file(name: string, text: string | Uint8Array): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    return path;
  }

  /** A self-signed CA. */
  ca(name: string): Party {
    const base = name.replace(/\W+/g, '-').toLowerCase();
    this.run(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${base}.key`,
      '-out',
      `${base}.crt`,
      '-days',
      '30',
      '-subj',
      `/CN=${name}/O=Elsewhere`,
      '-addext',
      'basicConstraints=critical,CA:true',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    return { name, cert: join(this.dir, `${base}.crt`), key: join(this.dir, `${base}.key`) };
  }

  /**
   * A certificate `ca` issues: key `rsa` (default), `rsa-pss`, `ec:P-256|P-384|P-521`, `ed25519` or `ed448`;
   * `timestamping` makes a TSA's (critical extended key usage timeStamping); `extensions` are more
   * lines of OpenSSL's extension syntax (`authorityInfoAccess=OCSP;URI:http://…`).
   */
  issue(
    ca: Party,
    name: string,
    options: { key?: string; timestamping?: boolean; extensions?: string[] } = {},
  ): Party {
    const base = name.replace(/\W+/g, '-').toLowerCase();
    const key = options.key ?? 'rsa';
    const genkey =
      key === 'rsa'
        ? ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']
        : key === 'rsa-pss'
          ? ['-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048']
          : key === 'ed25519' || key === 'ed448'
            ? ['-algorithm', key.toUpperCase()]
            : ['-algorithm', 'EC', '-pkeyopt', `ec_paramgen_curve:${key.slice(3)}`];
    this.run('genpkey', ...genkey, '-out', `${base}.key`);
    this.run('req', '-new', '-key', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${name}/O=Elsewhere`);
    const ext = options.timestamping
      ? 'basicConstraints=CA:false\nkeyUsage=critical,digitalSignature,nonRepudiation\nextendedKeyUsage=critical,timeStamping\n'
      : 'basicConstraints=CA:false\nkeyUsage=critical,digitalSignature,nonRepudiation\n';
    this.file(`${base}.ext`, `${ext}${(options.extensions ?? []).map((line) => `${line}\n`).join('')}`);
    this.run(
      'x509',
      '-req',
      '-in',
      `${base}.csr`,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-set_serial',
      String(++this.serial + 1000),
      '-out',
      `${base}.crt`,
      '-days',
      '30',
      '-extfile',
      `${base}.ext`,
    );
    return { name, cert: join(this.dir, `${base}.crt`), key: join(this.dir, `${base}.key`) };
  }

  /** A signer certificate valid only between `notBefore` and `notAfter` (in the past, say), issued by a CA of its own. */
  async dated(name: string, notBefore: Date, notAfter: Date): Promise<{ ca: Party; signer: Party }> {
    const algorithm = {
      name: 'RSASSA-PKCS1-v1_5',
      hash: 'SHA-256',
      publicExponent: new Uint8Array([1, 0, 1]),
      modulusLength: 2048,
    } as const;
    x509.cryptoProvider.set(globalThis.crypto as never);
    const subtle = globalThis.crypto.subtle;
    const caKeys = await subtle.generateKey(algorithm, true, ['sign', 'verify']);
    const ca = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: `CN=${name} CA`,
      notBefore: new Date(notBefore.getTime() - 86_400_000),
      notAfter: new Date(Date.now() + 30 * 86_400_000),
      keys: caKeys,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      ],
    });
    const keys = await subtle.generateKey(algorithm, true, ['sign', 'verify']);
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: '02',
      subject: `CN=${name}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
          true,
        ),
      ],
    });
    const pem = (label: string, der: ArrayBuffer) =>
      `-----BEGIN ${label}-----\n${Buffer.from(der)
        .toString('base64')
        .replace(/(.{64})/g, '$1\n')
        .trimEnd()}\n-----END ${label}-----\n`;
    const base = name.replace(/\W+/g, '-').toLowerCase();
    return {
      ca: { name: `${name} CA`, cert: this.file(`${base}-ca.crt`, ca.toString('pem')), key: '' },
      signer: {
        name,
        cert: this.file(`${base}.crt`, leaf.toString('pem')),
        key: this.file(`${base}.key`, pem('PRIVATE KEY', await subtle.exportKey('pkcs8', keys.privateKey))),
      },
    };
  }

  /** `openssl cms -sign -cades -binary`: a detached CAdES CMS over `data`, the CA's certificate carried. */
  cms(
    data: Uint8Array,
    signer: Party,
    ca: Party,
    options: {
      md?: string;
      pss?: boolean;
      cades?: boolean;
      /** The content carried in the CMS (`-nodetach`), not only signed. */
      attached?: boolean;
      /** More signers, each a SignerInfo of its own (`-signer` again). */
      others?: Party[];
    } = {},
  ): Buffer {
    const input = this.file('to-sign.bin', data);
    const args = [
      'cms',
      '-sign',
      '-binary',
      '-in',
      input,
      '-signer',
      signer.cert,
      '-inkey',
      signer.key,
      ...(options.others ?? []).flatMap((other) => ['-signer', other.cert, '-inkey', other.key]),
      '-certfile',
      ca.cert,
      '-outform',
      'DER',
      '-md',
      options.md ?? 'sha256',
    ];
    if (options.cades !== false) args.push('-cades');
    if (options.pss) args.push('-keyopt', 'rsa_padding_mode:pss');
    if (options.attached) args.push('-nodetach');
    return this.run(...args);
  }

  /**
   * A TSA's token (`openssl ts -reply -token_out`) over the SHA-256 of `data`; `certificates`
   * false leaves the TSA's certificate out of it (a B-LT signature finds it in the DSS).
   */
  timestamp(data: Uint8Array, tsa: Party, ca: Party, certificates = true): Buffer {
    return this.timestampDigest(nodeCrypto.createHash('sha256').update(data).digest(), tsa, ca, certificates);
  }

  /** A TSA's token over a SHA-256 digest (`openssl ts -query -digest`): what a document timestamp's TSA is asked. */
  timestampDigest(sha256: Uint8Array, tsa: Party, ca: Party, certificates = true): Buffer {
    this.file(
      'tsa.cnf',
      `[ tsa ]\ndefault_tsa = tsa1\n[ tsa1 ]\nserial = ${join(this.dir, 'tsa-serial')}\nsigner_cert = ${tsa.cert}\ncerts = ${ca.cert}\nsigner_key = ${tsa.key}\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\ndigests = sha256, sha384, sha512\naccuracy = secs:1\ness_cert_id_chain = no\ness_cert_id_alg = sha256\n`,
    );
    this.file('tsa-serial', '01\n');
    this.run(
      'ts',
      '-query',
      '-digest',
      Buffer.from(sha256).toString('hex'),
      '-sha256',
      ...(certificates ? ['-cert'] : []),
      '-no_nonce',
      '-out',
      'query.tsq',
    );
    this.run(
      'ts',
      '-reply',
      '-config',
      'tsa.cnf',
      '-queryfile',
      'query.tsq',
      '-token_out',
      '-out',
      'token.der',
    );
    return readFileSync(join(this.dir, 'token.der'));
  }
}

const oidDer = (dotted: string): Buffer => {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return Buffer.from(encode(0x06, Uint8Array.from(bytes)));
};

/**
 * A CAdES CMS signed with Ed25519 (RFC 8419), written here: OpenSSL 3.0's
 * `cms -sign` cannot (it finds no digest for the key). Certificate and key
 * are OpenSSL's; the signature is node:crypto's.
 */
export function ed25519Cms(data: Uint8Array, signer: Party, ca: Party): Buffer {
  return handCms(data, signer, ca, {
    digest: 'sha512',
    digestOid: '2.16.840.1.101.3.4.2.3',
    signatureOid: '1.3.101.112',
    sign: (attributes) =>
      nodeCrypto.sign(null, attributes, nodeCrypto.createPrivateKey(readFileSync(signer.key))),
  });
}

/** What a hand-written CMS is made with: its digest (node:crypto's name and OID), its signature algorithm's OID, and the signing of its attributes. */
export interface HandCms {
  digest: string;
  digestOid: string;
  signatureOid: string;
  sign: (attributes: Buffer) => Buffer;
}

/**
 * A CAdES CMS written here for algorithms OpenSSL 3.0's `cms -sign` does not write (EdDSA,
 * plain ECDSA): the signed attributes (content type, message digest, ESS signing certificate
 * v2), signed by `options.sign`; the certificates are OpenSSL's.
 */
export function handCms(data: Uint8Array, signer: Party, ca: Party, options: HandCms): Buffer {
  const { createHash } = nodeCrypto;
  const certDer = (file: string) =>
    Buffer.from(readFileSync(file, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const cert = certDer(signer.cert);
  const tbs = children(children(readDer(cert))[0]!);
  const first = tbs[0]!.cls === 2 ? 1 : 0;
  const issuerAndSerial = encode(0x30, Buffer.concat([encoded(tbs[first + 2]!), encoded(tbs[first]!)]));
  const digestAlgorithm = encode(0x30, oidDer(options.digestOid));
  const attr = (oid: string, valueDer: Uint8Array) =>
    encode(0x30, Buffer.concat([oidDer(oid), encode(0x31, valueDer)]));
  const hash =
    options.digest === 'shake256' ? createHash('shake256', { outputLength: 64 }) : createHash(options.digest);
  const attrs = Buffer.concat([
    attr('1.2.840.113549.1.9.3', oidDer('1.2.840.113549.1.7.1')),
    attr('1.2.840.113549.1.9.4', encode(0x04, hash.update(data).digest())),
    attr(
      '1.2.840.113549.1.9.16.2.47',
      encode(0x30, encode(0x30, encode(0x30, encode(0x04, createHash('sha256').update(cert).digest())))),
    ),
  ]);
  const signature = options.sign(Buffer.from(encode(0x31, attrs)));
  const signerInfo = encode(
    0x30,
    Buffer.concat([
      encode(0x02, Uint8Array.of(1)),
      issuerAndSerial,
      digestAlgorithm,
      encode(0xa0, attrs),
      encode(0x30, oidDer(options.signatureOid)),
      encode(0x04, signature),
    ]),
  );
  const signedData = encode(
    0x30,
    Buffer.concat([
      encode(0x02, Uint8Array.of(1)),
      encode(0x31, digestAlgorithm),
      encode(0x30, oidDer('1.2.840.113549.1.7.1')),
      encode(0xa0, Buffer.concat([cert, certDer(ca.cert)])),
      encode(0x31, signerInfo),
    ]),
  );
  return Buffer.from(encode(0x30, Buffer.concat([oidDer('1.2.840.113549.1.7.2'), encode(0xa0, signedData)])));
}

/** The signature value of a CMS's one signer (what a signature timestamp stamps). */
export function signatureValue(cms: Uint8Array): Uint8Array {
  return parseSignedData(cms).signers[0]!.signature;
}

/**
 * The CMS with `token` added to its signer as the unsigned attribute
 * id-aa-signatureTimeStampToken: every enclosing length written again.
 */
export function withSignatureTimestamp(cms: Uint8Array, token: Uint8Array): Buffer {
  return withUnsignedAttribute(cms, '1.2.840.113549.1.9.16.2.14', token);
}

/** The CMS with an unsigned attribute (`oid`, one value, DER) added to its signer: every enclosing length written again. */
export function withUnsignedAttribute(cms: Uint8Array, oid: string, valueDer: Uint8Array): Buffer {
  const attribute = encode(0x30, Buffer.concat([oidDer(oid), encode(0x31, valueDer)]));
  const top = readDer(cms);
  const [type, explicit] = sequence(top, 'ContentInfo');
  const signedData = readDer(value(explicit!));
  const parts = children(signedData);
  const infos = parts.at(-1)!;
  const info = children(infos)[0]!;
  const infoParts = children(info);
  const last = infoParts.at(-1)!;
  const unsigned = last.cls === 2 && last.tag === 1 ? Buffer.concat([value(last), attribute]) : attribute;
  const kept = last.cls === 2 && last.tag === 1 ? infoParts.slice(0, -1) : infoParts;
  const newInfo = encode(0x30, Buffer.concat([...kept.map((p: Der) => encoded(p)), encode(0xa1, unsigned)]));
  const newSignedData = encode(
    0x30,
    Buffer.concat([...parts.slice(0, -1).map((p) => encoded(p)), encode(0x31, newInfo)]),
  );
  return Buffer.from(encode(0x30, Buffer.concat([encoded(type!), encode(0xa0, newSignedData)])));
}

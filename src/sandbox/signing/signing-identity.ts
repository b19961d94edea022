/**
 * The sandbox's certificate authority and the certificates it issues, made
 * with @peculiar/x509 (no hand-written certificates) and kept in the data dir:
 * the CA (`ca.pem`, published at GET /_sandbox/ca.pem; 20 years), the signing
 * certificate (`signing.pem`: the current one) and the TSA's (`tsa.pem`),
 * every one it ever issued under `issued/`, private keys 0600, and the ledger
 * of what it issued and revoked (certificate-ledger.ts). RSA with PKCS#1 v1.5
 * signatures, which are deterministic: a signed copy made again is the same
 * bytes, so it matches the hash its audit trail recorded.
 *
 * Each certificate it issues names the sandbox's own base URL in its AIA
 * (OCSP at /_sandbox/ocsp, the CA at /_sandbox/ca.cer) and its CRL
 * distribution point (/_sandbox/crl/ca.crl). A certificate stops signing new
 * copies when it is revoked, or when the sandbox starts at another base URL
 * (its URLs would lead nowhere): a fresh one is issued, from then on.
 */
import 'reflect-metadata';
import { pemToDer as der, webcrypto } from './web-crypto.js';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import {
  ALGORITHM,
  importSigningKey as importKey,
  pem,
  writePrivateFile,
  type CryptoKey,
} from './key-files.js';
import type { TsaIdentity } from './tsa.js';
import {
  CERTIFICATE_ROLES,
  readLedger,
  revocationsAt,
  signerAt,
  statusAt,
  writeLedger,
  type CertificateRole,
  type CertificateStatus,
  type IssuedCertificate,
  type Ledger,
  type Revocation,
  type RevocationReason,
} from './certificate-ledger.js';

x509.cryptoProvider.set(webcrypto() as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export const CA_FILE = 'ca.pem';
const CA_KEY_FILE = 'ca-key.pem';
/** The current certificate of each role, and its key: where people and scripts look for them. */
const CURRENT: Record<CertificateRole, { file: string; keyFile: string }> = {
  signing: { file: 'signing.pem', keyFile: 'signing-key.pem' },
  tsa: { file: 'tsa.pem', keyFile: 'tsa-key.pem' },
};
const ISSUED_DIR = 'issued';

const YEAR_MS = 365 * 86_400_000;
const DAY_MS = 86_400_000;

/** The CA's revocation endpoints under a base URL, as its certificates name them. */
export const caUrls = (baseUrl: string) => ({
  ocsp: `${baseUrl}/_sandbox/ocsp`,
  caIssuers: `${baseUrl}/_sandbox/ca.cer`,
  crl: `${baseUrl}/_sandbox/crl/ca.crl`,
});

/** Who signs a copy at one time: the CA, the signing certificate and its key, and the TSA. */
export interface SigningIdentity {
  ca: Uint8Array;
  caFile: string;
  certificate: Uint8Array;
  privateKey: CryptoKey;
  tsa: TsaIdentity;
}

/** A file's text, or '' when there is none. */
const readText = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');

const randomSerial = () =>
  Buffer.from(webcrypto().getRandomValues(new Uint8Array(16)))
    .toString('hex')
    // Positive, with no leading zero byte: one DER encoding.
    .replace(/^[089a-f]/, '1');

/** The CA of `dataDir`, made on first use (valid from a day before `now`, for 20 years). */
async function loadCa(dataDir: string, now: Date): Promise<{ ca: x509.X509Certificate; key: CryptoKey }> {
  const caFile = join(dataDir, CA_FILE);
  const keyFile = join(dataDir, CA_KEY_FILE);
  if (existsSync(caFile) && existsSync(keyFile))
    return {
      ca: new x509.X509Certificate(der(readFileSync(caFile, 'utf8'))),
      key: await importKey(readFileSync(keyFile, 'utf8')),
    };
  const keys = await webcrypto().subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=sign-cli sandbox CA, O=sign-cli sandbox',
    // A day early: a client whose clock is a little behind still accepts it.
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + 20 * YEAR_MS),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  // The key first: a start cut short leaves no certificate without its key.
  writePrivateFile(keyFile, pem('PRIVATE KEY', await webcrypto().subtle.exportKey('pkcs8', keys.privateKey)));
  writePrivateFile(caFile, ca.toString('pem'));
  return { ca, key: await importKey(readFileSync(keyFile, 'utf8')) };
}

/** The sandbox CA: what it issued, who signs at a given time, and what it says of a certificate's status. */
export class SandboxCa {
  readonly caFile: string;
  readonly ca: Uint8Array;
  /** Issuing certificates (and their files) one at a time. */
  private work: Promise<unknown> = Promise.resolve();
  private readonly keys = new Map<string, Promise<CryptoKey>>();

  private constructor(
    private readonly dataDir: string,
    private readonly caCertificate: x509.X509Certificate,
    readonly caKey: CryptoKey,
    private ledger: Ledger,
  ) {
    this.caFile = join(dataDir, CA_FILE);
    this.ca = new Uint8Array(caCertificate.rawData);
  }

  /** The CA of `dataDir` (made on first start), with what it issued before. */
  static async open(dataDir: string, now: Date): Promise<SandboxCa> {
    const { ca, key } = await loadCa(dataDir, now);
    const ledger = readLedger(dataDir) ?? adoptEarlier(dataDir);
    // A start cut short after the ledger named a new certificate, before it was copied: copied now.
    for (const role of CERTIFICATE_ROLES) {
      const current = ledger.issued.filter((c) => c.role === role).at(-1);
      if (
        current &&
        readFileSync(join(dataDir, current.file), 'utf8') !== readText(join(dataDir, CURRENT[role].file))
      ) {
        writePrivateFile(
          join(dataDir, CURRENT[role].keyFile),
          readFileSync(join(dataDir, current.keyFile), 'utf8'),
        );
        writePrivateFile(
          join(dataDir, CURRENT[role].file),
          readFileSync(join(dataDir, current.file), 'utf8'),
        );
      }
    }
    return new SandboxCa(dataDir, ca, key, ledger);
  }

  /**
   * Makes sure each role has a current certificate naming `baseUrl`: one issued from `now` on
   * when it has none, or when its current one names another URL (or none).
   */
  useUrl(baseUrl: string, now: Date): Promise<void> {
    return this.serially(async () => {
      for (const role of ['signing', 'tsa'] as const) {
        const current = signerAt(this.ledger, role, now.getTime());
        if (current?.url !== baseUrl) await this.issue(role, baseUrl, current ? now : new Date(0), now);
      }
    });
  }

  /** Whether it has issued any signing or TSA certificate yet (a new data dir has none). */
  get hasIssued(): boolean {
    return this.ledger.issued.length > 0;
  }

  /** Resolves once what it is issuing now is issued (or failed). */
  idle(): Promise<void> {
    return this.work.then(() => undefined);
  }

  /** Who signs a copy completed at `time`. */
  async identityAt(time: Date): Promise<SigningIdentity> {
    await this.work;
    const signer = signerAt(this.ledger, 'signing', time.getTime());
    const tsa = signerAt(this.ledger, 'tsa', time.getTime());
    if (!signer || !tsa) throw new Error('the sandbox CA has issued no signing or TSA certificate yet');
    const tsaIdentity: TsaIdentity = {
      certificate: this.certificateOf(tsa),
      ca: this.ca,
      privateKey: await this.keyOf(tsa),
    };
    return {
      ca: this.ca,
      caFile: this.caFile,
      certificate: this.certificateOf(signer),
      privateKey: await this.keyOf(signer),
      tsa: tsaIdentity,
    };
  }

  /** The TSA answering requests now (POST /_sandbox/tsa). */
  async tsaAt(time: Date): Promise<TsaIdentity> {
    return (await this.identityAt(time)).tsa;
  }

  /** The status of a certificate of this CA, by serial, as the CA knew it at `time`. */
  statusAt(serial: string, time: Date): CertificateStatus {
    return statusAt(this.ledger, serial, time.getTime());
  }

  /** The revocations the CA knew at `time` (a CRL's entries). */
  revocationsAt(time: Date): Revocation[] {
    return revocationsAt(this.ledger, time.getTime());
  }

  /** The ledger as it stands (read-only: for CRLs and listings). */
  get record(): Readonly<Ledger> {
    return this.ledger;
  }

  /** The DER of an issued certificate. */
  certificateOf(issued: IssuedCertificate): Uint8Array {
    return der(readFileSync(join(this.dataDir, issued.file), 'utf8'));
  }

  /**
   * Revokes the current certificate of `role` (at `at`, for `reason`) and issues its successor,
   * which signs from `now` on; both returned. The successor names the URL its predecessor named.
   */
  revoke(
    role: CertificateRole,
    at: Date,
    reason: RevocationReason,
    now: Date,
  ): Promise<{ revoked: IssuedCertificate; replacement: IssuedCertificate }> {
    return this.serially(async () => {
      const revoked = signerAt(this.ledger, role, now.getTime());
      if (!revoked) throw new Error(`the sandbox CA has no ${role} certificate to revoke`);
      this.ledger = {
        ...this.ledger,
        revocations: [
          ...this.ledger.revocations,
          { role, serial: revoked.serial, at: at.toISOString(), reason, recorded: now.toISOString() },
        ],
      };
      writeLedger(this.dataDir, this.ledger);
      const replacement = await this.issue(role, revoked.url, now, now);
      return { revoked, replacement };
    });
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.work.then(task);
    this.work = run.catch(() => undefined);
    return run;
  }

  private keyOf(issued: IssuedCertificate): Promise<CryptoKey> {
    let key = this.keys.get(issued.serial);
    if (!key) {
      key = importKey(readFileSync(join(this.dataDir, issued.keyFile), 'utf8'));
      this.keys.set(issued.serial, key);
    }
    return key;
  }

  /** A new certificate of `role` naming `url`, signing from `since`; recorded, and made the current one. */
  private async issue(
    role: CertificateRole,
    url: string | null,
    since: Date,
    now: Date,
  ): Promise<IssuedCertificate> {
    const ca = this.caCertificate;
    const keys = await webcrypto().subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
    const serial = randomSerial();
    const urls = url ? caUrls(url) : undefined;
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serial,
      subject:
        role === 'signing'
          ? 'CN=sign-cli sandbox signing service, O=sign-cli sandbox'
          : 'CN=sign-cli sandbox timestamp authority, O=sign-cli sandbox',
      issuer: ca.subject,
      notBefore: new Date(now.getTime() - DAY_MS),
      // A TSA lives as long as its CA: a document timestamp holds until it expires.
      notAfter: role === 'signing' ? new Date(now.getTime() + 10 * YEAR_MS) : ca.notAfter,
      publicKey: keys.publicKey,
      signingKey: this.caKey,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
          true,
        ),
        // RFC 3161: a TSA's certificate has the timeStamping purpose alone, critical.
        ...(role === 'tsa'
          ? [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.timeStamping], true)]
          : []),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(ca, false),
        ...(urls
          ? [
              new x509.AuthorityInfoAccessExtension({ ocsp: [urls.ocsp], caIssuers: [urls.caIssuers] }),
              new x509.CRLDistributionPointsExtension([urls.crl]),
            ]
          : []),
      ],
    });
    mkdirSync(join(this.dataDir, ISSUED_DIR), { recursive: true });
    const issued: IssuedCertificate = {
      role,
      serial,
      since: since.toISOString(),
      url,
      file: join(ISSUED_DIR, `${role}-${serial}.pem`),
      keyFile: join(ISSUED_DIR, `${role}-${serial}-key.pem`),
    };
    const keyPem = pem('PRIVATE KEY', await webcrypto().subtle.exportKey('pkcs8', keys.privateKey));
    // Keys first, the ledger last: a start cut short leaves files the ledger does not name, never the reverse.
    writePrivateFile(join(this.dataDir, issued.keyFile), keyPem);
    writePrivateFile(join(this.dataDir, issued.file), certificate.toString('pem'));
    this.ledger = { ...this.ledger, issued: [...this.ledger.issued, issued] };
    writeLedger(this.dataDir, this.ledger);
    writePrivateFile(join(this.dataDir, CURRENT[role].keyFile), keyPem);
    writePrivateFile(join(this.dataDir, CURRENT[role].file), certificate.toString('pem'));
    return issued;
  }
}

/**
 * The ledger of a data dir from before there was one: its signing and TSA certificates (if any)
 * copied under issued/ and recorded as signing for all times, naming no URL, so the next
 * start issues successors that name one.
 */
function adoptEarlier(dataDir: string): Ledger {
  const ledger: Ledger = { issued: [], revocations: [] };
  for (const role of ['signing', 'tsa'] as const) {
    const { file, keyFile } = CURRENT[role];
    if (!existsSync(join(dataDir, file)) || !existsSync(join(dataDir, keyFile))) continue;
    const serial = new x509.X509Certificate(der(readFileSync(join(dataDir, file), 'utf8'))).serialNumber;
    mkdirSync(join(dataDir, ISSUED_DIR), { recursive: true });
    const issued: IssuedCertificate = {
      role,
      serial: serial.toLowerCase(),
      since: new Date(0).toISOString(),
      url: null,
      file: join(ISSUED_DIR, `${role}-${serial.toLowerCase()}.pem`),
      keyFile: join(ISSUED_DIR, `${role}-${serial.toLowerCase()}-key.pem`),
    };
    copyFileSync(join(dataDir, keyFile), join(dataDir, issued.keyFile));
    copyFileSync(join(dataDir, file), join(dataDir, issued.file));
    ledger.issued.push(issued);
  }
  if (ledger.issued.length > 0) writeLedger(dataDir, ledger);
  return ledger;
}

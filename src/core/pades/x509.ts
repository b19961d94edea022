/**
 * X.509 certificates as the verifier needs them (RFC 5280): names, validity,
 * the public key, the extensions that decide what a certificate may do, and
 * signature checks with node:crypto. Parsed from DER by der.ts; node's own
 * X509Certificate would do part of it, but not key usage bits, nor the names
 * as bytes for finding an issuer.
 */
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { BoundedMemo } from './bounded-memo.js';
import { HASHES, WEAK_HASHES, hashOf } from './hashes.js';
import { SCHEMES } from './signature-schemes.js';

/** node:crypto's RSA_PKCS1_PADDING and RSA_PKCS1_PSS_PADDING: the CLI bundle loads node:crypto's functions lazily, not its objects. */
const RSA_PKCS1_PADDING = 1;
const RSA_PKCS1_PSS_PADDING = 6;
import {
  TAG,
  bits,
  children,
  encoded,
  explicit,
  is,
  oid,
  integerHex,
  readDer,
  sequence,
  smallInteger,
  time,
  octets,
  value,
  directoryString,
  DerError,
  type Der,
} from './der.js';

export const OID = {
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectKeyId: '2.5.29.14',
  authorityKeyId: '2.5.29.35',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/** Extensions a validator may meet marked critical and still process (or safely need not). */
const UNDERSTOOD = new Set([
  OID.basicConstraints,
  OID.keyUsage,
  OID.extKeyUsage,
  OID.subjectKeyId,
  OID.authorityKeyId,
  '2.5.29.17',
  '2.5.29.32',
  '2.5.29.36',
  '2.5.29.54',
  '2.5.29.18',
]);

export interface Certificate {
  der: Uint8Array;
  tbs: Uint8Array;
  serial: string;
  /** The names as encoded: an issuer is found by its subject's bytes. */
  issuer: Uint8Array;
  subject: Uint8Array;
  notBefore: Date;
  notAfter: Date;
  spki: Uint8Array;
  signatureAlgorithm: Der;
  signature: Uint8Array;
  /** Whether the basic constraints extension is there at all (a version 1 root has none). */
  basicConstraints: boolean;
  ca: boolean;
  pathLength: number | undefined;
  /** Key usage bits, or undefined when the extension is absent (no restriction). */
  keyUsage: { digitalSignature: boolean; nonRepudiation: boolean; keyCertSign: boolean } | undefined;
  extKeyUsage: string[] | undefined;
  extKeyUsageCritical: boolean;
  subjectKeyId: string | undefined;
  /** Critical extensions this reader does not process: such a certificate must not be accepted. */
  unknownCritical: string[];
}

/**
 * Certificates parsed so far, by their bytes: a file carries the same few certificates in several
 * places (the CMS, its timestamp token, the DSS, OCSP responses), each read where it is found.
 * Each is parsed from a copy of its bytes, so that what is kept holds no view of a whole file;
 * the results are not to be changed. A few tens are kept: a file's own certificates, and the
 * CAs that files of a run share (more, kept by each worker of an archive run, was 10 MB of its
 * peak memory over the real-world corpus).
 */
const PARSED = new BoundedMemo<Certificate>(64);
/** Larger than any certificate a signature carries (a few KB): parsed each time, never kept. */
const MAX_KEPT_BYTES = 64 * 1024;

/**
 * Parses one certificate (read once for the same bytes), or throws DerError. Only its first TLV
 * is read: bytes after it are no part of it, nor of the key it is kept by.
 */
export function parseCertificate(der: Uint8Array): Certificate {
  const length = readDer(der).next;
  if (length > MAX_KEPT_BYTES) return readCertificate(der);
  const key = Buffer.from(der.buffer, der.byteOffset, length).toString('latin1');
  // A copy (Uint8Array's slice: a Buffer's would be a view).
  return PARSED.get(key, () => readCertificate(Uint8Array.from(der.subarray(0, length))));
}

function readCertificate(der: Uint8Array): Certificate {
  const top = readDer(der);
  const [tbsNode, algorithm, signatureValue] = sequence(top, 'the certificate');
  const tbs = sequence(tbsNode, "the certificate's body");
  let i = 0;
  if (is(tbs[0], 0, 2)) i++;
  const serial = integerHex(tbs[i]);
  const issuer = tbs[i + 2];
  const [notBefore, notAfter] = sequence(tbs[i + 3], 'the validity');
  const subject = tbs[i + 4];
  const spki = tbs[i + 5];
  if (!issuer || !subject || !spki || !algorithm) throw new DerError('the certificate is incomplete');
  const cert: Certificate = {
    der: encoded(top),
    tbs: encoded(tbsNode!),
    serial,
    issuer: encoded(issuer),
    subject: encoded(subject),
    notBefore: time(notBefore),
    notAfter: time(notAfter),
    spki: encoded(spki),
    signatureAlgorithm: algorithm,
    signature: bits(signatureValue),
    basicConstraints: false,
    ca: false,
    pathLength: undefined,
    keyUsage: undefined,
    extKeyUsage: undefined,
    extKeyUsageCritical: false,
    subjectKeyId: undefined,
    unknownCritical: [],
  };
  const extensions = tbs.slice(i + 6).find((n) => is(n, 3, 2));
  for (const extension of extensions ? sequence(explicit(extensions), 'the extensions') : []) {
    const parts = sequence(extension, 'an extension');
    const id = oid(parts[0]);
    const critical = is(parts[1], TAG.boolean) && value(parts[1])[0] !== 0;
    const inner = readDer(octets(parts.at(-1)));
    if (critical && !UNDERSTOOD.has(id)) cert.unknownCritical.push(id);
    if (id === OID.basicConstraints) {
      const fields = sequence(inner, 'basic constraints');
      cert.basicConstraints = true;
      cert.ca = is(fields[0], TAG.boolean) && value(fields[0])[0] !== 0;
      const length = fields.find((f) => is(f, TAG.integer));
      if (length) cert.pathLength = smallInteger(length);
    } else if (id === OID.keyUsage) {
      const b = bits(inner);
      cert.keyUsage = {
        digitalSignature: ((b[0] ?? 0) & 0x80) !== 0,
        nonRepudiation: ((b[0] ?? 0) & 0x40) !== 0,
        keyCertSign: ((b[0] ?? 0) & 0x04) !== 0,
      };
    } else if (id === OID.extKeyUsage) {
      cert.extKeyUsage = sequence(inner, 'extended key usage').map((n) => oid(n));
      cert.extKeyUsageCritical = critical;
    } else if (id === OID.subjectKeyId) {
      cert.subjectKeyId = Buffer.from(octets(inner)).toString('hex');
    }
  }
  return cert;
}

/** The SHA-x of the whole certificate (ESS signing-certificate references). */
export const certificateHash = (cert: Certificate, algorithm: string): Buffer => hashOf(algorithm, cert.der);

/** The attributes of a name, in order, as [OID, text]. */
function nameAttributes(name: Uint8Array): [string, string][] {
  const out: [string, string][] = [];
  for (const rdn of sequence(readDer(name), 'a name')) {
    for (const attribute of sequence(rdn, 'a name part')) {
      const [type, text] = sequence(attribute, 'a name attribute');
      if (text) out.push([oid(type), directoryString(text)]);
    }
  }
  return out;
}

/** The certificate's common name, else its whole subject, for people to read. */
export function displayName(cert: Certificate): string {
  try {
    const attributes = nameAttributes(cert.subject);
    return (
      attributes.find(([type]) => type === OID.commonName)?.[1] ??
      attributes.map(([, text]) => text).join(', ')
    );
  } catch {
    return `serial ${cert.serial}`;
  }
}

/**
 * Whether two names are the same: byte for byte, else attribute by attribute
 * with case and inner spaces folded (RFC 5280 7.1's comparison, short of full
 * string preparation), which is how an issuer written as PrintableString is
 * found by a subject written as UTF8String.
 */
export function sameName(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b)) return true;
  const folded = [foldedName(a), foldedName(b)];
  return folded[0] !== null && folded[0] === folded[1];
}

/**
 * A name with case and inner spaces folded, attribute by attribute (null: unreadable); kept per
 * name's bytes, since a chain is looked for among the same certificates again and again.
 */
const FOLDED = new WeakMap<Uint8Array, string | null>();
function foldedName(name: Uint8Array): string | null {
  let folded = FOLDED.get(name);
  if (folded !== undefined) return folded;
  try {
    folded = nameAttributes(name)
      .map(([type, text]) => `${type}=${text.trim().replace(/\s+/g, ' ').toLowerCase()}`)
      .join('\u0000');
  } catch {
    folded = null;
  }
  FOLDED.set(name, folded);
  return folded;
}

/** The digest RFC 8419 requires with each EdDSA algorithm: a CMS signer using another is refused. */
export const EDDSA_DIGEST: Record<string, string> = { Ed25519: 'sha512', Ed448: 'shake256' };

export interface SignatureCheck {
  ok: boolean;
  /** The algorithm as people know it (`RSA PKCS#1 v1.5 with sha256`), or why it is not supported. */
  algorithm: string;
  supported: boolean;
  /** The weak hash it signed with (sha1), when it did: verified all the same, refused by policy. */
  weak?: string;
  /** The EdDSA algorithm, when it is one (its CMS digest must be the one RFC 8419 names). */
  eddsa?: 'Ed25519' | 'Ed448';
}

/**
 * Whether `signature` over `data` verifies with `spki` under the algorithm
 * identifier `algorithm`; `digestHint` is the hash when the identifier names
 * only the key type (CMS's rsaEncryption or id-ecPublicKey).
 */
export function verifySignature(
  algorithm: Der,
  spki: Uint8Array,
  data: Uint8Array,
  signature: Uint8Array,
  digestHint?: string,
): SignatureCheck {
  try {
    return verifyWith(algorithm, spki, data, signature, digestHint);
  } catch {
    // A malformed algorithm identifier (its parameters unreadable) verifies nothing.
    return { ok: false, supported: false, algorithm: 'the signature algorithm is not readable' };
  }
}

function verifyWith(
  algorithm: Der,
  spki: Uint8Array,
  data: Uint8Array,
  signature: Uint8Array,
  digestHint?: string,
): SignatureCheck {
  const parts = sequence(algorithm, 'the signature algorithm');
  const id = oid(parts[0]);
  const scheme = SCHEMES[id];
  if (!scheme) return { ok: false, supported: false, algorithm: `algorithm ${id} is not supported` };
  const key = publicKey(spki);
  if (!key) return { ok: false, supported: false, algorithm: "the certificate's public key is not readable" };
  // A weak hash is verified all the same (so that a verdict can say the bytes are intact) and marked.
  const attempt = (hash: string | null, options: Record<string, unknown>, name: string): SignatureCheck => {
    const weak = hash && WEAK_HASHES.has(hash) ? { weak: hash } : {};
    try {
      return {
        ok: cryptoVerify(hash, data, { key, ...options }, signature),
        supported: true,
        algorithm: name,
        ...weak,
      };
    } catch {
      return { ok: false, supported: true, algorithm: name, ...weak };
    }
  };
  if (scheme.kind === 'eddsa') {
    if (key.asymmetricKeyType !== scheme.name.toLowerCase())
      return { ok: false, supported: true, algorithm: `${scheme.name} with a ${key.asymmetricKeyType} key` };
    return { ...attempt(null, {}, scheme.name), eddsa: scheme.name };
  }
  if (scheme.kind === 'pss') {
    // RSASSA-PSS-params: [0] hash (default SHA-1), [1] mask generation (MGF1 with that hash), [2] salt length (default 20).
    const params = parts[1] && parts[1].constructed ? children(parts[1]) : [];
    const field = (n: number) => params.find((p) => is(p, n, 2));
    const hashField = field(0);
    const hash = hashField ? HASHES[oid(sequence(explicit(hashField), 'the PSS hash')[0])] : 'sha1';
    const saltField = field(2);
    const saltLength = saltField ? smallInteger(explicit(saltField)) : 20;
    if (!hash || hash === 'shake256')
      return { ok: false, supported: false, algorithm: 'RSA-PSS with an unsupported hash' };
    return attempt(hash, { padding: RSA_PKCS1_PSS_PADDING, saltLength }, `RSA-PSS with ${hash}`);
  }
  const hash = scheme.hash ?? digestHint ?? null;
  if (!hash || hash === 'shake256')
    return { ok: false, supported: false, algorithm: `algorithm ${id} without a digest it can use` };
  const withHash = (h: string): SignatureCheck =>
    scheme.kind === 'rsa'
      ? attempt(h, { padding: RSA_PKCS1_PADDING }, `RSA PKCS#1 v1.5 with ${h}`)
      : scheme.plain
        ? attempt(h, { dsaEncoding: 'ieee-p1363' }, `plain ECDSA (BSI TR-03111) with ${h}`)
        : attempt(h, { dsaEncoding: 'der' }, `ECDSA with ${h}`);
  const check = withHash(hash);
  // A signature algorithm that names another hash than the signer's digest algorithm: OpenSSL
  // signs and verifies with the digest algorithm, and so do the files it made. Tried second.
  if (!check.ok && digestHint && digestHint !== hash && digestHint !== 'shake256') {
    const second = withHash(digestHint);
    if (second.ok)
      return {
        ...second,
        algorithm: `${second.algorithm} (its identifier names ${hash}, as OpenSSL reads it)`,
      };
  }
  return check;
}

/**
 * Public keys read so far, by their SubjectPublicKeyInfo (null: unreadable): an issuing CA's key
 * checks the certificates, OCSP responses and CRLs it signed, each read by OpenSSL anew otherwise.
 */
const KEYS = new BoundedMemo<KeyObject | null>(64);

function publicKey(spki: Uint8Array): KeyObject | null {
  const bytes = Buffer.from(spki.buffer, spki.byteOffset, spki.length);
  return KEYS.get(bytes.toString('latin1'), () => {
    try {
      return createPublicKey({ key: Buffer.from(bytes), format: 'der', type: 'spki' });
    } catch {
      return null;
    }
  });
}

/** Whether `issuer` signed `cert` (its signature over the body verifies with the issuer's key). */
export function issuedBy(cert: Certificate, issuer: Certificate, allowWeak = false): boolean {
  if (!sameName(cert.issuer, issuer.subject)) return false;
  // The same links are checked again for every signature of a file (a TSA's chain, 25 times over
  // in a long-term archive) and every file of a run: their answers are kept.
  const key = `${Buffer.from(cert.signature).toString('base64')}|${Buffer.from(issuer.spki).toString('base64')}`;
  const check = LINKS.get(key, () =>
    verifySignature(cert.signatureAlgorithm, issuer.spki, cert.tbs, cert.signature),
  );
  return check.ok && (allowWeak || !check.weak);
}

/** The links checked so far (a certificate's signature by its issuer's key). */
const LINKS = new BoundedMemo<SignatureCheck>(4096);

/** The DER of each PEM certificate block in `text`. */
export function pemCertificates(text: string): Uint8Array[] {
  return (text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (block) => new Uint8Array(Buffer.from(block.replace(/-----[^-]+-----|\s/g, ''), 'base64')),
  );
}

/** The subject of a certificate's DER, read without parsing the rest (finding anchors by name). */
export function subjectOf(der: Uint8Array): Uint8Array | undefined {
  try {
    const tbs = sequence(sequence(readDer(der), 'certificate')[0], 'body');
    const i = is(tbs[0], 0, 2) ? 1 : 0;
    const subject = tbs[i + 4];
    return subject ? encoded(subject) : undefined;
  } catch {
    return undefined;
  }
}

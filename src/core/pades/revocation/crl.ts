/**
 * Certificate revocation lists (RFC 5280 5) as a PDF keeps them (the DSS's /CRLs,
 * adbe-revocationInfoArchival, CAdES revocation values, a CMS's own crls): the issuer's name,
 * thisUpdate and nextUpdate, the entries (serial, revocation date, reason, invalidity date) and
 * the extensions that limit what a list may say (a delta list, an issuing distribution point's
 * scope, expired certificates kept on it). Checked: signed by the issuer's key, which may sign
 * CRLs. Whether its times speak for the time in question is status.ts's part.
 */
import {
  TAG,
  children,
  encoded,
  explicit,
  is,
  octets,
  oid,
  readDer,
  sequence,
  time,
  value,
  DerError,
  type Der,
} from '../der.js';
import { hashLabel } from '../hashes.js';
import { displayName, sameName, verifySignature, type Certificate } from '../x509.js';
import { certificateFacts } from './cert-facts.js';

const EXT = {
  reasonCode: '2.5.29.21',
  invalidityDate: '2.5.29.24',
  certificateIssuer: '2.5.29.29',
  crlNumber: '2.5.29.20',
  deltaCrlIndicator: '2.5.29.27',
  issuingDistributionPoint: '2.5.29.28',
  authorityKeyId: '2.5.29.35',
  expiredCertsOnCrl: '2.5.29.60',
} as const;

/** CRL extensions read here or harmless; another one marked critical makes the list unusable. */
const UNDERSTOOD = new Set<string>([
  EXT.crlNumber,
  EXT.deltaCrlIndicator,
  EXT.issuingDistributionPoint,
  EXT.authorityKeyId,
  EXT.expiredCertsOnCrl,
]);

export interface CrlEntry {
  revokedAt: Date;
  reason?: number;
  /** When the key is known or suspected to have been compromised (invalidityDate), if stated. */
  invalidSince?: Date;
}

export interface Crl {
  tbs: Uint8Array;
  signatureAlgorithm: Der;
  signature: Uint8Array;
  issuer: Uint8Array;
  thisUpdate: Date;
  nextUpdate?: Date;
  /** A delta CRL: it lists only what changed since a base list. */
  delta: boolean;
  /** What its issuing distribution point limits it to. */
  scope: { onlyUsers: boolean; onlyCas: boolean; partial: boolean };
  /** Expired certificates stay listed from this time (ExpiredCertsOnCRL). */
  expiredCertsSince?: Date;
  /** Critical extensions this reader does not process. */
  unknownCritical: string[];
  /** The entry for a serial (hex, as x509.ts writes serials), read once when first asked. */
  entry(serial: string): CrlEntry | undefined;
}

const flag = (nodes: Der[], tag: number) => {
  const node = nodes.find((n) => is(n, tag, 2));
  return node !== undefined && value(node)[0] !== 0 && value(node).length > 0;
};

function readEntries(list: Der | undefined): Map<string, CrlEntry> {
  const entries = new Map<string, CrlEntry>();
  if (!list) return entries;
  for (const node of children(list)) {
    const [serial, date, extensions] = sequence(node, 'a revoked certificate');
    if (!is(serial, TAG.integer)) throw new DerError('a revoked certificate without a serial');
    // Serials compared as written: a list that pads one is not lenient-matched to a DER certificate.
    const entry: CrlEntry = { revokedAt: time(date) };
    for (const extension of extensions ? sequence(extensions, 'entry extensions') : []) {
      const parts = sequence(extension, 'an extension');
      const inner = readDer(octets(parts.at(-1)));
      const id = oid(parts[0]);
      if (id === EXT.reasonCode) entry.reason = value(inner)[0];
      else if (id === EXT.invalidityDate) entry.invalidSince = time(inner);
    }
    entries.set(Buffer.from(value(serial)).toString('hex'), entry);
  }
  return entries;
}

/** A CertificateList, read; DerError when it is not one. Its entries are read when first asked for. */
export function parseCrl(der: Uint8Array): Crl {
  const [tbsNode, signatureAlgorithm, signatureValue] = sequence(readDer(der), 'the CRL');
  const tbs = sequence(tbsNode, "the CRL's body");
  let i = is(tbs[0], TAG.integer) ? 1 : 0;
  i++; // its signature algorithm, repeated
  const issuer = tbs[i++];
  if (!issuer) throw new DerError('a CRL without an issuer');
  const thisUpdate = time(tbs[i++]);
  let nextUpdate: Date | undefined;
  if (tbs[i] && (is(tbs[i], TAG.utcTime) || is(tbs[i], TAG.generalizedTime))) nextUpdate = time(tbs[i++]);
  const list = is(tbs[i], TAG.sequence) ? tbs[i++] : undefined;
  const crl: Omit<Crl, 'entry'> = {
    tbs: encoded(tbsNode!),
    signatureAlgorithm: signatureAlgorithm!,
    signature: is(signatureValue, TAG.bitString) ? value(signatureValue).subarray(1) : new Uint8Array(),
    issuer: encoded(issuer),
    thisUpdate,
    ...(nextUpdate ? { nextUpdate } : {}),
    delta: false,
    scope: { onlyUsers: false, onlyCas: false, partial: false },
    unknownCritical: [],
  };
  if (!signatureAlgorithm) throw new DerError('a CRL without a signature');
  const extensions = tbs[i] && is(tbs[i], 0, 2) ? sequence(explicit(tbs[i]!), 'CRL extensions') : [];
  for (const extension of extensions) {
    const parts = sequence(extension, 'an extension');
    const id = oid(parts[0]);
    const critical = is(parts[1], TAG.boolean) && value(parts[1])[0] !== 0;
    const inner = readDer(octets(parts.at(-1)));
    if (critical && !UNDERSTOOD.has(id)) crl.unknownCritical.push(id);
    if (id === EXT.deltaCrlIndicator) crl.delta = true;
    else if (id === EXT.expiredCertsOnCrl) crl.expiredCertsSince = time(inner);
    else if (id === EXT.issuingDistributionPoint) {
      const fields = sequence(inner, 'the issuing distribution point');
      crl.scope = {
        onlyUsers: flag(fields, 1),
        onlyCas: flag(fields, 2),
        // Only some reasons, an indirect list, or attribute certificates only: it cannot say "good".
        partial: fields.some((f) => is(f, 3, 2)) || flag(fields, 4) || flag(fields, 5),
      };
    }
  }
  let entries: Map<string, CrlEntry> | undefined;
  return { ...crl, entry: (serial) => (entries ??= readEntries(list)).get(serial) };
}

/** Whether the list covers certificates such as `cert` (its issuing distribution point's scope). */
export function crlCovers(crl: Crl, cert: Certificate): boolean {
  return !(crl.scope.onlyUsers && cert.ca) && !(crl.scope.onlyCas && !cert.ca);
}

/** The list's signature by `issuer`: its name, a key that verifies, and leave to sign CRLs. */
export function checkCrlSignature(
  crl: Crl,
  issuer: Certificate,
  allowWeak: boolean,
): { ok: boolean; detail: string; weak?: true } {
  const who = displayName(issuer);
  if (!sameName(crl.issuer, issuer.subject))
    return { ok: false, detail: `it is issued by another CA than ${who}` };
  const check = verifySignature(crl.signatureAlgorithm, issuer.spki, crl.tbs, crl.signature);
  if (!check.ok)
    return { ok: false, detail: `it names ${who} as its issuer but is not signed by ${who}'s key` };
  if (check.weak && !allowWeak)
    return {
      ok: false,
      weak: true,
      detail: `it is signed with ${hashLabel(check.weak)}, a weak algorithm: not accepted`,
    };
  if (!certificateFacts(issuer).crlSign)
    return { ok: false, detail: `${who}'s certificate may not sign CRLs (key usage without cRLSign)` };
  if (crl.unknownCritical.length > 0)
    return {
      ok: false,
      detail: `it has a critical extension this check does not understand (${crl.unknownCritical.join(', ')})`,
    };
  return { ok: true, detail: `signed by ${who}` };
}

/** CRLReason codes (RFC 5280 5.3.1) as their names. */
export const REASONS: Record<number, string> = {
  0: 'unspecified',
  1: 'keyCompromise',
  2: 'cACompromise',
  3: 'affiliationChanged',
  4: 'superseded',
  5: 'cessationOfOperation',
  6: 'certificateHold',
  8: 'removeFromCRL',
  9: 'privilegeWithdrawn',
  10: 'aACompromise',
};

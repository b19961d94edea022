/**
 * The revocation data and certificates a signed PDF carries, wherever it keeps them: the DSS of
 * every revision (/OCSPs, /CRLs, /Certs, and the same kinds in each /VRI entry), each signature's
 * CMS (adbe-revocationInfoArchival among its signed attributes, CAdES certificate and revocation
 * values among its unsigned ones, and its own crls field), and the timestamp tokens' own
 * (a signature timestamp inside a CMS, a document timestamp). Each OCSP response or CRL is kept
 * once, with the revision whose bytes first hold it: a document timestamp of that revision or a
 * later one covers it.
 */
import { hash } from 'node:crypto';
import { children, encoded, explicit, is, oid, sequence, type Der } from '../der.js';
import { CMS_OID, parseSignedData, type SignedData } from '../cms.js';
import { dictOf, isStream, type PdfDict, type PdfValue } from '../pdf-objects.js';
import { catalogOf, type PdfFile, type Revision } from '../pdf-file.js';
import { decodeStream } from '../pdf-stream-decode.js';
import { rethrowLimit } from '../pdf-xref.js';
import { COST } from '../pdf-budget.js';
import { parseCertificate, type Certificate } from '../x509.js';

export const ATTRIBUTE = {
  /** Adobe's adbe-revocationInfoArchival, a signed attribute: what the signer fetched before signing. */
  adobeRevocation: '1.2.840.113583.1.1.8',
  /** CAdES id-aa-ets-certValues and id-aa-ets-revocationValues, unsigned attributes. */
  certificateValues: '1.2.840.113549.1.9.16.2.23',
  revocationValues: '1.2.840.113549.1.9.16.2.24',
} as const;

/** id-ri-ocsp-response: an OCSP response among a CMS's RevocationInfoChoices (RFC 5940). */
const OTHER_OCSP = '1.3.6.1.5.5.7.16.2';

/** Where a file keeps an item, as the verdict names it; `online` for data fetched by the check itself. */
export type ItemSource = 'dss' | 'signature' | 'timestamp' | 'online';

export interface RevocationItem {
  kind: 'ocsp' | 'crl';
  der: Uint8Array;
  source: ItemSource;
  /** The revision whose bytes first hold it; null for data fetched online. */
  revision: number | null;
  /** The revision of the signature whose signed attributes hold it: it was signed along. */
  signedWith?: number;
  /** The URL it was fetched from (online data). */
  url?: string;
}

export interface CarriedData {
  items: RevocationItem[];
  /** Every certificate the file carries: DSS, CMS, tokens, CAdES values. */
  certificates: Certificate[];
}

/** More items of a kind than any long-term archive holds (a few per signature, times a few hundred). */
const MAX_ITEMS = 4000;

/** What a signature of the file is, as the sources need it: its CMS (or token) and the revision it signed. */
export interface SignedPart {
  contents: Uint8Array;
  revision: number | null;
  documentTimestamp: boolean;
}

class Collector {
  readonly items: RevocationItem[] = [];
  readonly certificates: Certificate[] = [];
  private seen = new Set<string>();

  add(item: RevocationItem): void {
    const key = hash('sha1', item.der);
    if (this.seen.has(key) || this.items.length >= MAX_ITEMS) return;
    this.seen.add(key);
    this.items.push(item);
  }

  certificate(der: Uint8Array): void {
    const key = `c${hash('sha1', der)}`;
    if (this.seen.has(key) || this.certificates.length >= MAX_ITEMS) return;
    this.seen.add(key);
    try {
      this.certificates.push(parseCertificate(der));
    } catch {
      // An unreadable certificate helps no path.
    }
  }
}

/** RevocationInfoChoices: CertificateLists, and OCSP responses as other revocation info. */
function revocationChoices(node: Der, into: Collector, at: Omit<RevocationItem, 'kind' | 'der'>): void {
  for (const choice of children(node)) {
    if (is(choice, 16)) into.add({ kind: 'crl', der: encoded(choice), ...at });
    else if (is(choice, 1, 2)) {
      const [format, info] = children(choice);
      if (format && info && oid(format) === OTHER_OCSP) into.add({ kind: 'ocsp', der: encoded(info), ...at });
    }
  }
}

/** adbe-revocationInfoArchival's [0] CRLs and [1] OCSP responses, or CAdES revocation values' [0] and [1]. */
function revocationValues(value: Der, into: Collector, at: Omit<RevocationItem, 'kind' | 'der'>): void {
  for (const field of sequence(value, 'revocation values')) {
    const kind = is(field, 0, 2) ? 'crl' : is(field, 1, 2) ? 'ocsp' : null;
    if (!kind) continue;
    for (const entry of sequence(explicit(field), 'revocation entries'))
      into.add({ kind, der: encoded(entry), ...at });
  }
}

/** What one CMS (a signature's, or a timestamp token's) carries, its signature timestamp's too. */
function fromCms(data: SignedData, into: Collector, revision: number | null, source: ItemSource): void {
  for (const cert of data.certificates) into.certificate(cert.der);
  if (data.revocationInfo) revocationChoices(data.revocationInfo, into, { source, revision });
  for (const signer of data.signers) {
    for (const value of signer.signed.get(ATTRIBUTE.adobeRevocation) ?? [])
      revocationValues(value, into, {
        source,
        revision,
        ...(revision !== null && source === 'signature' ? { signedWith: revision } : {}),
      });
    for (const value of signer.unsigned.get(ATTRIBUTE.revocationValues) ?? [])
      revocationValues(value, into, { source, revision });
    for (const value of signer.unsigned.get(ATTRIBUTE.certificateValues) ?? [])
      for (const cert of sequence(value, 'certificate values')) into.certificate(encoded(cert));
    for (const token of signer.unsigned.get(CMS_OID.signatureTimeStamp) ?? []) {
      try {
        fromCms(parseSignedData(encoded(token)), into, revision, 'timestamp');
      } catch {
        // An unreadable token carries nothing: its own check says so.
      }
    }
  }
}

/** The streams an array of references names, decoded; a damaged one is skipped. */
function streams(rev: Revision, value: PdfValue | undefined, seen: Set<string>): Uint8Array[] {
  const list = rev.resolve(value);
  if (!Array.isArray(list)) return [];
  return list.slice(0, MAX_ITEMS).flatMap((ref) => {
    // Each object once for all revisions that share it: its number and the bytes it is read from.
    const key =
      typeof ref === 'object' && ref !== null && !Array.isArray(ref) && ref.kind === 'ref'
        ? `${ref.num}|${rev.entryKey(ref.num)}`
        : null;
    if (key && seen.has(key)) return [];
    if (key) seen.add(key);
    const stream = rev.resolve(ref);
    if (!isStream(stream)) return [];
    try {
      return [decodeStream(stream, rev.meter)];
    } catch (error) {
      rethrowLimit(error);
      return [];
    }
  });
}

/** A DSS dictionary's entries of each kind, its VRI entries' too. */
function dssParts(rev: Revision, dss: PdfDict): Record<'certs' | 'ocsps' | 'crls', (PdfValue | undefined)[]> {
  const parts = {
    certs: [dss.entries.get('Certs')],
    ocsps: [dss.entries.get('OCSPs')],
    crls: [dss.entries.get('CRLs')],
  };
  const vri = dictOf(rev.resolve(dss.entries.get('VRI')));
  for (const entry of vri ? [...vri.entries.values()].slice(0, MAX_ITEMS) : []) {
    const dict = dictOf(rev.resolve(entry));
    if (!dict) continue;
    parts.certs.push(dict.entries.get('Cert'));
    parts.ocsps.push(dict.entries.get('OCSP'));
    parts.crls.push(dict.entries.get('CRL'));
  }
  return parts;
}

/** Everything the file carries for revocation checking. */
export function carriedData(file: PdfFile, signatures: SignedPart[]): CarriedData {
  const into = new Collector();
  const seen = new Set<string>();
  for (const rev of file.revisions) {
    const dss = dictOf(rev.resolve(catalogOf(rev)?.entries.get('DSS')));
    if (!dss) continue;
    const parts = dssParts(rev, dss);
    for (const der of parts.certs.flatMap((v) => streams(rev, v, seen))) into.certificate(der);
    for (const [kind, values] of [
      ['ocsp', parts.ocsps],
      ['crl', parts.crls],
    ] as const)
      for (const der of values.flatMap((v) => streams(rev, v, seen)))
        into.add({ kind, der, source: 'dss', revision: rev.number });
  }
  for (const signature of signatures) {
    file.meter.add(COST.visit);
    try {
      const data = parseSignedData(signature.contents);
      fromCms(data, into, signature.revision, signature.documentTimestamp ? 'timestamp' : 'signature');
    } catch {
      // Not a CMS (adbe.x509.rsa_sha1, a damaged one): it carries nothing to read here.
    }
  }
  return { items: into.items, certificates: into.certificates };
}

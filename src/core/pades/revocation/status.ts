/**
 * A certificate's revocation status at the time it must be good, from the OCSP responses and
 * CRLs at hand. Each item is checked (an OCSP response about this certificate and issuer, signed
 * by the issuer or a responder it delegated; a CRL signed by the issuer's key and covering this
 * kind of certificate), then judged:
 *
 * - revoked at or before that time (or at a compromise it dates earlier): revoked, whatever the
 *   item's own dates (a revocation stays true);
 * - revoked later: good at that time only if something proves the thing it validates existed
 *   before the revocation (a timestamp), else revoked too;
 * - good, from an item that speaks for that time: issued at or after it (nothing was revoked by
 *   then), or current then (thisUpdate to nextUpdate), within GRACE either way; one issued after
 *   the certificate expired counts only when the list keeps expired certificates
 *   (ExpiredCertsOnCRL, OCSP's archive cutoff), since lists drop them;
 * - nothing usable: unknown, with what was found and why it does not serve.
 */
import { displayName, type Certificate } from '../x509.js';
import { COST, type Meter } from '../pdf-budget.js';
import { checkResponder, namesSerial, parseOcspResponse, responseFor, type OcspResponse } from './ocsp.js';
import { REASONS, checkCrlSignature, crlCovers, parseCrl, type Crl } from './crl.js';
import type { RevocationItem } from './sources.js';
import { sameName } from '../x509.js';

/** How far apart two clocks (a TSA's and a responder's) may be: five minutes either way. */
export const GRACE_MS = 5 * 60 * 1000;

export interface StatusQuestion {
  cert: Certificate;
  /** Its issuer's certificate; null when the file does not carry it. */
  issuer: Certificate | null;
  /** The time its status must be good at: when the signature or token it validates was made. */
  at: Date;
  /** Until when something proves that signature or token existed (a later timestamp; else now). */
  provenUntil: Date;
  /** What proves it, in words (`the signature timestamp of …`), or null when only the current time does. */
  proof: string | null;
}

export interface StatusAnswer {
  status: 'good' | 'revoked' | 'unknown';
  detail: string;
  /** The item the status rests on. */
  item?: RevocationItem;
  thisUpdate?: Date;
  nextUpdate?: Date;
  revokedAt?: Date;
  reason?: string;
  /** A delegated OCSP responder the answer rests on: its own status matters unless it carries ocsp-nocheck. */
  responder?: Certificate;
  /** The response's production time, the time a delegated responder's status must be good at. */
  producedAt?: Date;
  /** Every authentic item about the certificate, whatever time it speaks for (what a PAdES level counts). */
  about: RevocationItem[];
}

interface Finding {
  item: RevocationItem;
  status: 'good' | 'revoked' | 'unknown';
  thisUpdate: Date;
  nextUpdate?: Date;
  revokedAt?: Date;
  /** The earlier of the revocation date and a stated invalidity (compromise) date. */
  invalidSince?: Date;
  reason?: number;
  /** When it was issued after the certificate expired, whether it still lists expired certificates. */
  keepsExpired: boolean;
  responder?: Certificate;
  producedAt?: Date;
  signer: string;
}

export interface StatusContext {
  now: Date;
  allowWeak: boolean;
  /** The certificates the file carries (a responder's may be among them). */
  pool: Certificate[];
  meter: Meter;
}

const PARSED = new WeakMap<RevocationItem, OcspResponse | Crl | null>();

/** An item read once a run, counted on the file's meter by its size (a list of a million entries is read only when its issuer signed it). */
function parsed(item: RevocationItem, meter: Meter): OcspResponse | Crl | null {
  let value = PARSED.get(item);
  if (value === undefined) {
    meter.add(COST.byte * 8 * item.der.length);
    try {
      value = item.kind === 'ocsp' ? parseOcspResponse(item.der) : parseCrl(item.der);
    } catch {
      value = null;
    }
    PARSED.set(item, value);
  }
  return value;
}

/** A check of an item by an issuer, kept: the same responses are checked for every signature of an archive. */
type Kept = Map<Certificate, { ok: boolean; detail: string; delegate?: Certificate }>;
const CHECKED = new WeakMap<object, Kept>();
function kept<T extends { ok: boolean; detail: string }>(
  data: object,
  issuer: Certificate,
  check: () => T,
): T {
  let byIssuer = CHECKED.get(data);
  if (!byIssuer) CHECKED.set(data, (byIssuer = new Map() as Kept));
  let result = byIssuer.get(issuer) as T | undefined;
  if (!result) byIssuer.set(issuer, (result = check()));
  return result;
}

/** Where an item is, for the words of a verdict. */
export function whereItem(item: RevocationItem): string {
  const what = item.kind === 'ocsp' ? 'OCSP response' : 'CRL';
  switch (item.source) {
    case 'dss':
      return `the ${what} in the DSS`;
    case 'signature':
      return item.signedWith !== undefined
        ? `the ${what} signed with the signature`
        : `the ${what} in the signature's CMS`;
    case 'timestamp':
      return `the ${what} in a timestamp token`;
    case 'online':
      return `the ${what} fetched from ${item.url ?? 'its URL'}`;
  }
}

const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z');
export const reasonName = (code: number | undefined) =>
  code === undefined ? undefined : (REASONS[code] ?? `reason ${code}`);

/** What each item says about the certificate, or why it says nothing (`rejected`). */
function findings(question: StatusQuestion, items: RevocationItem[], ctx: StatusContext) {
  const { cert, issuer } = question;
  const found: Finding[] = [];
  const rejected: string[] = [];
  // Authentic items refused only as a policy (a weak hash): about the certificate all the same.
  const weak: RevocationItem[] = [];
  let others = 0;
  for (const item of items) {
    ctx.meter.add(COST.visit);
    const data = parsed(item, ctx.meter);
    if (!data) continue;
    if ('responses' in data) {
      const single = issuer ? responseFor(data, cert, issuer) : undefined;
      if (!single || !issuer) {
        if (namesSerial(data, cert))
          rejected.push(`${whereItem(item)} names its serial number under another issuer`);
        else others++;
        continue;
      }
      ctx.meter.add(COST.signature / 4);
      const responder = kept(data, issuer, () => checkResponder(data, issuer, ctx.pool, ctx.allowWeak));
      if (!responder.ok) {
        rejected.push(`${whereItem(item)} is not usable: ${responder.detail}`);
        if (responder.weak) weak.push(item);
        continue;
      }
      found.push({
        item,
        status: single.status,
        thisUpdate: single.thisUpdate,
        ...(single.nextUpdate ? { nextUpdate: single.nextUpdate } : {}),
        ...(single.revokedAt ? { revokedAt: single.revokedAt, invalidSince: single.revokedAt } : {}),
        ...(single.reason !== undefined ? { reason: single.reason } : {}),
        keepsExpired: data.archiveCutoff !== undefined && data.archiveCutoff <= cert.notAfter,
        ...(responder.delegate ? { responder: responder.delegate } : {}),
        producedAt: data.producedAt,
        signer: responder.detail,
      });
      continue;
    }
    if (!sameName(data.issuer, cert.issuer)) {
      others++;
      continue;
    }
    if (!issuer) continue;
    ctx.meter.add(COST.signature / 4);
    const signature = kept(data, issuer, () => checkCrlSignature(data, issuer, ctx.allowWeak));
    if (!signature.ok) {
      rejected.push(`${whereItem(item)} is not usable: ${signature.detail}`);
      if (signature.weak) weak.push(item);
      continue;
    }
    if (!crlCovers(data, cert)) {
      rejected.push(`${whereItem(item)} lists only ${data.scope.onlyCas ? 'CA' : 'end-entity'} certificates`);
      continue;
    }
    const entry = data.entry(cert.serial);
    if (!entry && (data.delta || data.scope.partial)) {
      rejected.push(
        `${whereItem(item)} is a ${data.delta ? 'delta' : 'partial'} CRL: it cannot show the certificate was not revoked`,
      );
      continue;
    }
    // removeFromCRL (a delta list's release of a hold) says nothing against the certificate.
    const revoked = entry !== undefined && entry.reason !== 8;
    found.push({
      item,
      status: revoked ? 'revoked' : 'good',
      thisUpdate: data.thisUpdate,
      ...(data.nextUpdate ? { nextUpdate: data.nextUpdate } : {}),
      ...(revoked
        ? {
            revokedAt: entry.revokedAt,
            invalidSince:
              entry.invalidSince && entry.invalidSince < entry.revokedAt
                ? entry.invalidSince
                : entry.revokedAt,
          }
        : {}),
      ...(revoked && entry.reason !== undefined ? { reason: entry.reason } : {}),
      keepsExpired: data.expiredCertsSince !== undefined && data.expiredCertsSince <= cert.notAfter,
      signer: signature.detail,
    });
  }
  return { found, rejected, others, weak };
}

/** Whether a finding speaks for `at`: issued at or after it, or current then; never from the future; not after expiry unless kept. */
function speaksFor(f: Finding, question: StatusQuestion, now: Date): string | null {
  const at = question.at.getTime();
  const issued = f.thisUpdate.getTime();
  if (issued > now.getTime() + GRACE_MS) return `it is dated ${iso(f.thisUpdate)}, in the future`;
  if (issued > question.cert.notAfter.getTime() && !f.keepsExpired)
    return `it was issued ${iso(f.thisUpdate)}, after the certificate expired, when lists no longer name it`;
  if (issued >= at - GRACE_MS) return null;
  if (f.nextUpdate && at <= f.nextUpdate.getTime() + GRACE_MS) return null;
  return f.nextUpdate
    ? `it speaks for ${iso(f.thisUpdate)} to ${iso(f.nextUpdate)}, not for ${iso(question.at)}`
    : `it speaks for ${iso(f.thisUpdate)}, before ${iso(question.at)}, and names no next update`;
}

const answerOf = (
  f: Finding,
  status: StatusAnswer['status'],
  detail: string,
  about: RevocationItem[],
): StatusAnswer => ({
  status,
  about,
  detail,
  item: f.item,
  thisUpdate: f.thisUpdate,
  ...(f.nextUpdate ? { nextUpdate: f.nextUpdate } : {}),
  ...(f.revokedAt ? { revokedAt: f.revokedAt } : {}),
  ...(f.reason !== undefined ? { reason: reasonName(f.reason)! } : {}),
  ...(f.responder ? { responder: f.responder } : {}),
  ...(f.producedAt ? { producedAt: f.producedAt } : {}),
});

/** The certificate's status at `question.at`, from `items`. */
export function certificateStatus(
  question: StatusQuestion,
  items: RevocationItem[],
  ctx: StatusContext,
): StatusAnswer {
  const name = displayName(question.cert);
  if (!question.issuer)
    return {
      status: 'unknown',
      detail: `${name}: its issuer's certificate is not in the file, so no revocation data can be checked`,
      about: [],
    };
  const { found, rejected, others, weak } = findings(question, items, ctx);
  const about = [...found.map((f) => f.item), ...weak];
  const revocations = found
    .filter((f) => f.status === 'revoked')
    // A hold (certificateHold) lifted by a later item that says good is no revocation.
    .filter((f) => f.reason !== 6 || !found.some((g) => g.status === 'good' && g.thisUpdate > f.thisUpdate))
    .sort((a, b) => a.invalidSince!.getTime() - b.invalidSince!.getTime());
  const reasonText = (f: Finding) => (f.reason !== undefined ? ` (${reasonName(f.reason)})` : '');
  const first = revocations[0];
  if (first && first.invalidSince! <= question.at) {
    const compromise =
      first.invalidSince! < first.revokedAt! ? `, its key invalid since ${iso(first.invalidSince!)}` : '';
    return answerOf(
      first,
      'revoked',
      `${name} was revoked on ${iso(first.revokedAt!)}${reasonText(first)}${compromise}, before ${iso(question.at)}, the time it had to be good (${whereItem(first.item)})`,
      about,
    );
  }
  if (first && first.invalidSince! <= question.provenUntil)
    return answerOf(
      first,
      'revoked',
      `${name} was revoked on ${iso(first.revokedAt!)}${reasonText(first)}, and nothing proves what it signed existed before then (${whereItem(first.item)})`,
      about,
    );
  if (first)
    return answerOf(
      first,
      'good',
      `${name} was revoked on ${iso(first.revokedAt!)}${reasonText(first)}, after ${question.proof ?? 'the time asked for'} proved what it signed existed on ${iso(question.provenUntil)}: it was good then (${whereItem(first.item)})`,
      about,
    );
  const stale: string[] = [];
  for (const f of found.filter((g) => g.status === 'good')) {
    const why = speaksFor(f, question, ctx.now);
    if (why === null)
      return answerOf(
        f,
        'good',
        `${name}: good at ${iso(question.at)} (${whereItem(f.item)} of ${iso(f.thisUpdate)}, ${f.signer})`,
        about,
      );
    stale.push(`${whereItem(f.item)} does not serve: ${why}`);
  }
  const unknown = found.find((f) => f.status === 'unknown');
  if (unknown) stale.push(`${whereItem(unknown.item)} says its responder does not know it`);
  const reasons = [...stale, ...rejected];
  if (reasons.length > 0) return { status: 'unknown', detail: `${name}: ${reasons.join('; ')}`, about };
  return {
    status: 'unknown',
    detail: `${name}: no OCSP response or CRL about it in the file${others > 0 ? ` (${others} about other certificates)` : ''}`,
    about,
  };
}

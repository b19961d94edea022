/**
 * The sandbox CA's record of what it issued and revoked (`certificates.json`
 * in the data dir, written whole and renamed into place): each signing and
 * TSA certificate with the sandbox time from which it signs (`since`) and the
 * base URL its AIA and CRL distribution points name, and each revocation
 * with its date, reason and the sandbox time it was recorded.
 *
 * Everything a signed copy says about certificates is this record as it
 * stood at the copy's completion time: which certificate signs, and what its
 * OCSP responses and CRL say. A copy made again later is the same bytes,
 * whatever was revoked or issued since.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from './key-files.js';

export type CertificateRole = 'signing' | 'tsa';
export const CERTIFICATE_ROLES: readonly CertificateRole[] = ['signing', 'tsa'];

/** RFC 5280's CRLReason codes a revocation may give (certificateHold and removeFromCRL aside: no holds here). */
export const REVOCATION_REASONS = {
  unspecified: 0,
  keyCompromise: 1,
  cACompromise: 2,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
  privilegeWithdrawn: 9,
} as const;
export type RevocationReason = keyof typeof REVOCATION_REASONS;

export interface IssuedCertificate {
  role: CertificateRole;
  /** The serial number as hex (the INTEGER's bytes, as written). */
  serial: string;
  /** From this sandbox time (ISO) on, it signs; the first of its role signs for all times before. */
  since: string;
  /** The base URL its AIA and CRL distribution points name (null: none, a certificate from before they were named). */
  url: string | null;
  /** Its PEM and its private key's, relative to the data dir. */
  file: string;
  keyFile: string;
}

export interface Revocation {
  role: CertificateRole;
  serial: string;
  /** The revocation date (ISO): when the certificate stopped being good. */
  at: string;
  reason: RevocationReason;
  /** The sandbox time (ISO) it was recorded: what the CA says as of an earlier time does not know it. */
  recorded: string;
}

export interface Ledger {
  issued: IssuedCertificate[];
  revocations: Revocation[];
}

export type CertificateStatus =
  { status: 'good' } | { status: 'revoked'; at: Date; reason: RevocationReason } | { status: 'unknown' };

export const LEDGER_FILE = 'certificates.json';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The ledger of `dataDir`, or null when there is none yet (a new data dir, or one from before it existed). */
export function readLedger(dataDir: string): Ledger | null {
  const path = join(dataDir, LEDGER_FILE);
  if (!existsSync(path)) return null;
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isObject(parsed) || !Array.isArray(parsed.issued) || !Array.isArray(parsed.revocations))
    throw new Error(`${path} is not the sandbox CA's ledger (issued and revocations lists)`);
  return { issued: parsed.issued as IssuedCertificate[], revocations: parsed.revocations as Revocation[] };
}

/** Written whole, then renamed over the old one: a crash leaves one or the other. */
export function writeLedger(dataDir: string, ledger: Ledger): void {
  const path = join(dataDir, LEDGER_FILE);
  writePrivateFile(`${path}.part`, `${JSON.stringify(ledger, null, 2)}\n`);
  renameSync(`${path}.part`, path);
}

/** The certificate of `role` that signs at `time`: the last issued by then, or the first of its role. */
export function signerAt(ledger: Ledger, role: CertificateRole, time: number): IssuedCertificate | undefined {
  const ofRole = ledger.issued.filter((c) => c.role === role);
  return ofRole.filter((c) => Date.parse(c.since) <= time).at(-1) ?? ofRole[0];
}

/** The status of a serial as the CA knew it at `time` (revocations recorded after it are not yet known). */
export function statusAt(ledger: Ledger, serial: string, time: number): CertificateStatus {
  const wanted = serial.toLowerCase();
  if (!ledger.issued.some((c) => c.serial === wanted)) return { status: 'unknown' };
  const revoked = ledger.revocations.find((r) => r.serial === wanted && Date.parse(r.recorded) <= time);
  return revoked
    ? { status: 'revoked', at: new Date(revoked.at), reason: revoked.reason }
    : { status: 'good' };
}

/** The revocations known at `time`, for a CRL. */
export const revocationsAt = (ledger: Ledger, time: number): Revocation[] =>
  ledger.revocations.filter((r) => Date.parse(r.recorded) <= time);

/** The latest sandbox time the ledger records: the sandbox clock resumes after it. */
export function latestLedgerTime(dataDir: string): number {
  let ledger: Ledger | null;
  try {
    ledger = readLedger(dataDir);
  } catch {
    return 0;
  }
  const times = [
    ...(ledger?.issued ?? []).map((c) => Date.parse(c.since)),
    ...(ledger?.revocations ?? []).map((r) => Date.parse(r.recorded)),
  ].filter((t) => Number.isFinite(t));
  return Math.max(0, ...times);
}

/**
 * What verify.ts answers and what it hands the checks of each signature (signature-checks.ts):
 * the verdicts and options as types, apart from both so neither imports the other.
 */
import type { PdfFile } from './pdf-file.js';
import type { TrustAnchors } from './chain.js';
import type { JudgedChange } from './changes/revisions.js';
import type { Change } from './changes/record.js';
import type { PdfLimits } from './pdf-budget.js';
import type { Certificate } from './x509.js';
import type { PdfSignature } from './pdf-signatures.js';
import type { FetchRecord, RevocationFetch } from './revocation/online.js';

export type CheckName =
  | 'byte range'
  | 'digest'
  | 'signature'
  | 'certificate chain'
  | 'certificate purpose'
  | 'signing certificate'
  | 'timestamp'
  | 'revocation'
  | 'changes after';

/**
 * Why a check failed, which decides what the failure says about the document: its bytes or a
 * signature do not verify (`broken`); a change after the signature that it does not allow
 * (`modified`); an algorithm refused as a policy though the bytes verify (`weak`: SHA-1); a
 * certificate not trusted for this use or at this time (`untrusted`); or something that could not
 * be checked at all (`unverifiable`: a timestamp whose TSA certificate is nowhere in the file, a
 * revocation status unknown when it is required); a certificate revoked before the time it had to
 * be good (`revoked`).
 */
export type Failure = 'broken' | 'modified' | 'weak' | 'untrusted' | 'unverifiable' | 'revoked';

export interface CheckResult {
  check: CheckName;
  ok: boolean;
  detail: string;
  /** Set when the check failed. */
  failure?: Failure;
  /** Set on a check that passed with a reservation (a revocation status unknown, checked softly). */
  warning?: true;
}

/**
 * What a signature says of the document, trust and policy aside: its bytes verify and nothing
 * follows it (`intact`), what follows is allowed after it (`modified-allowed`) or is not
 * (`modified-disallowed`), or its bytes or signature do not verify (`broken`).
 */
export type Integrity = 'intact' | 'modified-allowed' | 'modified-disallowed' | 'broken';

export interface TimestampVerdict {
  /** The time the token proves (ISO 8601), when it could be read. */
  time: string | null;
  tsa: string | null;
  valid: boolean;
  detail: string;
}

export interface SignatureVerdict {
  field: string;
  /** The certificate's common name (else its whole subject), when the CMS could be read. */
  signer: string | null;
  /** /M of the signature dictionary (claimed by the signer, not proved), or a document timestamp's time. */
  signing_time: string | null;
  sub_filter: string | null;
  type: 'approval' | 'certification' | 'document timestamp';
  /** The revision this signature signed (1 = the first), or null when its bytes end inside one. */
  revision: number | null;
  /** The DocMDP permission in force after this signature (1, 2, 3), or null when none is set. */
  docmdp: number | null;
  timestamp: TimestampVerdict | null;
  /** The time the certificate chain was validated at, and where it came from. */
  validated_at: string;
  validation_time: 'now' | 'timestamp' | 'claimed' | 'given';
  changes_after: JudgedChange[];
  checks: CheckResult[];
  /** What the signature says of the document, whatever trust and policy say (integrity.ts). */
  integrity: Integrity;
  /** The revocation status of every certificate its checks rest on; null when there is no certificate to check. */
  revocation: RevocationVerdict | null;
  /** Its long-term status (a signature's; null for a document timestamp and a bare PKCS#1 signature). */
  ltv: LongTermVerdict | null;
  valid: boolean;
}

/** One certificate's revocation status, and what it rests on. */
export interface CertificateRevocation {
  certificate: string;
  serial: string;
  role: 'signer' | 'signer CA' | 'TSA' | 'TSA CA' | 'OCSP responder';
  /** The time its status had to be good at (ISO 8601). */
  needed_at: string;
  status: 'good' | 'revoked' | 'unknown';
  /** Where the OCSP response or CRL the status rests on is: the DSS, the signature's CMS, a timestamp token, or fetched online. */
  source: 'dss' | 'signature' | 'timestamp' | 'online' | null;
  kind: 'ocsp' | 'crl' | null;
  this_update: string | null;
  next_update: string | null;
  revoked_at: string | null;
  reason: string | null;
  /** Whether a timestamp covers that data (a document timestamp after it, or the signature's own, for data signed with it). */
  covered: boolean;
  detail: string;
}

export interface RevocationVerdict {
  /** The worst of the certificates' statuses. */
  status: 'good' | 'revoked' | 'unknown';
  /** `soft` passes an unknown status with a warning, `require` fails it; a revoked one fails under both. */
  policy: 'soft' | 'require';
  certificates: CertificateRevocation[];
}

/** PAdES baseline levels (ETSI EN 319 142-1), as what the file holds for the signature makes them. */
export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

export interface LongTermVerdict {
  level: PadesLevel;
  /**
   * Every certificate's revocation data embedded (not fetched online), saying it was good when it
   * had to be, and covered by a timestamp; the last document timestamp's own chain excepted.
   */
  complete: boolean;
  detail: string;
  /** Until when the file proves the signature by itself: the expiry of the first certificate checked at the current time. */
  proves_until: string | null;
  /** What expires then, and so what a new document timestamp must come before. */
  renewal: string | null;
}

export interface RevisionSummary {
  revision: number;
  /** Bytes [0, end) are this revision. */
  end: number;
  /** The signature fields whose signatures signed exactly this revision. */
  signed_by: string[];
  /** What this revision changed in the one before it (none for the first). */
  changes: Omit<Change, 'need' | 'revision'>[];
}

export interface PdfVerdict {
  bytes: number;
  sha256: string;
  revisions: RevisionSummary[];
  signatures: SignatureVerdict[];
  /** Bytes or revisions follow the last signature. */
  modified_after_signing: boolean;
  /**
   * Whether the file is encrypted, and how it was read: decrypted (by the empty user password, as
   * readers open it, or the one given), or not (its objects compared as written).
   */
  encryption:
    'none' | 'decrypted with the empty password' | 'decrypted with the password given' | 'not decrypted';
  /** The worst of the signatures' integrity, or `not-signed` when the file has none. */
  integrity: Integrity | 'not-signed';
  /** The requests made for revocation data the file lacks (`online`), or null when none were allowed. */
  online: FetchRecord[] | null;
  valid: boolean;
}

export interface VerifyOptions {
  /** Extra trusted roots, DER (`--trust`). */
  trusted?: Uint8Array[];
  /** Node's roots too (default true). */
  systemRoots?: boolean;
  /** Validate at another time: the signer's claimed /M, or a given instant. */
  at?: 'claimed' | Date;
  /** The current time (a clock, for tests). */
  now?: Date;
  /** Stops the verification (InterruptedError) once aborted: Ctrl-C, SIGTERM. */
  signal?: AbortSignal;
  /**
   * Milliseconds on a monotonic clock (process.hrtime by default): the verification gives the
   * event loop a turn, and looks at `signal`, when 40 ms of it have passed since the last turn.
   */
  monotonic?: () => number;
  /** Bounds other than the defaults (DEFAULT_LIMITS): tests make them small. */
  limits?: Partial<PdfLimits>;
  /** Accept SHA-1 (a weak algorithm) where the bytes verify with it, instead of failing it as a policy. */
  allowWeak?: boolean;
  /** The password of an encrypted PDF (user or owner); the empty password is always tried first. */
  password?: string;
  /** Told the work the reading took, when it is done (tests check that it is linear in the file's size). */
  onWork?: (work: { units: number; allowed: number; inflated: number }) => void;
  /** An unknown revocation status passes with a warning (`soft`, the default) or fails (`require`). */
  revocation?: 'soft' | 'require';
  /** Ask the certificates' responders and CRL distribution points, through this, about each status the file leaves unknown or shows good. */
  online?: RevocationFetch;
}

/** A valid document timestamp that proves when everything before it existed. */
export interface Proof {
  time: Date;
  field: string;
}

/** A certificate path as a check found it: the certificate that signed first, and the time it was validated at. */
export interface ChainEvidence {
  path: Certificate[];
  leaf: Certificate;
  at: Date;
}

/** What a timestamp token's check found. */
export interface TokenEvidence {
  genTime: Date | null;
  /** Trusted: every check passed. */
  ok: boolean;
  /** Its imprint and signature verify, whoever signed it. */
  intact: boolean;
  chain: ChainEvidence | null;
  /** The document timestamp that proves it existed, if one does. */
  proof: Proof | undefined;
}

/** What a signature's checks found, for the long-term checks (ltv/) that follow them. */
export interface SignatureEvidence {
  /** The signer's path (a CMS or bare PKCS#1 signature); null for a document timestamp. */
  signer: ChainEvidence | null;
  /** What proves the time the signer's path was validated at, in words; null when nothing does (the current time). */
  signerProof: string | null;
  /** The signature timestamp, or the document timestamp's own token. */
  stamp: TokenEvidence | null;
}

/** Everything a signature's checks need to know about the file. */
export interface VerifyContext {
  pdf: Uint8Array;
  file: PdfFile;
  anchors: TrustAnchors;
  now: Date;
  at: VerifyOptions['at'];
  allowWeak: boolean;
  /** Certificates the document carries besides its signatures' (the DSS's /Certs): issuers and TSAs found there. */
  extraCertificates: Certificate[];
  /** The first valid document timestamp after a revision: what proves when it existed. */
  proofAfter(revision: number | null): Proof | undefined;
  /** What each signature's checks found, by signature. */
  evidence: Map<PdfSignature, SignatureEvidence>;
}

/**
 * Which certificates a signature's revocation check asks about, and for which time: every
 * certificate of the signer's path (its root aside) at the time the signature is proven to have
 * been made, every certificate of its timestamp's TSA path at the time the token was made, and
 * the delegated OCSP responders the answers rest on (unless they carry ocsp-nocheck) at the time
 * they answered. Each asked once per run of a file: the archives of many signatures share one
 * TSA and one CA. Online data is asked for only where the file's own leaves a status unknown.
 */
import { issuedBy, sameName, type Certificate } from '../x509.js';
import { certificateFacts } from '../revocation/cert-facts.js';
import {
  certificateStatus,
  type StatusAnswer,
  type StatusContext,
  type StatusQuestion,
} from '../revocation/status.js';
import {
  fetchRevocation,
  publishesStatus,
  type FetchRecord,
  type RevocationFetch,
} from '../revocation/online.js';
import type { RevocationItem } from '../revocation/sources.js';
import type { CertificateRevocation, ChainEvidence } from '../verdicts.js';

/** Whether a timestamp covers an item: a valid document timestamp after it, or the signature it was signed with, timestamped. */
export type Covered = (item: RevocationItem) => boolean;

export interface Question extends StatusQuestion {
  role: CertificateRevocation['role'];
}

/** A question with its answers: from the file alone (what long-term status rests on) and in the end (online data included). */
export interface Answered {
  question: Question;
  embedded: StatusAnswer;
  final: StatusAnswer;
}

const selfIssued = (cert: Certificate) => sameName(cert.subject, cert.issuer) && issuedBy(cert, cert, true);

/** The path a check validated, or, when none reached a trusted root, the issuers the file carries up to a self-signed one. */
export function pathOf(
  chain: ChainEvidence,
  pool: Certificate[],
): { path: Certificate[]; anchored: boolean } {
  if (chain.path.length > 0) return { path: chain.path, anchored: true };
  const path = [chain.leaf];
  while (path.length < 10 && !selfIssued(path.at(-1)!)) {
    const current = path.at(-1)!;
    const issuer = pool.find(
      (c) => !path.includes(c) && sameName(c.subject, current.issuer) && issuedBy(current, c, true),
    );
    if (!issuer) break;
    path.push(issuer);
  }
  return { path, anchored: false };
}

/** The questions about a path's certificates: all but its anchor (or its self-signed top); a top whose issuer is missing is asked with none. */
export function pathQuestions(
  chain: ChainEvidence,
  pool: Certificate[],
  roles: [Question['role'], Question['role']],
  times: Omit<StatusQuestion, 'cert' | 'issuer'>,
): Question[] {
  const { path, anchored } = pathOf(chain, pool);
  const questions: Question[] = [];
  for (const [i, cert] of path.entries()) {
    const issuer = path[i + 1] ?? null;
    if (!issuer && (anchored || selfIssued(cert))) break;
    questions.push({ cert, issuer, role: i === 0 ? roles[0] : roles[1], ...times });
  }
  return questions;
}

const key = (q: StatusQuestion) =>
  `${Buffer.from(q.cert.der.subarray(-64)).toString('hex')}|${q.cert.serial}|${q.issuer?.serial ?? '-'}|${q.at.getTime()}|${q.provenUntil.getTime()}`;

/** Answers questions from the file's items, then online where allowed; keeps what it answered and fetched for the next signature. */
export class Answers {
  private known = new Map<string, Answered>();
  private online: RevocationItem[] = [];
  private fetched = new Set<string>();
  readonly requests: FetchRecord[] = [];

  constructor(
    private readonly items: RevocationItem[],
    private readonly ctx: StatusContext,
    private readonly fetch: RevocationFetch | undefined,
    private readonly signal?: AbortSignal,
  ) {}

  /** The answers to `questions`, with those about the delegated responders they rest on after them. */
  async answer(questions: Question[]): Promise<Answered[]> {
    const out: Answered[] = [];
    const asked = new Set<string>();
    const queue = [...questions];
    for (let q = queue.shift(); q; q = queue.shift()) {
      const k = key(q);
      if (asked.has(k)) continue;
      asked.add(k);
      const answered = await this.one(q);
      out.push(answered);
      const responder = answered.final.responder;
      if (
        responder &&
        answered.question.issuer &&
        !certificateFacts(responder).ocspNoCheck &&
        out.length < 64
      )
        queue.push({
          cert: responder,
          issuer: answered.question.issuer,
          role: 'OCSP responder',
          at: answered.final.producedAt ?? q.at,
          provenUntil: q.provenUntil,
          proof: q.proof,
        });
    }
    return out;
  }

  private async one(question: Question): Promise<Answered> {
    const k = key(question);
    const known = this.known.get(k);
    if (known) return { ...known, question };
    const embedded = certificateStatus(question, this.items, this.ctx);
    let final = embedded;
    // Online, a status the file shows good is asked about too: a revocation since the file's data
    // was gathered is what a person asking online wants to know (NSS, under pdfsig, asks as well).
    // A revocation the file shows needs nothing more.
    if (embedded.status !== 'revoked' && this.fetch && question.issuer) {
      const id = `${question.cert.serial}|${question.issuer.serial}`;
      if (!this.fetched.has(id) && publishesStatus(question.cert)) {
        this.fetched.add(id);
        const got = await fetchRevocation(question.cert, question.issuer, this.fetch, this.signal);
        this.online.push(...got.items);
        this.requests.push(...got.requests);
      }
      if (this.online.length > 0) {
        const withOnline = certificateStatus(question, this.online, this.ctx);
        if (embedded.status === 'good') {
          // Revoked since: before the time it had to be good fails, after it passes and says why.
          if (withOnline.status === 'revoked' || withOnline.revokedAt) final = withOnline;
        } else if (withOnline.status !== 'unknown' || withOnline.item) final = withOnline;
        else if (this.fetched.has(id))
          final = {
            ...embedded,
            detail: `${embedded.detail}; fetched online: ${withOnline.detail.replace(/^[^:]*: /, '')}`,
          };
      }
    }
    const answered = { question, embedded, final };
    this.known.set(k, answered);
    return answered;
  }
}

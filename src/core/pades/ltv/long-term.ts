/**
 * The checks that follow a signature's own: the revocation status of every certificate it rests
 * on (questions.ts, revocation/), added to its checks as `revocation`, and its long-term status
 * (level.ts). Run once every signature and document timestamp has been checked, on what those
 * checks found (their evidence) and what the file carries (revocation/sources.ts).
 */
import { displayName, type Certificate } from '../x509.js';
import { carriedData } from '../revocation/sources.js';
import { whereItem } from '../revocation/status.js';
import type { FetchRecord, RevocationFetch } from '../revocation/online.js';
import type { FoundSignature } from '../document-signatures.js';
import type {
  CertificateRevocation,
  CheckResult,
  RevocationVerdict,
  SignatureEvidence,
  SignatureVerdict,
  VerifyContext,
} from '../verdicts.js';
import { Answers, pathQuestions, type Answered, type Covered, type Question } from './questions.js';
import { longTermStatus } from './level.js';

export interface LongTermOptions {
  policy: 'soft' | 'require';
  fetch?: RevocationFetch;
  /** Stops the requests online (InterruptedError) once aborted. */
  signal?: AbortSignal;
}

const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z');
const isoOrNull = (d: Date | undefined) => (d ? iso(d) : null);

/** What a signature's checks found, as questions: its signer's path, then its timestamp's TSA path. */
function questionsOf(evidence: SignatureEvidence, pool: Certificate[], ctx: VerifyContext) {
  const signer = evidence.signer
    ? pathQuestions(evidence.signer, pool, ['signer', 'signer CA'], {
        at: evidence.signer.at,
        provenUntil: evidence.signer.at,
        proof: evidence.signerProof,
      })
    : [];
  const stamp = evidence.stamp;
  const tsa: Question[] =
    stamp?.intact && stamp.chain && stamp.genTime
      ? pathQuestions(stamp.chain, pool, ['TSA', 'TSA CA'], {
          // The token's time, or an earlier time asked for (`--at`).
          at: ctx.at instanceof Date && ctx.at < stamp.genTime ? ctx.at : stamp.genTime,
          provenUntil: stamp.chain.at,
          proof: stamp.proof
            ? `the document timestamp ${stamp.proof.field} of ${iso(stamp.proof.time)}`
            : ctx.at instanceof Date
              ? 'the time asked for'
              : null,
        })
      : [];
  return { signer, tsa };
}

function row(answered: Answered, covered: Covered): CertificateRevocation {
  const { question, final } = answered;
  return {
    certificate: displayName(question.cert),
    serial: question.cert.serial,
    role: question.role,
    needed_at: iso(question.at),
    status: final.status,
    source: final.item?.source ?? null,
    kind: final.item?.kind ?? null,
    this_update: isoOrNull(final.thisUpdate),
    next_update: isoOrNull(final.nextUpdate),
    revoked_at: isoOrNull(final.revokedAt),
    reason: final.reason ?? null,
    covered: final.item ? covered(final.item) : false,
    detail: final.detail,
  };
}

/** The `revocation` check: revoked fails; unknown fails under `require` and passes with a warning under `soft`. */
function revocationCheck(answered: Answered[], policy: LongTermOptions['policy']): CheckResult {
  const revoked = answered.filter((a) => a.final.status === 'revoked');
  const unknown = answered.filter((a) => a.final.status === 'unknown');
  if (revoked.length > 0)
    return {
      check: 'revocation',
      ok: false,
      failure: 'revoked',
      detail: revoked.map((a) => a.final.detail).join('; '),
    };
  if (unknown.length > 0) {
    const why = unknown.map((a) => a.final.detail).join('; ');
    return policy === 'require'
      ? { check: 'revocation', ok: false, failure: 'unverifiable', detail: `unknown, and required: ${why}` }
      : {
          check: 'revocation',
          ok: true,
          warning: true,
          detail: `unknown, accepted as revocation is checked softly: ${why}`,
        };
  }
  const where = (a: Answered) =>
    a.final.revokedAt
      ? a.final.detail
      : `${displayName(a.question.cert)} (${a.final.item ? whereItem(a.final.item) : 'checked'})`;
  return {
    check: 'revocation',
    ok: true,
    detail: `not revoked when each had to be good: ${answered.map(where).join('; ')}`,
  };
}

/** The revocation checks and long-term status of every signature; the requests made online (null when none were allowed). */
export async function longTermChecks(
  ctx: VerifyContext,
  signatures: FoundSignature[],
  revisions: (number | null)[],
  verdicts: SignatureVerdict[],
  options: LongTermOptions,
): Promise<FetchRecord[] | null> {
  if (signatures.length === 0) return options.fetch ? [] : null;
  const data = carriedData(
    ctx.file,
    signatures.map((s, i) => ({
      contents: s.contents,
      revision: revisions[i] ?? null,
      documentTimestamp: s.documentTimestamp,
    })),
  );
  const seen = new Set<string>();
  const pool = [...ctx.extraCertificates, ...data.certificates].filter((c) => {
    const key = Buffer.from(c.der).toString('base64');
    return !seen.has(key) && !!seen.add(key);
  });
  const answers = new Answers(
    data.items,
    { now: ctx.now, allowWeak: ctx.allowWeak, pool, meter: ctx.file.meter },
    options.fetch,
    options.signal,
  );
  const stamped = new Set(
    signatures.flatMap((s, i) => (ctx.evidence.get(s)?.stamp?.ok && revisions[i] ? [revisions[i]] : [])),
  );
  const covered: Covered = (item) =>
    item.source !== 'online' &&
    ((item.revision !== null &&
      ctx.proofAfter(item.source === 'dss' ? item.revision - 1 : item.revision) !== undefined) ||
      (item.signedWith !== undefined && stamped.has(item.signedWith)));
  const answeredBy = new Map<number, { signer: Answered[]; tsa: Answered[] }>();
  // Document timestamps first: the long-term status of a signature rests on theirs.
  const order = [...signatures.keys()].sort(
    (a, b) => Number(signatures[b]!.documentTimestamp) - Number(signatures[a]!.documentTimestamp),
  );
  for (const i of order) {
    const evidence = ctx.evidence.get(signatures[i]!);
    if (!evidence) continue;
    const questions = questionsOf(evidence, pool, ctx);
    const signer = await answers.answer(questions.signer);
    const tsa = await answers.answer(questions.tsa);
    const all = [...signer, ...tsa];
    if (all.length === 0) continue;
    answeredBy.set(i, { signer, tsa });
    const verdict = verdicts[i]!;
    const check = revocationCheck(all, options.policy);
    const chainAt = verdict.checks.findIndex((c) => c.check === 'certificate chain');
    verdict.checks.splice(chainAt === -1 ? verdict.checks.length : chainAt + 1, 0, check);
    const status = all.some((a) => a.final.status === 'revoked')
      ? 'revoked'
      : all.some((a) => a.final.status === 'unknown')
        ? 'unknown'
        : 'good';
    const revocation: RevocationVerdict = {
      status,
      policy: options.policy,
      certificates: all.map((a) => row(a, covered)),
    };
    verdict.revocation = revocation;
    verdict.valid = verdict.checks.every((c) => c.ok);
  }
  for (const [i, signature] of signatures.entries()) {
    const evidence = ctx.evidence.get(signature);
    if (signature.documentTimestamp || !evidence?.signer || signature.subFilter === 'adbe.x509.rsa_sha1')
      continue;
    verdicts[i]!.ltv = longTermStatus({
      ctx,
      index: i,
      signatures,
      revisions,
      answeredBy,
      covered,
      pool,
    });
  }
  return options.fetch ? answers.requests : null;
}

/**
 * A signature's long-term status: its PAdES baseline level (ETSI EN 319 142-1) by what the file
 * holds, whether it is LTV-complete, and until when it proves itself.
 *
 * - B-B: a CMS signature; B-T: with a timestamp (its own, or a document timestamp after it) whose
 *   imprint matches and whose signature is not broken, whoever's; B-LT: the file also carries
 *   authentic revocation data about every certificate of the signer's path and of that
 *   timestamp's TSA path (the roots aside, and a top whose issuer the file lacks), whatever time
 *   it speaks for; B-LTA: a document timestamp after that data. What the level counts is
 *   structure, not trust: an untrusted root or a weak hash does not lower it.
 * - LTV-complete: a trusted timestamp proves when it was signed, and every certificate it rests
 *   on (signer, TSAs, delegated responders, and the TSAs of the document timestamps after it
 *   but the last) has revocation data embedded in the file (not fetched online) that says it
 *   was good when it had to be, covered by a timestamp. The last document timestamp's own chain
 *   is checked at the current time: nothing can cover it until the next one.
 * - Proves itself until: the first expiry among the certificates checked at the current time
 *   (the last document timestamp's TSA path; with none, the signature timestamp's; with no
 *   timestamp, the signer's): before then, a new document timestamp extends it.
 */
import { displayName, type Certificate } from '../x509.js';
import { whereItem } from '../revocation/status.js';
import type { FoundSignature } from '../document-signatures.js';
import type { ChainEvidence, LongTermVerdict, PadesLevel, VerifyContext } from '../verdicts.js';
import { pathOf, type Answered, type Covered } from './questions.js';

export interface LevelInputs {
  ctx: VerifyContext;
  index: number;
  signatures: FoundSignature[];
  revisions: (number | null)[];
  answeredBy: Map<number, { signer: Answered[]; tsa: Answered[] }>;
  covered: Covered;
  pool: Certificate[];
}

const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z');

/** The document timestamps after revision `s`, by revision. */
function stampsAfter({ ctx, signatures, revisions }: LevelInputs, s: number) {
  return [...signatures.keys()]
    .filter((j) => signatures[j]!.documentTimestamp && (revisions[j] ?? 0) > s)
    .sort((a, b) => revisions[a]! - revisions[b]!)
    .map((j) => ({
      j,
      field: signatures[j]!.field,
      revision: revisions[j]!,
      stamp: ctx.evidence.get(signatures[j]!)?.stamp,
    }));
}

function level(inputs: LevelInputs, s: number): PadesLevel {
  const { ctx, index, signatures, answeredBy } = inputs;
  const own = ctx.evidence.get(signatures[index]!)!;
  const after = stampsAfter(inputs, s).filter((d) => d.stamp?.intact);
  const byDocument = !own.stamp?.intact ? after[0] : undefined;
  if (!own.stamp?.intact && !byDocument) return 'B-B';
  const signer = answeredBy.get(index)?.signer ?? [];
  const tsa = byDocument ? (answeredBy.get(byDocument.j)?.tsa ?? []) : (answeredBy.get(index)?.tsa ?? []);
  // A path's top whose issuer the file lacks is where the file's path ends, as a root would: not counted.
  const needed = [...signer, ...tsa].filter((a) => a.question.role !== 'OCSP responder' && a.question.issuer);
  const about = needed.map((a) => a.embedded.about.filter((item) => item.source !== 'online'));
  if (needed.length === 0 || about.some((items) => items.length === 0)) return 'B-T';
  // The data for each certificate is in by the revision of its earliest item; the archive timestamp must follow it all.
  const lastIn = Math.max(s, ...about.map((items) => Math.min(...items.map((i) => i.revision ?? Infinity))));
  return after.some((d) => d.revision >= lastIn && d.revision > s) && lastIn !== Infinity ? 'B-LTA' : 'B-LT';
}

/** Why the signature is not LTV-complete, or null when it is. */
function incomplete(inputs: LevelInputs, s: number): { why: string | null; count: number } {
  const { ctx, index, signatures, answeredBy, covered } = inputs;
  const own = ctx.evidence.get(signatures[index]!)!;
  const after = stampsAfter(inputs, s);
  if (!own.stamp?.ok && !ctx.proofAfter(s))
    return { why: 'no trusted timestamp proves when it was signed', count: 0 };
  const answered = [
    ...(answeredBy.get(index)?.signer ?? []),
    ...(answeredBy.get(index)?.tsa ?? []),
    // Every document timestamp after it that a later one proves; the last is checked at the current time.
    ...after.filter((d) => d.stamp?.proof).flatMap((d) => answeredBy.get(d.j)?.tsa ?? []),
  ];
  for (const { question, embedded } of answered) {
    const name = `${displayName(question.cert)} (${question.role})`;
    if (embedded.status === 'revoked') return { why: `${name} is revoked`, count: 0 };
    if (embedded.status === 'unknown' || !embedded.item)
      return {
        why: `the file holds no revocation data that shows ${name} was good when it had to be`,
        count: 0,
      };
    if (!covered(embedded.item))
      return {
        why: `${whereItem(embedded.item)} for ${name} is covered by no timestamp (a document timestamp after it would cover it)`,
        count: 0,
      };
  }
  return { why: null, count: answered.length };
}

/** The first expiry among the paths checked at the current time, and what rests on it. */
function provesUntil(inputs: LevelInputs, s: number): { until: Date; renewal: string } | null {
  const { ctx, index, signatures, pool } = inputs;
  const own = ctx.evidence.get(signatures[index]!)!;
  const now: { chain: ChainEvidence; what: string }[] = [];
  const after = stampsAfter(inputs, s).filter((d) => d.stamp?.ok && d.stamp.chain);
  const last = after.at(-1);
  if (last && !last.stamp!.proof)
    now.push({ chain: last.stamp!.chain!, what: `the document timestamp ${last.field}` });
  else if (own.stamp?.ok && own.stamp.chain && !own.stamp.proof)
    now.push({ chain: own.stamp.chain, what: 'its signature timestamp' });
  else if (!own.signerProof && own.signer) now.push({ chain: own.signer, what: 'the signature' });
  let first: { cert: Certificate; what: string } | null = null;
  for (const { chain, what } of now)
    for (const cert of pathOf(chain, pool).path)
      if (!first || cert.notAfter < first.cert.notAfter) first = { cert, what };
  return first
    ? {
        until: first.cert.notAfter,
        renewal: `the certificate of ${displayName(first.cert)}, on which ${first.what} rests, expires then`,
      }
    : null;
}

export function longTermStatus(inputs: LevelInputs): LongTermVerdict {
  const s = inputs.revisions[inputs.index] ?? 0;
  const reached = level(inputs, s);
  const { why, count } = incomplete(inputs, s);
  const until = provesUntil(inputs, s);
  return {
    level: reached,
    complete: why === null,
    detail:
      why === null
        ? `LTV-complete: the revocation data of the ${count} certificates it rests on is in the file, covered by a timestamp`
        : `not LTV-complete: ${why}`,
    proves_until: until ? iso(until.until) : null,
    renewal: until?.renewal ?? null,
  };
}

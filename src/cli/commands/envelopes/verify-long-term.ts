/**
 * What `envelopes verify` says of each signature's long term, under its checks: its level, whether
 * it is LTV-complete, and before when to add a document timestamp (`sign-cli envelopes extend`);
 * and, with --online, each request it made for revocation data the file lacks. Apart from
 * verify.ts so that the command's own file stays about reading flags and the verdict.
 */
import type { PdfVerdict } from '../../../core/pades/verify.js';
import { formatInstant } from '../../render/time.js';

/** One line a signature: `Sig: PAdES B-LTA, LTV-complete; re-timestamp before 2031-04-02 … (what expires then)`. */
export function longTermLines(verdict: PdfVerdict, now: Date): string[] {
  return verdict.signatures.flatMap((s) => {
    const ltv = s.ltv;
    if (!ltv) return [];
    const level = s.sub_filter === 'ETSI.CAdES.detached' ? `PAdES ${ltv.level}` : `level ${ltv.level}`;
    const complete = ltv.complete ? 'LTV-complete' : ltv.detail;
    const until = ltv.proves_until
      ? `; ${new Date(ltv.proves_until) < now ? 'proved itself until' : 're-timestamp before'} ${formatInstant(new Date(ltv.proves_until))} (${ltv.renewal})`
      : '';
    return [`${s.field}: ${level}, ${complete}${until}`];
  });
}

/** With --online: each request made, and what came of it (on stderr: how the verdict was reached, not the verdict). */
export function onlineLines(verdict: PdfVerdict): string[] {
  if (verdict.online === null) return [];
  if (verdict.online.length === 0)
    return [
      'online: nothing fetched (the file answers every status it can, or no certificate names where its status is published)',
    ];
  return verdict.online.map((r) =>
    r.ok
      ? `online: fetched ${r.kind === 'ocsp' ? 'an OCSP response' : 'a CRL'} for ${r.certificate} from ${r.url}`
      : `online: no ${r.kind === 'ocsp' ? 'OCSP response' : 'CRL'} for ${r.certificate} from ${r.url}: ${r.detail}`,
  );
}

/**
 * What a verdict says of the document itself, trust and policy aside (the question the sources
 * of the real-world files answer): a signature's bytes and value verify and nothing follows it
 * (intact), what follows is allowed after it (modified-allowed) or not (modified-disallowed), or
 * its bytes, its value or its timestamp's do not verify (broken). A certificate not trusted, an
 * algorithm refused as a policy (SHA-1) or a timestamp that cannot be checked leave it intact:
 * the signature fails for them, but the document is what was signed.
 */
import type { CheckResult, Integrity } from './verdicts.js';

const ORDER: Integrity[] = ['intact', 'modified-allowed', 'modified-disallowed', 'broken'];

/** One signature's integrity from its checks; `covered` says whether it signed the final revision. */
export function signatureIntegrity(checks: CheckResult[], covered: boolean): Integrity {
  if (checks.some((c) => !c.ok && c.failure === 'broken')) return 'broken';
  if (checks.some((c) => !c.ok && c.failure === 'modified')) return 'modified-disallowed';
  return covered ? 'intact' : 'modified-allowed';
}

/** The document's: the worst of its signatures', or not-signed when it has none. */
export function documentIntegrity(signatures: { integrity: Integrity }[]): Integrity | 'not-signed' {
  if (signatures.length === 0) return 'not-signed';
  return signatures.reduce<Integrity>(
    (worst, s) => (ORDER.indexOf(s.integrity) > ORDER.indexOf(worst) ? s.integrity : worst),
    'intact',
  );
}

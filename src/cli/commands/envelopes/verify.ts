/**
 * `sign-cli envelopes verify <file.pdf> [--trust <ca.pem>]... [--envelope <id>]`:
 * is this the signed document, unaltered? Every signature of the file checked
 * offline (core/pades-verify.ts); with --envelope, the service's audit trail
 * too: its hash chain, and that its closing entry names this file's hash.
 */
import type { Command } from 'commander';
import { ExitCode, UsageError } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import { cellText, type Column } from '../../cell.js';
import type { Action } from '../../action.js';
import { collect } from '../../flags.js';
import { defineCommand, type CommandDoc } from '../../command-doc.js';
import { readFlagFile } from '../../stdin.js';
import { formatTime } from '../../time.js';
import { pemToDer } from '../../../core/web-crypto.js';

export const doc: CommandDoc = {
  summary: 'check, offline, that a signed PDF is the signed document, unaltered: every signature, its certificate chain, and (with --envelope) the audit trail',
  details: [
    'For each signature: the byte ranges (everything but the signature itself), the digest of the signed bytes, the CMS signature, the certificate chain of the certificate that signed to a trusted root (the roots Node trusts, the system\'s where Node reads them, and each `--trust` PEM) at the signing time, that certificate\'s purpose (signing, not a TLS server), the ESS signing certificate (PAdES), the signing time within the certificate\'s validity, and that the last signature covers the whole file (else "modified after signing"). With `--envelope <id>`, the envelope\'s audit trail is fetched: its hash chain must verify and its closing entry (`document.sealed`) must name this file\'s SHA-256. The signing time is the one the signer states (`/M`; no timestamp is checked).',
    'Exit 0 when every check passes, 1 when any fails (each failure names its check and why), 2 when the file is not a readable PDF. Not checked: revocation (OCSP, CRL), timestamps and long-term validation.',
  ],
  more: ['`--json` prints `{"file", "bytes", "sha256", "valid", "modified_after_signing", "signatures": [{"field", "signer", "signing_time", "sub_filter", "valid", "checks": [{"check", "ok", "detail"}]}], "audit_trail"}`; `audit_trail` is null without `--envelope`.'],
  examples: ['sign-cli envelopes download "$id" -o signed.pdf --wait', 'curl -s "$SIGN_BASE_URL/_sandbox/ca.pem" > sandbox-ca.pem', 'sign-cli envelopes verify signed.pdf --trust sandbox-ca.pem --envelope "$id"'],
};

export function registerVerify(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'verify', doc)
    .argument('<file.pdf>', 'the signed PDF')
    .option('--trust <ca.pem>', 'a CA certificate (PEM) to trust besides Node\'s bundled roots (repeatable)', collect)
    .option('--envelope <id>', 'also check the envelope\'s audit trail: its chain, and that it names this file\'s hash')
    .action(action(verifyCommand));
}

const CHECK_COLUMNS: readonly Column[] = [{ head: 'SIGNATURE' }, { head: 'CHECK' }, { head: '' }, { head: 'DETAIL', cut: true, min: 20 }];

/** Every certificate of each --trust file, DER; `isCertificate` tells a PEM block that is one. */
function trustedCertificates(files: string[], isCertificate: (der: Uint8Array) => boolean): Uint8Array[] {
  return files.flatMap((file) => {
    const pem = readFlagFile('--trust', file).toString('utf8');
    const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
    if (!blocks) throw new UsageError(`--trust ${file}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)`);
    return blocks.map((block) => {
      const der = pemToDer(block);
      if (!isCertificate(der)) throw new UsageError(`--trust ${file}: a PEM block that is not an X.509 certificate`);
      return der;
    });
  });
}

interface AuditCheck {
  ok: boolean;
  detail: string;
}

/** The envelope's trail: a verified chain whose closing entry names this file's SHA-256. */
async function auditCheck(ctx: CommandContext, id: string, sha256: string): Promise<AuditCheck> {
  const [client, { verifyAuditChain, SEALED_ENTRY, sealedDetail }] = await Promise.all([ctx.client({}, ['getAuditTrail']), import('../../../core/audit.js')]);
  try {
    const trail = await client.getAuditTrail(id, ctx.signal);
    const chain = verifyAuditChain(trail.entries, trail.head_hash);
    if (!chain.valid) return { ok: false, detail: `the audit trail of ${id} does not verify: ${chain.reason}` };
    // Only the closing entry counts, in its exact form: a title or a note that merely holds the hash is not a record of it.
    const last = trail.entries.at(-1);
    const named = last?.type === SEALED_ENTRY && last.detail === sealedDetail(sha256);
    return named
      ? { ok: true, detail: `the audit trail of ${id} verifies (${trail.entries.length} entries) and records this file's SHA-256` }
      : { ok: false, detail: `the audit trail of ${id} verifies, but its closing entry does not record this file's SHA-256 ${sha256.slice(0, 16)}…: not the signed copy of that envelope (or it is not completed)` };
  } finally {
    await client.close();
  }
}

/** What verify found: the file's verdict, the audit trail's (with --envelope), and the two together. */
export interface FileVerification {
  file: string;
  verdict: import('../../../core/pades-verify.js').PdfVerdict;
  audit: AuditCheck | null;
  valid: boolean;
}

/** Checks a saved PDF (and the envelope's trail, when given): exit 2 when it is not a readable PDF. */
export async function verifyFile(ctx: CommandContext, file: string, options: { trust?: string[]; envelope?: string }): Promise<FileVerification> {
  const [{ verifyPdf, isCertificate }, { NotAPdfError }] = await Promise.all([import('../../../core/pades-verify.js'), import('../../../core/pdf-signatures.js')]);
  const trusted = trustedCertificates(options.trust ?? [], isCertificate);
  const pdf = readFlagFile('the file', file);
  let verdict;
  try {
    verdict = await verifyPdf(pdf, { trusted });
  } catch (error) {
    if (error instanceof NotAPdfError) throw new UsageError(`${file}: ${error.message}`, { hint: 'give the signed copy itself, e.g. from `sign-cli envelopes download <id> -o signed.pdf`' });
    throw error;
  }
  const audit = options.envelope ? await auditCheck(ctx, options.envelope, verdict.sha256) : null;
  return { file, verdict, audit, valid: verdict.valid && (audit?.ok ?? true) };
}

/** The checks as a table (a terminal or a pipe), then one line: verified, or what failed. Returns the exit code. */
export async function reportVerification(ctx: CommandContext, { file, verdict, audit, valid }: FileVerification): Promise<number> {
  const { output } = ctx;
  if (verdict.signatures.length > 0) {
    const { printTable } = await import('../../table.js');
    const mark = (ok: boolean) => (ok ? output.out.green('✓') : output.out.red('✗'));
    await printTable(
      output,
      CHECK_COLUMNS,
      verdict.signatures.flatMap((s) => s.checks.map((c) => [cellText(s.field), c.check, mark(c.ok), cellText(detailText(c.detail))])).concat(audit ? [['-', 'audit trail', mark(audit.ok), cellText(audit.detail)]] : []),
    );
  }
  if (verdict.signatures.length === 0) {
    output.info(`${output.err.red('✗')} ${file}: no signature in it; it proves nothing about who signed it`);
    return ExitCode.failed;
  }
  const signers = [...new Set(verdict.signatures.map((s) => s.signer ?? 'unknown'))].map((s) => cellText(s)).join(', ');
  if (valid) {
    output.info(`${output.err.green('✓')} ${file}: ${verdict.signatures.length} signature${verdict.signatures.length === 1 ? '' : 's'} verified (${signers}); unaltered since signing`);
    return ExitCode.ok;
  }
  const failed = verdict.signatures.flatMap((s) => s.checks.filter((c) => !c.ok).map((c) => `${c.check}: ${detailText(c.detail)}`)).concat(audit && !audit.ok ? [`audit trail: ${audit.detail}`] : []);
  output.info(`${output.err.red('✗')} ${file} does not verify: ${failed.map((f) => cellText(f)).join('; ')}`);
  if (verdict.signatures.some((s) => s.checks.some((c) => c.check === 'certificate chain' && !c.ok))) {
    output.info("hint: if you trust the issuer, pass its CA certificate with --trust <ca.pem> (the sandbox's is served at <base-url>/_sandbox/ca.pem)");
  }
  return ExitCode.failed;
}

/** A check's detail with its instants (ISO, from the verifier) in the one time format of human output. */
function detailText(detail: string): string {
  return detail.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, (iso) => formatTime(iso));
}

export async function verifyCommand(ctx: CommandContext, options: { trust?: string[]; envelope?: string }, [file]: string[]): Promise<number> {
  const result = await verifyFile(ctx, file!, options);
  if (!ctx.output.json) return reportVerification(ctx, result);
  ctx.output.jsonDocument({ file, ...result.verdict, valid: result.valid, audit_trail: result.audit });
  return result.verdict.signatures.length > 0 && result.valid ? ExitCode.ok : ExitCode.failed;
}

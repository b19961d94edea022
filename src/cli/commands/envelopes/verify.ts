/**
 * `sign-cli envelopes verify <file|dir>... [--trust <ca.pem>]... [--envelope <id>] [--at claimed|<time>] [--max-size <MB>]
 * [--password <p> | --password-file <f>] [--allow-weak] [--revocation soft|require] [--online]`:
 * is this the signed document, unaltered? Every signature of the file checked
 * offline, every later revision judged against it (core/pades/verify.ts); with
 * --envelope, the service's audit trail too: its hash chain, and that its
 * closing entry names this file's hash. A file over --max-size is refused
 * before it is read; the verification is bounded by the file's size and stops
 * at Ctrl-C or SIGTERM (exit 130). Several files, or a directory, are an
 * archive run (verify-many.ts): one line of JSON or a summary row per file.
 */
import { Option, type Command } from 'commander';
import { InterruptedError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { cellText, type Column } from '../../render/cell.js';
import type { Action } from '../../action.js';
import { collect } from '../../flags/values.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { readPdfFile, statOf } from '../../input/pdf-file.js';
import type { PdfVerdict } from '../../../core/pades/verify.js';
import {
  MAX_PDF_MB,
  REVOCATION_POLICIES,
  onlineSettings,
  verifySettings,
  type VerifyFlags,
} from './verify-flags.js';
import { detailText, failureTexts, NO_SIGNATURE } from './verify-text.js';
import { completes, valuesOf } from '../../completion/hints.js';

export type { VerifyFlags } from './verify-flags.js';

export const doc: CommandDoc = {
  summary:
    'check, offline, that a signed PDF is the signed document, unaltered: every signature, every later revision, its certificate chain, and (with --envelope) the audit trail; many files and folders in one run',
  details: [
    "For each signature: the byte ranges (everything but the signature itself), the digest of the signed bytes, the CMS signature (every signer it holds; RSA, RSA-PSS, ECDSA, plain ECDSA, Ed25519, Ed448; SHA-2, SHA-3, SHAKE256; also adbe.pkcs7.sha1 and adbe.x509.rsa_sha1), its signature timestamp (RFC 3161: the imprint over the signature, the TSA's purpose and chain), the certificate chain of the certificate that signed to a trusted root (the roots Node trusts, the system's where Node reads them, and each `--trust` PEM; issuers and TSAs missing from a signature are looked for in the document's DSS), that certificate's purpose (signing, not a TLS server), the ESS signing certificate (v1 or v2), and what every later revision changed: each object is compared, by what it is rather than its number, with the revision the signature signed, and a change that is not allowed after it (a page's content or resources, the page tree, fonts, other catalog entries, an appearance redrawn while its field's value stays) fails it, whatever later signatures say. Allowed after any signature: new signature fields, the DSS, document timestamps, the catalog's /Version; with its permission, form values (approval signatures, DocMDP 2 and 3, minus fields it locks), annotations added (DocMDP 3, or an approval signature without DocMDP) and changed or removed (DocMDP 3).",
    "SHA-1 is computed but refused as a weak algorithm (`signed with SHA-1, a weak algorithm: not accepted; the bytes are intact`), a failure of its own, not a digest that does not match; `--allow-weak` accepts it. An encrypted PDF (the standard security handler: RC4, AES-128, AES-256) is opened with the empty password, as readers open it, or with `--password` / `--password-file` (the user or the owner password); a signature's value is not encrypted.",
    "The chain is validated now, or at the time a verified signature timestamp proves; the signer's `/M` is shown as claimed, never trusted alone. `--at claimed` validates at `/M`, `--at <ISO time>` at that time. Document timestamps (`ETSI.RFC3161`) are checked as timestamps. With `--envelope <id>`, the envelope's audit trail is fetched: its hash chain must verify and its closing entry (`document.sealed`) must name this file's SHA-256.",
    'Several files, or a directory, are verified in one run: every `*.pdf` in a directory and below it, links not followed out of it; progress on a terminal, then a table of the files that did not verify, each with its reason, and the counts as the last line (`--json`: one line per file). Exit 0 when every file verifies, 1 when any does not, 2 when none could be read.',
    "Revocation, from the OCSP responses and CRLs the file carries (DSS and /VRI, the CMS, timestamp tokens), for every certificate of the signer's, each TSA's and each delegated OCSP responder's chain, at the time it had to be good (the signature's, as a timestamp proves it, or a token's): revoked before then fails (`revoked on <date> (keyCompromise)`), revoked after passes and says why, no usable data is unknown: a warning (`--revocation soft`, the default) or a failure (`require`). `--online` asks the certificates' OCSP responders and CRL distribution points (proxies and `--timeout` apply) about what the file leaves unknown or shows good, so a revocation since is found, and says so on stderr.",
    'A line a signature gives its PAdES level (B-B to B-LTA), whether it is LTV-complete (revocation data embedded and covered by a timestamp), and the date to re-timestamp before. A certificate expired since passes when a timestamp from before its expiry proves when it was used.',
    'Exit 0 when every check passes, 1 when any fails (each failure names its check and why; the verdict is the last line on stdout), 2 when the file is not a readable PDF, is over `--max-size` (256 MB unless raised: refused unread) or would cost more to read than its size warrants (a compression bomb, a structure built to exhaust readers), 130 when interrupted (Ctrl-C, SIGTERM: it stops within a second, whatever the file). Not checked: the policies of certificates, delta CRLs and indirect CRLs (they can show a revocation, never a good status), and what a page shows (two revisions that draw the same page differently are judged by their objects, not by their pixels).',
  ],
  more: [
    "Hostile files are bounded: a file over 256 MB is refused before it is read (exit 2, in one line naming `--max-size <MB>`, which raises the bound), a /Contents over 2 MB is not read and fails its signature, and a file whose reading would cost more than its size warrants is refused (exit 2): a stream that inflates past 64 MB, all streams past 256 MB (or twice the file), or a structure that repeats or nests to exhaust readers (every step of the reading is counted, and a file is allowed about 2.5 s plus 40 ns a byte of it). The work is linear in the file's size: a 64 MB file is verified or refused in seconds, and an object shared by many revisions is read once.",
    '`--json` prints `{"file", "bytes", "sha256", "valid", "modified_after_signing", "integrity", "encryption", "revisions": [{"revision", "end", "signed_by", "changes"}], "signatures": [{"field", "signer", "signing_time", "sub_filter", "type", "revision", "docmdp", "timestamp", "validated_at", "validation_time", "changes_after": [{"revision", "kind", "object", "page", "field", "allowed", "detail"}], "integrity", "revocation": {"status", "policy", "certificates": [{"certificate", "serial", "role", "needed_at", "status", "source", "kind", "this_update", "next_update", "revoked_at", "reason", "covered", "detail"}]}, "ltv": {"level", "complete", "detail", "proves_until", "renewal"}, "valid", "checks": [{"check", "ok", "detail", "failure", "warning"}]}], "online", "audit_trail"}`; `audit_trail` is null without `--envelope`, `online` (requests made) without `--online`. `modified_after_signing` is true when bytes or revisions follow the last signature; `docmdp` is the permission in force after the signature (1, 2, 3, or null); `timestamp` is null when the signature has none. `integrity` says what the signatures say of the document, trust and policy aside: `intact`, `modified-allowed`, `modified-disallowed`, `broken` (or `not-signed` for the file); a failed check\'s `failure` says why: `broken`, `modified`, `weak`, `untrusted`, `unverifiable`, `revoked`; `warning` marks a status unknown under soft. `ltv` is null for a document timestamp.',
    "**Many files in one run.** Each argument in the order given; a directory is walked to every `*.pdf` in it and below it (any case of the extension), each directory's names in order. A link inside a directory is followed only to a file inside that same directory: a link that leads out of it is not read (stderr names it; name the file itself to verify it), and a link to a directory is not descended (the directories inside are walked where they are). A `*.pdf` in a directory that is a named pipe, a socket or a device is unreadable and never opened; a file named on the command line is read whatever it is. The files are verified on worker threads when there are enough of them to pay for starting one (one per eight files, up to one per core and four; `SIGN_VERIFY_THREADS=<n>` sets how many, 0 none), each reading one file at a time, else on the command's own thread, and reported in the order found; memory stays flat however many files there are. On a terminal, stderr shows the progress (`verifying 57/189 · 1 valid · 55 invalid · 1 unreadable · <file>`), drawn in place and cleared at the end; nothing is drawn into a pipe or a file.",
    'At the end, stdout holds a table of the files that did not verify (`FILE`, `RESULT`: `invalid` or `unreadable`, `REASON`: each failed check as one file\'s last line says it, or why it could not be read), fitted to the terminal with the reasons wrapped between words, then the counts as the last line: `✗ 189 PDFs: 1 valid, 187 invalid, 1 unreadable`. With `--json`, stdout holds one line per file instead, in the order found: what `--json` prints for one file, on one line, or for a file that could not be read `{"file", "valid": false, "unreadable": true, "error"}`; the counts go to stderr. One file given alone keeps its one JSON document. Unreadable is what would be exit 2 for one file: not a PDF, over `--max-size`, a read error, too costly to read, encrypted beyond the password given, or a worker that died on it. `--envelope` checks one file against its envelope, and `--online` fetches revocation data for one file: with several files or a directory either is refused (exit 2); `--revocation` applies to every file. Exit 0 when every file verifies, 1 when any is invalid or unreadable, 2 when none could be read or there is no PDF at all; Ctrl-C or SIGTERM stops the run (exit 130) after the table and the counts of what was done.',
  ],
  examples: [
    'sign-cli envelopes download "$id" -o signed.pdf --wait',
    'curl -s "$SIGN_BASE_URL/_sandbox/ca.pem" > sandbox-ca.pem',
    'sign-cli envelopes verify signed.pdf --trust sandbox-ca.pem --envelope "$id"',
    'sign-cli envelopes verify signed.pdf --trust sandbox-ca.pem --at claimed --json',
    'sign-cli envelopes verify signed.pdf --trust sandbox-ca.pem --online --json',
    'mkdir -p archive/2026 && cp signed.pdf archive/2026/contract.pdf',
    'sign-cli envelopes verify archive signed.pdf --trust sandbox-ca.pem',
    'sign-cli envelopes verify archive --trust sandbox-ca.pem --json > verdicts.ndjson',
  ],
};

export function registerVerify(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'verify', doc)
    .argument(
      '<file|dir...>',
      'signed PDFs, or directories of them (every *.pdf below, links not followed out)',
    )
    .option(
      '--trust <ca.pem>',
      "a CA certificate (PEM) to trust besides Node's bundled roots (repeatable)",
      collect,
    )
    .option(
      '--envelope <id>',
      "also check the envelope's audit trail: its chain, and that it names this file's hash",
    )
    .option(
      '--at <claimed|time>',
      "validate the certificates at the signer's claimed time (/M) or at an ISO 8601 time, instead of now or a signature timestamp's time",
    )
    .option('--max-size <MB>', `refuse files larger than this, before reading them (default: ${MAX_PDF_MB})`)
    .option(
      '--password <password>',
      'the password of an encrypted PDF that the empty password does not open (the user or the owner password)',
    )
    .option(
      '--password-file <file>',
      'read that password from a file (its first line), kept out of the shell history',
    )
    .option(
      '--allow-weak',
      'accept SHA-1 where the signed bytes verify with it, instead of failing it as a weak algorithm',
    )
    .addOption(
      completes(
        new Option(
          '--revocation <soft|require>',
          'a revocation status the file cannot show: passed with a warning (soft) or failed (require); a revoked certificate fails under both (default: soft)',
        ),
        valuesOf(REVOCATION_POLICIES),
      ),
    )
    .option(
      '--online',
      "ask the certificates' OCSP responders and CRL distribution points too: what the file lacks, and revocations since (proxies and --timeout apply)",
    )
    .action(action(verifyCommand));
}

const CHECK_COLUMNS: readonly Column[] = [
  { head: 'SIGNATURE' },
  { head: 'CHECK' },
  { head: '' },
  // A ✓'s detail is cut to fit; a ✗'s says why it failed, wrapped whole under its column.
  { head: 'DETAIL', cut: true, min: 20, wrapWhen: (row) => row[2]?.includes('✗') === true },
];
const REVISION_COLUMNS: readonly Column[] = [
  { head: 'REVISION' },
  { head: 'BYTES' },
  { head: 'SIGNED BY' },
  { head: 'CHANGES', cut: true, min: 20 },
];

interface AuditCheck {
  ok: boolean;
  detail: string;
}

/** The envelope's trail: a verified chain whose closing entry names this file's SHA-256. */
async function auditCheck(ctx: CommandContext, id: string, sha256: string): Promise<AuditCheck> {
  const [client, { verifyAuditChain, SEALED_ENTRY, sealedDetail }] = await Promise.all([
    ctx.client({}, ['getAuditTrail']),
    import('../../../core/envelope/audit.js'),
  ]);
  try {
    const trail = await client.getAuditTrail(id, ctx.signal);
    const chain = verifyAuditChain(trail.entries, trail.head_hash);
    if (!chain.valid)
      return { ok: false, detail: `the audit trail of ${id} does not verify: ${chain.reason}` };
    // Only the closing entry counts, in its exact form: a title or a note that merely holds the hash is not a record of it.
    const last = trail.entries.at(-1);
    const named = last?.type === SEALED_ENTRY && last.detail === sealedDetail(sha256);
    return named
      ? {
          ok: true,
          detail: `the audit trail of ${id} verifies (${trail.entries.length} entries) and records this file's SHA-256`,
        }
      : {
          ok: false,
          detail: `the audit trail of ${id} verifies, but its closing entry does not record this file's SHA-256 ${sha256.slice(0, 16)}…: not the signed copy of that envelope (or it is not completed)`,
        };
  } finally {
    await client.close();
  }
}

/** What verify found: the file's verdict, the audit trail's (with --envelope), and the two together. */
export interface FileVerification {
  file: string;
  verdict: PdfVerdict;
  audit: AuditCheck | null;
  valid: boolean;
}

/** Checks a saved PDF (and the envelope's trail, when given): exit 2 when it is not a readable PDF or is over --max-size, 130 when interrupted. */
export async function verifyFile(
  ctx: CommandContext,
  file: string,
  options: VerifyFlags,
): Promise<FileVerification> {
  const { at, maxBytes, password, trusted, allowWeak, revocation } = await verifySettings(options);
  const core = await import('../../../core/pades/verify.js');
  const signal = ctx.signal;
  const pdf = await readPdfFile(file, maxBytes, signal);
  const online = options.online ? await onlineSettings(ctx) : undefined;
  const fetcher = online
    ? (await import('../../../core/client/plain-fetch.js')).plainFetcher({ ...online, signal })
    : undefined;
  let verdict;
  try {
    verdict = await core.verifyPdf(pdf, {
      trusted,
      ...(at ? { at } : {}),
      ...(password !== undefined ? { password } : {}),
      ...(allowWeak ? { allowWeak: true } : {}),
      revocation,
      ...(fetcher ? { online: fetcher.fetch } : {}),
      now: new Date(ctx.io.clock.now()),
      signal,
    });
  } catch (error) {
    if (error instanceof core.PdfLimitError) throw new UsageError(`${file}: ${error.message}`);
    if (error instanceof core.EncryptedPdfError)
      throw new UsageError(`${file}: ${error.message}`, {
        hint:
          error.why === 'password'
            ? 'give its password with --password <password> or --password-file <file>'
            : 'decrypt it with the software that encrypted it, then verify the decrypted copy',
      });
    if (error instanceof core.NotAPdfError)
      throw new UsageError(`${file}: ${error.message}`, {
        hint: 'give the signed copy itself, e.g. from `sign-cli envelopes download <id> -o signed.pdf`',
      });
    if (error instanceof InterruptedError)
      throw new InterruptedError(`interrupted: ${file} was not verified`, { sent: false });
    throw error;
  } finally {
    await fetcher?.close();
  }
  const audit = options.envelope ? await auditCheck(ctx, options.envelope, verdict.sha256) : null;
  return { file, verdict, audit, valid: verdict.valid && (audit?.ok ?? true) };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The checks and the revisions as tables, then the verdict: all on stdout, so a report saved to a file is whole. Returns the exit code. */
export async function reportVerification(
  ctx: CommandContext,
  { file, verdict, audit, valid }: FileVerification,
): Promise<number> {
  const { output } = ctx;
  const { printTable } = await import('../../render/table.js');
  const mark = (ok: boolean, warning?: boolean) =>
    warning ? output.out.yellow('!') : ok ? output.out.green('✓') : output.out.red('✗');
  if (verdict.signatures.length > 0) {
    await printTable(
      output,
      CHECK_COLUMNS,
      verdict.signatures
        .flatMap((s) =>
          s.checks.map((c) => [
            cellText(s.field),
            c.check,
            mark(c.ok, c.warning),
            cellText(detailText(c.detail)),
          ]),
        )
        .concat(audit ? [['-', 'audit trail', mark(audit.ok), cellText(audit.detail)]] : []),
    );
  }
  if (verdict.revisions.length > 1) {
    const { changeLabel } = await import('../../../core/pades/verify.js');
    output.line();
    await printTable(
      output,
      REVISION_COLUMNS,
      verdict.revisions.map((r) => [
        String(r.revision),
        String(r.end),
        r.signed_by.length > 0 ? r.signed_by.map((f) => cellText(f)).join(', ') : '-',
        r.revision === 1
          ? 'the original document'
          : r.changes.length === 0
            ? 'nothing that changes the document'
            : cellText([...new Set(r.changes.map((c) => changeLabel(c)))].join('; ')),
      ]),
    );
  }
  if (verdict.signatures.length === 0) {
    output.line(`${output.out.red('✗')} ${file}: ${NO_SIGNATURE}`);
    return ExitCode.failed;
  }
  const { longTermLines, onlineLines } = await import('./verify-long-term.js');
  for (const line of onlineLines(verdict)) output.info(line);
  output.line();
  for (const line of longTermLines(verdict, new Date(ctx.io.clock.now()))) output.line(cellText(line));
  for (const s of verdict.signatures)
    for (const c of s.checks.filter((check) => check.warning))
      output.warn(
        `${s.field}: revocation ${detailText(c.detail)}; --revocation require fails it, --online fetches what is missing`,
      );
  const signers = [...new Set(verdict.signatures.map((s) => s.signer ?? 'unknown'))]
    .map((s) => cellText(s))
    .join(', ');
  if (valid) {
    const last = verdict.signatures.reduce((max, s) => Math.max(max, s.revision ?? 0), 0);
    const after = verdict.modified_after_signing
      ? `; ${plural(verdict.revisions.length - last, 'revision')} after the last signature, with only changes the signatures allow`
      : '; unaltered since signing';
    output.line(
      `${output.out.green('✓')} ${file}: ${plural(verdict.signatures.length, 'signature')} verified (${signers})${after}`,
    );
    return ExitCode.ok;
  }
  const failed = failureTexts(verdict, audit);
  output.line(`${output.out.red('✗')} ${file} does not verify: ${failed.map((f) => cellText(f)).join('; ')}`);
  if (
    verdict.signatures.some((s) =>
      s.checks.some(
        (c) => c.check === 'certificate chain' && !c.ok && c.detail.startsWith('not to a trusted root'),
      ),
    )
  ) {
    output.info(
      "hint: if you trust the issuer, pass its CA certificate with --trust <ca.pem> (the sandbox's is served at <base-url>/_sandbox/ca.pem)",
    );
  }
  return ExitCode.failed;
}

/**
 * One file: its report, or its JSON document. Several files, or a directory: the archive run,
 * one JSON line or one summary row per file (verify-many.ts).
 */
export async function verifyCommand(
  ctx: CommandContext,
  options: VerifyFlags,
  files: string[],
): Promise<number> {
  const [file] = files;
  const directory = files.length === 1 && (await statOf(file!))?.isDirectory() === true;
  if (files.length > 1 || directory)
    return (await import('./verify-many.js')).verifyMany(ctx, options, files);
  const result = await verifyFile(ctx, file!, options);
  if (!ctx.output.json) return reportVerification(ctx, result);
  ctx.output.jsonDocument({ file, ...result.verdict, valid: result.valid, audit_trail: result.audit });
  return result.verdict.signatures.length > 0 && result.valid ? ExitCode.ok : ExitCode.failed;
}

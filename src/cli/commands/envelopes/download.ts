/** `sign-cli envelopes download <id> -o <file>`: the signed copy (PDF) of a completed envelope. */
import { createReadStream, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { SignError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { collect, parsePositiveNumberOption } from '../../flags/values.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import type { FileTarget } from '../../../core/rooted-file.js';

interface DownloadOptions {
  output?: string;
  wait?: boolean;
  waitTimeout: string;
  verify?: boolean;
  trust?: string[];
  root?: string;
}

export const doc: CommandDoc = {
  summary: 'save the signed copy (PDF) of a completed envelope',
  details: [
    '`--wait` first waits until the envelope reaches a final state. The file is written beside its target and renamed, so an interrupted download never leaves half a PDF; `-o -` writes to stdout.',
  ],
  more: [
    'Before completion the service answers 409 `envelope_not_completed` (exit 1). The body must be a PDF (a `%PDF-` header, a `%%EOF` trailer), checked before anything is written: an HTML page from a wrong base URL is exit 1 and no file. A signed copy over 512 MiB is refused; it is streamed to its file, never held in memory.',
    "The sandbox's signed copy embeds its font, so Arabic names print as written, joined and right to left, and ends with a certificate of completion.",
    "`--verify` then checks the saved file as `envelopes verify <file> --envelope <id>` does: every signature, its chain to a trusted root (Node's bundled roots plus each `--trust`), and the audit trail naming the file's hash; exit 1 if any check fails (the file stays, for a look).",
    '`--json` prints `{"id", "file", "bytes", "sha256"}`, plus `"verification"` (as `envelopes verify --json` prints it) with `--verify`.',
    "`--root <dir>` writes only under that directory, through no link: each directory of the path is opened from the root without following links, and the file is created and renamed inside the directory so opened, so a directory swapped for a link while the copy downloads cannot carry it out (Linux, through /proc). Elsewhere the file's real path is checked after each step and a copy found outside is removed, which misses a swap undone between two checks (docs/mcp.md). A path outside the root, or through a link, is exit 2 before anything is written. `sign-cli mcp` saves every copy this way, under its own `--root`.",
  ],
  examples: [
    'sign-cli envelopes download "$id" --wait -o lease.pdf',
    'sign-cli envelopes download "$id" -o - > lease-copy.pdf',
    'sign-cli envelopes sample --csv > recipients.csv && sign-cli envelopes sample --template > template.json',
    'sign-cli envelopes create --csv recipients.csv --template template.json --query envelope.id > ids.txt   # signers named in Arabic',
    'sign-cli envelopes download "$(sed -n 2p ids.txt)" --wait -o contract-ar.pdf --json',
  ],
};

export function registerDownload(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'download', doc)
    .argument('<id>', 'envelope id')
    .option('-o, --output <file>', 'where to write the PDF; - for stdout (default: <id>-signed.pdf)')
    .option('--wait', 'wait until the envelope reaches a final state first')
    .option('--wait-timeout <seconds>', 'how long --wait waits', '300')
    .option(
      '--verify',
      'then check the file as `envelopes verify --envelope <id>` does (exit 1 if any check fails)',
    )
    .option(
      '--trust <ca.pem>',
      "with --verify: a CA certificate (PEM) to trust besides Node's bundled roots (repeatable)",
      collect,
    )
    .option('--root <dir>', 'write only under this directory, through no link (what sign-cli mcp uses)')
    .action(action(downloadCommand));
}

export async function downloadCommand(
  ctx: CommandContext,
  options: DownloadOptions,
  [id]: string[],
): Promise<number> {
  const { output } = ctx;
  const waitMs = parsePositiveNumberOption('--wait-timeout', options.waitTimeout) * 1000;
  if (options.verify && options.output === '-')
    throw new UsageError('--verify checks a saved file: give -o <file>, not -o -');
  if (options.trust && !options.verify) throw new UsageError('--trust goes with --verify');
  if (options.root !== undefined && options.output === '-')
    throw new UsageError('--root limits where a file is saved: give -o <file>, not -o -');
  const client = await ctx.client({}, ['downloadSignedCopy']);
  try {
    if (options.wait) {
      output.info(`waiting for ${id} to finish…`);
      const { envelope, reached } = await client.waitForEnvelope(id!, {
        timeoutMs: waitMs,
        signal: ctx.signal,
      });
      if (!reached)
        throw new SignError(`${id} is still ${String(envelope.status)} after ${waitMs / 1000} s`, {
          hint: 'raise --wait-timeout, or try again later',
        });
    }
    const file = options.output ?? `${id}-signed.pdf`;
    if (file === '-') {
      // Streamed to a private file first: a retried or refused answer must not reach stdout half-written.
      const dir = mkdtempSync(join(tmpdir(), 'sign-cli-download-'));
      try {
        const pdf = await client.downloadSignedCopyTo(id!, join(dir, 'signed.pdf'), ctx.signal);
        for await (const chunk of createReadStream(pdf.path)) {
          if (!ctx.io.stdout.write(chunk as Buffer))
            await new Promise<void>((resolve) => ctx.io.stdout.on?.('drain', resolve) ?? resolve());
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return ExitCode.ok;
    }
    // Written beside the target and renamed, so an interrupted download never leaves half a PDF under its name.
    const target = options.root
      ? (await import('../../../core/rooted-file.js')).fileUnderRoot(options.root, file)
      : besideTarget(file);
    let pdf;
    try {
      pdf = await client.downloadSignedCopyTo(id!, target.writePath, ctx.signal);
      target.commit(pdf.bytes);
    } catch (error) {
      throw target.explain(error);
    } finally {
      target.close();
    }
    // The verifier loads only for --verify. What was downloaded is checked whatever its size (the
    // download has its own bound, 512 MiB): verify's --max-size, which this command does not have, is not in the way.
    const checks = options.verify ? await import('./verify.js') : undefined;
    const verification = checks
      ? await checks.verifyFile(ctx, file, {
          ...(options.trust ? { trust: options.trust } : {}),
          envelope: id!,
          maxSize: String(Math.max(1, Math.ceil(pdf.bytes / (1024 * 1024)))),
        })
      : undefined;
    if (output.json) {
      output.jsonLine({
        id,
        file,
        bytes: pdf.bytes,
        sha256: pdf.sha256,
        ...(verification
          ? {
              verification: {
                ...verification.verdict,
                valid: verification.valid,
                audit_trail: verification.audit,
              },
            }
          : {}),
      });
      return !verification || verification.valid ? ExitCode.ok : ExitCode.failed;
    }
    output.line(
      `${output.out.green('✓')} saved the signed copy of ${id} to ${file} (${pdf.bytes} bytes, sha256 ${pdf.sha256.slice(0, 16)}…)`,
    );
    return checks && verification ? checks.reportVerification(ctx, verification) : ExitCode.ok;
  } finally {
    await client.close();
  }
}

/** Without --root: `<file>.part` by its name, renamed over the file; removed if the download fails. */
function besideTarget(file: string): FileTarget {
  const partial = `${file}.part`;
  let committed = false;
  return {
    writePath: partial,
    commit() {
      renameSync(partial, file);
      committed = true;
    },
    close() {
      if (committed) return;
      // rmSync refuses a directory and a path through a file: then nothing of ours is there, and the
      // download's own error (the path and why) is the one to tell.
      try {
        rmSync(partial, { force: true });
      } catch {
        /* nothing to remove */
      }
    },
    explain: (error) => error,
  };
}

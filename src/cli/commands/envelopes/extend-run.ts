/**
 * What `envelopes extend` does (extend.ts holds its doc and flags): the flags checked, the input
 * verified, the core's renewal (core/ltv/extend.ts) asked of the TSA, the result verified and
 * written beside its name and renamed, and what was added said.
 */
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InterruptedError, SignError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { cellText } from '../../render/cell.js';
import { readPdfFile } from '../../input/pdf-file.js';
import { formatTime } from '../../render/time.js';
import { reportVerification } from './verify.js';
import { MAX_PDF_BYTES, onlineSettings, verifySettings } from './verify-flags.js';
import type { ExtendResult } from '../../../core/ltv/extend.js';

/** The flags of `envelopes extend` (extend.ts). */
export interface ExtendFlags {
  tsa: string;
  output?: string;
  online?: boolean;
  trust?: string[];
  force?: boolean;
}

/** `--tsa`: an http(s) URL. */
function tsaUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw new UsageError(`--tsa ${value}: not an http(s) URL of a timestamp authority`, {
      hint: "give the TSA's URL, e.g. --tsa http://timestamp.digicert.com (the sandbox's: $SIGN_BASE_URL/_sandbox/tsa)",
    });
  return url.href;
}

/** `-o`, or `<name>-extended.pdf` beside the input; an existing file only with --force. */
function outputPath(file: string, flags: ExtendFlags): string {
  const output = flags.output ?? join(dirname(file), `${basename(file).replace(/\.pdf$/i, '')}-extended.pdf`);
  if (output === '-') return output;
  const exists = statSync(output, { throwIfNoEntry: false });
  if (exists?.isDirectory()) throw new UsageError(`-o ${output}: a directory; give a file name`);
  if (exists && !flags.force) {
    const input = resolve(output) === resolve(file);
    throw new UsageError(`${output} exists${input ? ' (it is the input)' : ''}: not replaced`, {
      hint: 'give another -o, or --force to replace it',
    });
  }
  return output;
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What the update added, in words. */
function addedText(added: ExtendResult['added']): string {
  const parts = [
    added.certificates > 0 ? count(added.certificates, 'certificate') : '',
    added.ocspResponses > 0 ? count(added.ocspResponses, 'OCSP response') : '',
    added.crls > 0 ? count(added.crls, 'CRL') : '',
  ].filter(Boolean);
  return parts.length === 0 ? 'a document timestamp' : `${parts.join(', ')} and a document timestamp`;
}

export async function runExtend(ctx: CommandContext, flags: ExtendFlags, file: string): Promise<number> {
  const tsa = tsaUrl(flags.tsa);
  const output = outputPath(file, flags);
  if (output === '-' && ctx.output.json)
    throw new UsageError('-o - writes the PDF to stdout, where --json would write too: give -o <file>');
  const [core, ltv, { plainFetcher }] = await Promise.all([
    import('../../../core/pades/verify.js'),
    import('../../../core/ltv/extend.js'),
    import('../../../core/client/plain-fetch.js'),
  ]);
  const { trusted } = await verifySettings(flags.trust ? { trust: flags.trust } : {});
  const pdf = await readPdfFile(file, MAX_PDF_BYTES, ctx.signal);
  const verify = { trusted, now: new Date(ctx.io.clock.now()), signal: ctx.signal };
  // The TSA and the responders asked under the CLI's proxies and --timeout, as verify --online asks.
  const http = plainFetcher({ ...(await onlineSettings(ctx)), signal: ctx.signal });
  let result: ExtendResult;
  try {
    const before = await core.verifyPdf(pdf, verify);
    if (before.signatures.length === 0 || !before.valid) {
      ctx.output.info(
        `${file} does not verify: nothing was sent, nothing written; extend renews a copy that proves itself`,
      );
      if (ctx.output.json) {
        ctx.output.jsonDocument({ file, output: null, verification: before });
        return ExitCode.failed;
      }
      return Math.max(
        ExitCode.failed,
        await reportVerification(ctx, { file: file, verdict: before, audit: null, valid: false }),
      );
    }
    result = await ltv.extendPdf(pdf, {
      stamp: ltv.tsaStamp(tsa, http.fetch, ctx.signal),
      ...(flags.online ? { fetch: http.fetch } : {}),
      signal: ctx.signal,
      verify,
    });
  } catch (error) {
    if (error instanceof ltv.UpdateRefusedError)
      throw new UsageError(`${file}: cannot take an update: ${error.message}`);
    if (error instanceof core.NotAPdfError) throw new UsageError(`${file}: ${error.message}`);
    if (error instanceof InterruptedError)
      throw new InterruptedError(`interrupted: ${file} was not extended`);
    if (error instanceof ltv.TrustServiceError) throw new SignError(error.message);
    throw error;
  } finally {
    await http.close();
  }
  const stamp = result.verdict.signatures.find((s) => s.field === result.field);
  if (!result.verdict.valid) {
    ctx.output.info(`the extended ${file} does not verify: nothing written`);
    if (ctx.output.json) {
      ctx.output.jsonDocument({ file, output: null, verification: result.verdict });
      return ExitCode.failed;
    }
    await reportVerification(ctx, { file: output, verdict: result.verdict, audit: null, valid: false });
    return ExitCode.failed;
  }
  if (output === '-') ctx.io.stdout.write(result.bytes);
  else {
    // Written beside its target and renamed: an interrupted write never leaves half a PDF under its name.
    const partial = `${output}.part`;
    try {
      writeFileSync(partial, result.bytes);
      renameSync(partial, output);
    } catch (error) {
      rmSync(partial, { force: true });
      throw new UsageError(`${output}: cannot be written (${(error as Error).message})`);
    }
  }
  for (const gap of result.missing)
    ctx.output.warn(
      `${gap.certificate}: no revocation data${gap.tried.length > 0 ? ` (${gap.tried.join('; ')})` : flags.online ? '' : '; --online fetches it'}`,
    );
  if (ctx.output.json) {
    ctx.output.jsonDocument({
      file,
      output,
      bytes: result.bytes.length,
      sha256: result.verdict.sha256,
      added: {
        certificates: result.added.certificates,
        ocsp_responses: result.added.ocspResponses,
        crls: result.added.crls,
      },
      missing: result.missing,
      timestamp: { field: result.field, time: stamp?.signing_time ?? null, tsa: stamp?.signer ?? null },
      verification: result.verdict,
    });
    return ExitCode.ok;
  }
  const target = output === '-' ? 'stdout' : output;
  const line = `${ctx.output.out.green('✓')} ${cellText(file)} extended to ${cellText(target)}: ${addedText(result.added)} (${result.field}, by ${cellText(stamp?.signer ?? 'the TSA')}${stamp?.signing_time ? ` at ${formatTime(stamp.signing_time)}` : ''}); ${count(result.verdict.signatures.length, 'signature')} verified`;
  if (output === '-') ctx.output.info(line);
  else ctx.output.line(line);
  return ExitCode.ok;
}

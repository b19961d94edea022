/** `sign-cli envelopes download <id> -o <file>`: the signed copy (PDF) of a completed envelope. */
import { createReadStream, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ExitCode, SignError } from '../../../core/errors.js';
import { parsePositiveNumberOption, type CommandContext } from '../../context.js';
import type { Action } from '../../action.js';

interface DownloadOptions {
  output?: string;
  wait?: boolean;
  waitTimeout: string;
}

export function registerDownload(envelopes: Command, action: Action): void {
  envelopes
    .command('download')
    .description('save the signed copy (PDF) of a completed envelope')
    .argument('<id>', 'envelope id')
    .option('-o, --output <file>', 'where to write the PDF; - for stdout (default: <id>-signed.pdf)')
    .option('--wait', 'wait until the envelope reaches a final state first')
    .option('--wait-timeout <seconds>', 'how long --wait waits', '300')
    .addHelpText('after', '\nExamples:\n  $ sign-cli envelopes download env_8Yq2VwM4bXc1 -o lease.pdf\n  $ sign-cli envelopes download env_8Yq2VwM4bXc1 --wait -o - > lease.pdf')
    .action(action(downloadCommand));
}

async function downloadCommand(ctx: CommandContext, options: DownloadOptions, [id]: string[]): Promise<number> {
  const { output } = ctx;
  const waitMs = parsePositiveNumberOption('--wait-timeout', options.waitTimeout) * 1000;
  const client = await ctx.client({}, ['downloadSignedCopy']);
  try {
    if (options.wait) {
      output.info(`waiting for ${id} to finish…`);
      const { envelope, reached } = await client.waitForEnvelope(id!, { timeoutMs: waitMs, signal: ctx.signal });
      if (!reached) throw new SignError(`${id} is still ${String(envelope.status)} after ${waitMs / 1000} s`, { hint: 'raise --wait-timeout, or try again later' });
    }
    const file = options.output ?? `${id}-signed.pdf`;
    if (file === '-') {
      // Streamed to a private file first: a retried or refused answer must not reach stdout half-written.
      const dir = mkdtempSync(join(tmpdir(), 'sign-cli-download-'));
      try {
        const pdf = await client.downloadSignedCopyTo(id!, join(dir, 'signed.pdf'), ctx.signal);
        for await (const chunk of createReadStream(pdf.path)) {
          if (!ctx.io.stdout.write(chunk as Buffer)) await new Promise<void>((resolve) => ctx.io.stdout.on?.('drain', resolve) ?? resolve());
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return ExitCode.ok;
    }
    // Written beside the target and renamed, so an interrupted download never leaves half a PDF under its name.
    const partial = `${file}.part`;
    let pdf;
    try {
      pdf = await client.downloadSignedCopyTo(id!, partial, ctx.signal);
      renameSync(partial, file);
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
    if (output.json) output.jsonLine({ id, file, bytes: pdf.bytes, sha256: pdf.sha256 });
    else output.line(`${output.out.green('✓')} saved the signed copy of ${id} to ${file} (${pdf.bytes} bytes, sha256 ${pdf.sha256.slice(0, 16)}…)`);
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}

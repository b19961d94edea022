/** `sign-cli webhooks verify`: check one captured delivery offline. Exit 0 valid, 1 invalid. */
import type { Command } from 'commander';
import { UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { HeaderBag } from '../../../core/webhooks/webhook-parsing.js';
import type { CommandContext } from '../../context.js';
import type { Action } from '../../action.js';
import { cellText } from '../../render/cell.js';
import { untrusted } from '../../../core/envelope/text.js';
import { readFlagFile, readStdin } from '../../input/stdin.js';
import { addSchemeOptions, buildVerifier, schemeAdvice, type SchemeFlags } from './options.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { collect } from '../../flags/values.js';

interface VerifyFlags extends SchemeFlags {
  bodyFile?: string;
  header?: string[];
  requestFile?: string;
}

export const doc: CommandDoc = {
  summary: 'verify the signature of one captured delivery (exit 0 valid, 1 invalid)',
  details: [
    'The body comes from `--body-file` or stdin, or with its headers from `--request-file` (a raw HTTP request, as `listen --save-dir` writes them); the secrets, `--scheme` and `--tolerance` work as for `listen`. `--tolerance 0` skips the timestamp check, for a delivery signed a while ago.',
  ],
  examples: [
    'sign-cli webhooks listen --port 4024 --save-dir captured &     # keeps each delivery as received',
    'sleep 1                                                        # a moment to start',
    'sign-cli webhooks trigger signer.signed --to http://127.0.0.1:4024/hooks',
    'kill %1                                                        # the listener, once the event is in',
    'sign-cli webhooks verify --request-file captured/*.http --tolerance 0',
  ],
};

export function registerVerify(webhooks: Command, action: Action): void {
  const command = defineCommand(webhooks, 'verify', doc)
    .option('--body-file <file>', 'the raw body exactly as received (default: stdin)')
    .option('--header <"name: value">', 'a header of the delivery (repeatable)', collect)
    .option(
      '--request-file <file>',
      'a raw HTTP request (request line, headers, blank line, body) instead of --header/--body-file',
    );
  addSchemeOptions(command).action(action(verifyCommand));
}

function parseHeaderLines(lines: string[], into: Record<string, string>, source: string): void {
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at <= 0)
      throw new UsageError(`${source}: ${JSON.stringify(line)} is not a header; write it as 'name: value'`);
    const name = line.slice(0, at).trim().toLowerCase();
    const value = line.slice(at + 1).trim();
    into[name] = into[name] === undefined ? value : `${into[name]}, ${value}`;
  }
}

/** Splits a raw HTTP request into headers and the body bytes, untouched. */
export function parseRawRequest(
  raw: Buffer,
  source: string,
): { headers: Record<string, string>; body: Buffer } {
  let split = raw.indexOf('\r\n\r\n');
  let gap = 4;
  if (split < 0) {
    split = raw.indexOf('\n\n');
    gap = 2;
  }
  if (split < 0) throw new UsageError(`${source}: no blank line between the headers and the body`);
  const lines = raw.subarray(0, split).toString('latin1').split(/\r?\n/);
  // Skip the request line ("POST /hooks HTTP/1.1") when present.
  if (lines[0] && /^[A-Z]+ \S+ HTTP\/\d/.test(lines[0])) lines.shift();
  const headers: Record<string, string> = {};
  parseHeaderLines(
    lines.filter((l) => l.trim() !== ''),
    headers,
    source,
  );
  return { headers, body: raw.subarray(split + gap) };
}

export async function verifyCommand(ctx: CommandContext, flags: VerifyFlags): Promise<number> {
  const { output } = ctx;
  const { verifier } = await buildVerifier(ctx, flags);
  let headers: HeaderBag;
  let body: Buffer;
  if (flags.requestFile) {
    ({ headers, body } = parseRawRequest(
      readFlagFile('--request-file', flags.requestFile),
      flags.requestFile,
    ));
    if (flags.header) parseHeaderLines(flags.header, headers as Record<string, string>, '--header');
  } else {
    const bag: Record<string, string> = {};
    parseHeaderLines(flags.header ?? [], bag, '--header');
    headers = bag;
    body = flags.bodyFile
      ? readFlagFile('--body-file', flags.bodyFile)
      : await readStdin({
          signal: ctx.signal,
          hint: 'reading the delivery body from stdin; Ctrl-D to end, Ctrl-C to cancel',
          stdin: ctx.io.stdin,
          stderr: ctx.io.stderr,
        });
  }
  // One reading: the tolerance is judged, and the age shown, against the same moment.
  const now = ctx.io.clock.now();
  const result = verifier.verify(headers, body, now);
  if (output.json) {
    output.jsonLine(
      result.ok
        ? {
            valid: true,
            scheme: verifier.scheme,
            id: result.id ?? null,
            timestamp: result.timestampSeconds ?? null,
            secret: result.secretIndex + 1,
          }
        : {
            valid: false,
            scheme: verifier.scheme,
            id: result.id ?? null,
            code: result.code,
            reason: `${result.reason}${schemeAdvice(result.suggestion)}`,
          },
    );
  }
  if (result.ok) {
    const when =
      result.timestampSeconds === undefined
        ? ''
        : `, signed ${Math.round(now / 1000 - result.timestampSeconds)} s ago`;
    if (!output.json)
      output.line(
        `${output.out.green('✓')} valid ${verifier.scheme} signature${result.id ? ` for ${cellText(result.id)}` : ''}${when}, by secret #${result.secretIndex + 1}`,
      );
    return ExitCode.ok;
  }
  output.info(
    `${output.err.red('✗')} invalid: ${untrusted(result.reason)}${schemeAdvice(result.suggestion)}`,
  );
  return ExitCode.failed;
}

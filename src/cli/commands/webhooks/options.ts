/**
 * What `webhooks listen`, `verify` and `trigger` share: where the secret
 * comes from, and the scheme options.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { Option, type Command } from 'commander';
import { UsageError } from '../../../core/errors.js';
import {
  DEFAULT_HMAC_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
  WEBHOOK_SCHEMES,
  WebhookVerifier,
  type HmacAlgorithm,
  type WebhookScheme,
} from '../../../core/webhooks/webhooks.js';
import type { SchemeSuggestion } from '../../../core/webhooks/webhook-parsing.js';
import type { CommandContext } from '../../context.js';
import { parseIntegerOption } from '../../flags/values.js';
import { readFlagFile } from '../../input/stdin.js';

export interface SchemeFlags {
  secretFile?: string;
  scheme?: WebhookScheme;
  tolerance: string;
  signatureHeader: string;
  algorithm: HmacAlgorithm;
}

/** How the CLI says which scheme verifies a delivery signed another way. */
export function schemeAdvice(suggestion: SchemeSuggestion | undefined): string {
  if (!suggestion) return '';
  return `: use --scheme ${suggestion.scheme}${suggestion.signatureHeader ? ` --signature-header ${suggestion.signatureHeader}` : ''}`;
}

export function addSchemeOptions(command: Command, withTolerance = true): Command {
  command
    .option(
      '--secret-file <file>',
      "file holding the webhook secret(s), one per line or comma-separated, or an env file that sets SIGN_WEBHOOK_SECRET, such as the sandbox's credentials.env (else env SIGN_WEBHOOK_SECRET)",
    )
    .addOption(
      new Option(
        '--scheme <scheme>',
        'signature scheme (default: config webhook_scheme, else standard)',
      ).choices(WEBHOOK_SCHEMES),
    )
    .option('--signature-header <name>', 'hmac scheme: header carrying the signature', DEFAULT_HMAC_HEADER)
    .addOption(
      new Option('--algorithm <alg>', 'hmac scheme: digest').choices(['sha256', 'sha512']).default('sha256'),
    );
  if (withTolerance)
    command.option(
      '--tolerance <seconds>',
      'largest accepted age (or lead) of a signed timestamp; 0 disables the check',
      String(DEFAULT_TOLERANCE_SECONDS),
    );
  return command;
}

function splitSecrets(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.startsWith('#'));
}

/** `SIGN_WEBHOOK_SECRET='…'` of an env file (the sandbox's credentials.env), unquoted; undefined when it has none. */
const SECRET_ASSIGNMENT = /^[ \t]*(?:export[ \t]+)?SIGN_WEBHOOK_SECRET=(?:'([^']*)'|"([^"]*)"|(\S*))/m;

/**
 * The secrets of --secret-file: its lines (or comma-separated values), or, from an env file such as
 * the sandbox's credentials.env, its SIGN_WEBHOOK_SECRET. A credentials.env that is not there yet
 * is the sandbox's, not started: the error says to start it.
 */
function secretsOfFile(path: string): string[] {
  let text: string;
  try {
    text = readFlagFile('--secret-file', path).toString('utf8');
  } catch (error) {
    if (basename(path) === 'credentials.env' && !existsSync(path))
      throw new UsageError(`--secret-file ${path}: no such file: the sandbox writes it when it starts`, {
        hint: "start it first: sign-cli sandbox --detach (the README's by-hand block does), then run this again",
      });
    throw error;
  }
  const assigned = SECRET_ASSIGNMENT.exec(text);
  return splitSecrets(assigned ? (assigned[1] ?? assigned[2] ?? assigned[3] ?? '') : text);
}

/** Secrets from --secret-file, else SIGN_WEBHOOK_SECRET; registered so they are never printed. */
export function loadSecrets(ctx: CommandContext, flags: SchemeFlags): string[] {
  let secrets: string[];
  if (flags.secretFile) {
    secrets = secretsOfFile(flags.secretFile);
    if (secrets.length === 0)
      throw new UsageError(`--secret-file ${flags.secretFile}: the file holds no secret`);
  } else {
    secrets = splitSecrets(ctx.env.SIGN_WEBHOOK_SECRET ?? '');
    if (secrets.length === 0) {
      throw new UsageError('no webhook secret: pass --secret-file <file> or set SIGN_WEBHOOK_SECRET', {
        hint: "the local sandbox's secret is in credentials.env in its data dir",
      });
    }
  }
  for (const secret of secrets) ctx.output.protect(secret);
  return secrets;
}

/** The scheme from the flag, else `config webhook_scheme`, else standard. */
export async function resolveScheme(ctx: CommandContext, flags: SchemeFlags): Promise<WebhookScheme> {
  return flags.scheme ?? (await ctx.setting<WebhookScheme>('webhook_scheme')) ?? 'standard';
}

export async function buildVerifier(
  ctx: CommandContext,
  flags: SchemeFlags,
): Promise<{ verifier: WebhookVerifier; secrets: string[] }> {
  const secrets = loadSecrets(ctx, flags);
  const scheme = await resolveScheme(ctx, flags);
  try {
    const verifier = new WebhookVerifier({
      scheme,
      secrets,
      toleranceSeconds: parseIntegerOption('--tolerance', flags.tolerance, 0, 10 * 365 * 86_400),
      signatureHeader: flags.signatureHeader,
      algorithm: flags.algorithm,
    });
    return { verifier, secrets };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      (error as Error).message,
      /other secrets need/.test((error as Error).message)
        ? { hint: 'pass --scheme stripe or --scheme hmac for such secrets' }
        : {},
    );
  }
}

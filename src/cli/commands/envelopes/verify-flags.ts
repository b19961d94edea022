/**
 * The flags of `envelopes verify` (and `download --verify`) read into what the verifier takes,
 * checked before any PDF is read: one file's run (verify.ts) and an archive's (verify-many.ts)
 * read them the same way.
 */
import { constants as bufferConstants } from 'node:buffer';
import { UsageError } from '../../../core/errors.js';
import type { VerifyOptions } from '../../../core/pades/verify.js';
import { readFlagFile } from '../../input/stdin.js';
import { readPassword } from '../../input/pdf-file.js';
import { oneOf } from '../../flags/choices.js';
import type { CommandContext } from '../../context.js';
import type { ProxySettings } from '../../../core/client/proxy.js';

/** Larger files are refused before they are read, unless --max-size raises it: a signed contract is kilobytes or a few megabytes. */
export const MAX_PDF_MB = 256;
export const MAX_PDF_BYTES = MAX_PDF_MB * 1024 * 1024;
/** The most --max-size may allow: what one Buffer holds. */
const MAX_SIZE_LIMIT_MB = Math.floor(bufferConstants.MAX_LENGTH / (1024 * 1024)) - 1;

/** What `envelopes verify` (and `download --verify`) take. */
export interface VerifyFlags {
  trust?: string[];
  envelope?: string;
  at?: string;
  maxSize?: string;
  password?: string;
  passwordFile?: string;
  allowWeak?: boolean;
  revocation?: string;
  online?: boolean;
}

export const REVOCATION_POLICIES = ['soft', 'require'] as const;

/** The flags as the verifier takes them. */
export interface VerifySettings {
  at: VerifyOptions['at'];
  maxBytes: number;
  password: string | undefined;
  /** Every certificate of each --trust file, DER. */
  trusted: Uint8Array[];
  allowWeak: boolean;
  /** An unknown revocation status passed with a warning (soft) or failed (require). */
  revocation: (typeof REVOCATION_POLICIES)[number];
}

/** Every flag checked, in the order a person fixes them (exit 2 naming the first that is wrong). */
export async function verifySettings(options: VerifyFlags): Promise<VerifySettings> {
  const at = parseAt(options.at);
  const maxBytes = parseMaxSize(options.maxSize);
  const password = readPassword(options);
  const revocation =
    options.revocation === undefined
      ? 'soft'
      : oneOf('--revocation', options.revocation, REVOCATION_POLICIES);
  const trusted = options.trust?.length ? await trustedCertificates(options.trust) : [];
  return { at, maxBytes, password, trusted, allowWeak: options.allowWeak === true, revocation };
}

/** What --online fetches with: the CLI's proxies and --timeout (default 30 s). */
export async function onlineSettings(
  ctx: CommandContext,
): Promise<{ proxy: ProxySettings; timeoutMs: number }> {
  const [{ proxySettingsFrom }, { parsePositiveNumberOption }] = await Promise.all([
    import('../../../core/client/proxy.js'),
    import('../../flags/values.js'),
  ]);
  const timeout = await ctx.numberFrom('--timeout', ctx.globals.timeout, 'SIGN_TIMEOUT', 'timeout');
  return {
    proxy: proxySettingsFrom(ctx.io.env),
    timeoutMs: timeout ? parsePositiveNumberOption(timeout.name, timeout.value) * 1000 : 30_000,
  };
}

/** Every certificate of each --trust file, DER. */
async function trustedCertificates(files: string[]): Promise<Uint8Array[]> {
  const core = await import('../../../core/pades/verify.js');
  return files.flatMap((file) => {
    const blocks = core.pemCertificates(readFlagFile('--trust', file).toString('utf8'));
    if (blocks.length === 0)
      throw new UsageError(`--trust ${file}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)`);
    for (const der of blocks)
      if (!core.isCertificate(der))
        throw new UsageError(`--trust ${file}: a PEM block that is not an X.509 certificate`);
    return blocks;
  });
}

/** `--at`: claimed, or an ISO 8601 time. */
export function parseAt(value: string | undefined): VerifyOptions['at'] {
  if (value === undefined) return undefined;
  if (value === 'claimed') return 'claimed';
  const time = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)
    ? new Date(value)
    : new Date(Number.NaN);
  if (Number.isNaN(time.getTime()))
    throw new UsageError(`--at ${value}: not a time`, {
      hint: "give `claimed` (the signer's /M) or an ISO 8601 time such as 2026-01-31T12:00:00Z",
    });
  return time;
}

/** `--max-size`: a whole number of MB, default 256. */
export function parseMaxSize(value: string | undefined): number {
  if (value === undefined) return MAX_PDF_BYTES;
  const mb = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(mb) || mb < 1 || mb > MAX_SIZE_LIMIT_MB)
    throw new UsageError(`--max-size ${value}: not a size in MB from 1 to ${MAX_SIZE_LIMIT_MB}`, {
      hint: `the default is ${MAX_PDF_MB}; give a larger whole number of megabytes, e.g. --max-size 1024`,
    });
  return mb * 1024 * 1024;
}

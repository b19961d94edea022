/**
 * `sign-cli envelopes open <id>`: a signer's signing page in the sandbox
 * (GET /_sandbox/envelopes/{id}/links): prints its link, then opens it in the
 * desktop's browser where there is one, as `gh browse` does. The service
 * sends its links to the signers themselves: there is none to open there.
 */
import type { Command } from 'commander';
import { checkEnvelopeId } from '../../../core/client/client-requests.js';
import { UnexpectedResponseError, UsageError } from '../../../core/errors.js';
import { isRecord } from '../../../core/envelope/records.js';
import { ExitCode } from '../../exit-codes.js';
import type { Action } from '../../action.js';
import type { CommandContext } from '../../context.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { browserFor, type NoBrowser } from '../../process/browser.js';
import { cellText as text } from '../../render/cell.js';
import { getSandboxJson } from '../sandbox/sandbox-api.js';

interface OpenOptions {
  signer?: string;
  /** false with --no-browser. */
  browser: boolean;
}

/** A signer as the links answer gives it (docs/sandbox.md). */
export interface LinkedSigner {
  id?: unknown;
  name?: unknown;
  order?: unknown;
  channel?: unknown;
  email?: unknown;
  phone?: unknown;
  status?: unknown;
  link?: unknown;
  turn?: unknown;
}

export const doc: CommandDoc = {
  summary:
    "open a signer's signing page in the sandbox (prints its link; opens a browser where there is one)",
  details: [
    'It prints the link of one signer\'s page on stdout, alone on its line (so `link=$(sign-cli envelopes open "$id")` works), then opens it in the browser when stdout is a terminal on a desktop: `$BROWSER` when set (`%s` stands for the link), else `open` on macOS, `start` on Windows, `xdg-open` where DISPLAY or WAYLAND_DISPLAY is set; never in CI, in a pipe or with `--no-browser`. A browser that cannot be opened fails nothing: it says so on stderr.',
    '`--signer` picks the signer: a number is the signer\'s order (its place in the list when the signers have none), else an e-mail address or a phone number. Without it, the signer whose turn it is (the first, when several can act), else the only signer; otherwise exit 2, naming the signers. `--json` prints `{"envelope_id", "signer": {"id", "name", "order", "status"}, "link", "opened"}`.',
  ],
  more: [
    "Signing pages exist only in the sandbox: the service sends each signer their link itself, and answers GET /_sandbox/envelopes/{id}/links with 404 (exit 1, saying so). Start the sandbox with `sign-cli sandbox --journey manual` for envelopes that wait for people: the page shows the document and takes the signer's own steps; `sign-cli sandbox outbox` shows the messages each was sent. An envelope of another account or environment is not found (exit 1).",
  ],
  examples: [
    'sign-cli envelopes open "$id" --signer 1',
    'link=$(sign-cli envelopes open "$id" --signer layla.haddad@example.com) && echo "$link"',
    'sign-cli envelopes open "$id" --signer "+971 50 123 4567" --no-browser --json',
  ],
};

export function registerOpen(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'open', doc)
    .argument('<id>', 'envelope id')
    .option(
      '--signer <n|email|phone>',
      "whose page: the signer's order, e-mail or phone (default: the signer whose turn it is)",
    )
    .option('-n, --no-browser', 'print the link only; do not open a browser')
    .action(action(openCommand));
}

/** How a signer is named in messages: `1. Omar Khalil <omar@example.com>`, every server text escaped. */
function signerLabel(signer: LinkedSigner, index: number): string {
  const place = typeof signer.order === 'number' ? signer.order : index + 1;
  const contact = text(signer.email ?? signer.phone);
  return `${place}. ${text(signer.name) || text(signer.id)}${contact ? ` <${contact}>` : ''}`;
}

const listOf = (signers: readonly LinkedSigner[]): string =>
  signers.map((signer, index) => signerLabel(signer, index)).join('; ');

/** An address compared as the service keeps it: trimmed, NFC, in any case. */
const emailKey = (value: unknown): string =>
  typeof value === 'string' ? value.normalize('NFC').trim().toLowerCase() : '';

/**
 * The signer `--signer` names, or whose turn it is: see the doc. Throws a UsageError (exit 2)
 * naming the signers when none or several fit.
 */
export async function chooseSigner(
  id: string,
  signers: readonly LinkedSigner[],
  wanted: string | undefined,
): Promise<LinkedSigner> {
  const all = signers.length === 0 ? 'it has no signers' : `its signers: ${listOf(signers)}`;
  if (wanted === undefined) {
    const turn = signers.find((signer) => signer.turn === true);
    if (turn) return turn;
    if (signers.length === 1) return signers[0]!;
    throw new UsageError(`no signer of ${id} can act now: say whose page to open with --signer; ${all}`, {
      hint: 'e.g. --signer 1 (the order), --signer <e-mail> or --signer <phone>',
    });
  }
  const given = wanted.trim();
  let found: LinkedSigner[];
  if (/^\d+$/.test(given)) {
    const n = Number(given);
    const ordered = signers.some((signer) => typeof signer.order === 'number');
    found = ordered
      ? signers.filter((signer) => signer.order === n)
      : signers.slice(n - 1, n).filter(() => n >= 1);
  } else if (given.includes('@')) {
    found = signers.filter((signer) => emailKey(signer.email) === emailKey(given));
  } else if (/^(\+|00)?[\d\s().\-\u00a0]+$/.test(given)) {
    // Compared as the service keeps phones (E.164), whatever the spacing typed.
    const { normalizePhone } = await import('../../../core/envelope/phone.js');
    const key = normalizePhone(given);
    found = signers.filter(
      (signer) => typeof signer.phone === 'string' && normalizePhone(signer.phone) === key,
    );
  } else {
    found = signers.filter((signer) => signer.id === given);
  }
  if (found.length === 1) return found[0]!;
  const shown = text(given);
  if (found.length > 1)
    throw new UsageError(`--signer ${shown} fits ${found.length} signers of ${id}: ${listOf(found)}`, {
      hint: 'name one by e-mail or phone',
    });
  throw new UsageError(`${id} has no signer ${shown}; ${all}`, {
    hint: 'give an order, an e-mail or a phone of one of them',
  });
}

/** What stderr says when the link was not opened; nothing when not opening was what was asked for. */
function notOpened(reason: NoBrowser | 'failed', command: string): string | undefined {
  if (reason === 'no_display')
    return 'no display to open a browser on (DISPLAY and WAYLAND_DISPLAY are unset): printed the link instead';
  if (reason === 'failed') return `could not open a browser (${command}): printed the link instead`;
  return undefined;
}

export async function openCommand(
  ctx: CommandContext,
  options: OpenOptions,
  [id]: string[],
): Promise<number> {
  const { output } = ctx;
  const envelopeId = id ?? '';
  checkEnvelopeId(envelopeId);
  const client = await ctx.client();
  let body: Record<string, unknown>;
  try {
    body = await getSandboxJson(client, {
      path: `/_sandbox/envelopes/${encodeURIComponent(envelopeId)}/links`,
      label: `GET /_sandbox/envelopes/${envelopeId}/links`,
      notTheSandbox: `${client.baseUrl} has no signing pages: they exist only in the sandbox (\`sign-cli sandbox\`); the service sends each signer their link itself`,
      signal: ctx.signal,
    });
  } finally {
    await client.close();
  }
  const signers: LinkedSigner[] | undefined = Array.isArray(body.signers)
    ? body.signers.filter(isRecord)
    : undefined;
  if (!signers)
    throw new UnexpectedResponseError(
      `GET /_sandbox/envelopes/${envelopeId}/links: the answer has no list of signers`,
      200,
      'application/json',
    );
  const signer = await chooseSigner(envelopeId, signers, options.signer);
  const link = webLink(signer.link);
  if (link === undefined)
    throw new UnexpectedResponseError(
      `GET /_sandbox/envelopes/${envelopeId}/links: signer ${text(signer.name)} has no http(s) link (${text(signer.link) || 'none'})`,
      200,
      'application/json',
    );
  const who = signerLabel(signer, signers.indexOf(signer));
  // The link first, whatever happens next: a browser that hangs or fails leaves it printed.
  if (!output.json) output.line(link);
  const decision = browserFor(link, {
    env: ctx.env,
    platform: process.platform,
    stdoutIsTTY: ctx.io.stdout.isTTY === true,
    wanted: options.browser !== false,
  });
  let opened = false;
  if ('launch' in decision) {
    opened = await ctx.io.openBrowser(decision.launch).catch(() => false);
    const said = opened
      ? `opened the signing page of ${who} in the browser`
      : notOpened('failed', decision.launch.command);
    if (said) output.info(said);
  } else {
    const said = notOpened(decision.none, '');
    if (said) output.info(said);
  }
  if (output.json)
    output.jsonDocument({
      envelope_id: typeof body.envelope_id === 'string' ? body.envelope_id : envelopeId,
      signer: {
        id: signer.id ?? null,
        name: signer.name ?? null,
        order: signer.order ?? null,
        status: signer.status ?? null,
      },
      link,
      opened,
    });
  return ExitCode.ok;
}

/** The link as an http(s) URL, or undefined: nothing else is handed to a browser (no file:, no javascript:). */
function webLink(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

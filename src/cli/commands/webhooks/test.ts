/**
 * `sign-cli webhooks test <url>`: grades your own webhook receiver as the
 * service will treat it (src/core/receiver-test). Exit 0 when every check
 * passes, 1 when any fails, 2 for bad usage, 3 when nothing answers at the URL.
 */
import { Argument, Option, type Command } from 'commander';
import { hostname } from 'node:os';
import { StorageError, UsageError } from '../../../core/errors.js';
import { checkChoices } from '../../flags/choices.js';
import { CHECK_IDS, type CheckId } from '../../../core/receiver-test/types.js';
import { DELIVERY_TIMEOUT_MS } from '../../../core/webhooks/webhook-signing.js';
import type { Action } from '../../action.js';
import { completes, valuesOf } from '../../completion/hints.js';
import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../exit-codes.js';
import { collect, parseIntegerOption, parsePositiveNumberOption } from '../../flags/values.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { addSchemeOptions, loadSecrets, resolveScheme, type SchemeFlags } from './options.js';

interface TestFlags extends SchemeFlags {
  secret?: string;
  only: string[];
  burst: string;
  answerTimeout: string;
  junit?: string;
  allowRemote?: boolean;
}

export const doc: CommandDoc = {
  summary:
    'grade your webhook receiver: forged, replayed, repeated, unknown, out-of-order and burst deliveries',
  details: [
    'Sends a battery of deliveries to your receiver and grades each answer the way the service will treat it: valid events must be answered 2xx within the delivery timeout (10 s), forged ones (altered body, wrong secret, missing or garbled signature, stale or future timestamp) 4xx, and redeliveries, rotated secrets, unknown types and fields, events out of order, a burst and an oversized body must not break it. It sends forged deliveries on purpose: by default only to this machine or a private network; any other host needs `--allow-remote`.',
    'Exit 0 when every check passes, 1 when any fails, 2 for bad usage (nothing sent), 3 when nothing answers at the URL (nothing listens there, or it takes the connections and answers no delivery at all). `--junit <file>` writes JUnit XML for CI dashboards; `--json` prints the scorecard as one JSON document.',
    'A receiver that leaves a delivery unanswered does not hold the run: that check ends at it (its other deliveries are not sent), and the checks not begun yet then run at once, so a run ends within about twice `--answer-timeout`, plus the time the answers that came took.',
  ],
  more: [
    'The secret is the one your receiver verifies with: `--secret`, `--secret-file` (the first secret in it) or SIGN_WEBHOOK_SECRET (its first). A `whsk_…` signing key tests a receiver that verifies Ed25519 (`v1a`) with its `whpk_…` public key. `--secret` on the command line is visible to other users of this machine (ps); prefer the file or the environment.',
    "Checks (`--only <check>`, repeatable): `accepts-events`, `rejects-altered-body`, `rejects-wrong-secret`, `rejects-bad-signature`, `rejects-stale-timestamp`, `tolerates-redelivery`, `survives-rotation`, `ignores-unknown`, `tolerates-order`, `answers-burst`, `bounded-body`. The hmac scheme carries no timestamp and one signature: its timestamp and rotation checks are skipped, and say so. Under the stripe scheme only a stale timestamp is sent, not a future one: Stripe's own libraries check a timestamp's age only.",
    'In CI, start your app in the job with a test secret, wait until it answers, then grade it; a failing check fails the job, and the JUnit file feeds the test report:',
    [
      '  export SIGN_WEBHOOK_SECRET="$WEBHOOK_TEST_SECRET"    # the secret your app is started with',
      '  npm start &                                          # your app, on port 3000',
      '  until curl -fs http://127.0.0.1:3000/health; do sleep 1; done',
      '  sign-cli webhooks test http://127.0.0.1:3000/webhooks --junit webhooks-test.xml',
    ].join('\n'),
    'As a GitHub Actions step, with the report kept whether the check passed or not:',
    [
      '  - name: Grade the webhook receiver',
      '    env:',
      '      SIGN_WEBHOOK_SECRET: ${{ secrets.WEBHOOK_TEST_SECRET }}',
      '    run: |',
      '      npm start &',
      '      until curl -fs http://127.0.0.1:3000/health; do sleep 1; done',
      '      npx --package esign-envelopes-cli sign-cli webhooks test http://127.0.0.1:3000/webhooks --junit webhooks-test.xml',
      '  - name: Keep the scorecard',
      '    if: always()',
      '    uses: actions/upload-artifact@v4',
      '    with:',
      '      name: webhooks-test',
      '      path: webhooks-test.xml',
    ].join('\n'),
  ],
  examples: [
    'sign-cli webhooks listen --port 4027 &                 # stands in for your receiver; it verifies like one should',
    'sleep 1                                                # a moment to start',
    'sign-cli webhooks test http://127.0.0.1:4027/hooks --junit webhooks-test.xml',
    'sign-cli webhooks test http://127.0.0.1:4027/hooks --only rejects-wrong-secret --only answers-burst --burst 200',
    'kill %1                                                # the listener',
  ],
};

export function registerTest(webhooks: Command, action: Action): void {
  const command = defineCommand(webhooks, 'test', doc)
    .addArgument(new Argument('<url>', 'your receiver: where the service POSTs deliveries'))
    .option('--secret <secret>', 'the webhook secret your receiver verifies with (prefer --secret-file)')
    .addOption(
      completes(
        new Option('--only <check>', 'run only this check (repeatable)').argParser(collect).default([]),
        valuesOf(CHECK_IDS),
      ),
    )
    .option('--burst <n>', 'deliveries sent at once by the burst check', '50')
    .option(
      '--answer-timeout <seconds>',
      "how long the service waits for an answer (default: the service's 10)",
      String(DELIVERY_TIMEOUT_MS / 1000),
    )
    .option('--junit <file>', 'also write the scorecard as JUnit XML, for CI dashboards')
    .option('--allow-remote', 'send (forged deliveries, on purpose) to a host that is not local or private');
  addSchemeOptions(command).action(action(testCommand));
}

/** Seconds, 0.1 to 600: below, nothing could answer; above, a run would outlast any CI job. */
function answerTimeout(text: string): number {
  const seconds = parsePositiveNumberOption('--answer-timeout', text);
  if (seconds < 0.1 || seconds > 600)
    throw new UsageError(`--answer-timeout must be from 0.1 to 600 seconds, got ${JSON.stringify(text)}`);
  return Math.round(seconds * 1000);
}

function checkIds(values: readonly string[]): CheckId[] {
  checkChoices('--only', values, CHECK_IDS);
  return [...new Set(values)] as CheckId[];
}

function receiverUrl(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // said below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new UsageError(
      `the receiver's URL must be an http(s) URL, got ${JSON.stringify(text.slice(0, 80))}`,
      {
        hint: 'such as http://127.0.0.1:3000/webhooks',
      },
    );
  return url;
}

/** The URL as shown: its user, password and query values masked (receiver URLs often carry a token). */
export function shownUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.username) shown.username = '****';
  if (shown.password) shown.password = '****';
  for (const name of [...new Set(shown.searchParams.keys())]) shown.searchParams.set(name, '****');
  return shown.href.replace(/%2A%2A%2A%2A/g, '****');
}

export async function testCommand(
  ctx: CommandContext,
  flags: TestFlags,
  [target]: string[],
): Promise<number> {
  const { output } = ctx;
  // First, so that no message below (a secret typed where the URL goes) can show it.
  if (flags.secret !== undefined) output.protect(flags.secret.trim());
  const url = receiverUrl(target ?? '');
  const only = checkIds(flags.only);
  const burst = parseIntegerOption('--burst', flags.burst, 1, 1000);
  const timeoutMs = answerTimeout(flags.answerTimeout);
  const toleranceSeconds = parseIntegerOption('--tolerance', flags.tolerance, 0, 10 * 365 * 86_400);
  if (flags.secret !== undefined && flags.secretFile !== undefined)
    throw new UsageError('give the secret once: --secret or --secret-file, not both');
  if (flags.secret !== undefined && flags.secret.trim() === '') throw new UsageError('--secret is empty');
  const secret = flags.secret?.trim() ?? loadSecrets(ctx, flags)[0]!;
  const scheme = await resolveScheme(ctx, flags);
  const { DeliverySigner } = await import('../../../core/receiver-test/signer.js');
  let signer;
  try {
    signer = new DeliverySigner({
      scheme,
      secret,
      signatureHeader: flags.signatureHeader,
      algorithm: flags.algorithm,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (flags.junit !== undefined) await checkWritable(flags.junit);
  const { resolveReceiverHost } = await import('../../../core/receiver-test/address.js');
  const { ReceiverUnreachableError, testReceiver } = await import('../../../core/receiver-test/run.js');
  const now = () => new Date(ctx.io.clock.now());
  /** Nothing to grade: said on stderr, and in the report CI keeps, as an error (not a failed check). */
  const unreachable = async (error: InstanceType<typeof ReceiverUnreachableError>): Promise<number> => {
    output.error(error);
    if (flags.junit !== undefined) {
      const { junitUnreachable } = await import('../../render/junit.js');
      await writeReport(flags.junit, junitUnreachable(shownUrl(url), error.message, now(), hostname()));
    }
    // Exit 3 (a refused key's code elsewhere): here it tells CI "nothing to grade" from "graded and failed".
    return ExitCode.auth;
  };
  let local: boolean;
  try {
    const host = await resolveReceiverHost(url);
    local = host.local;
    if (!local && !flags.allowRemote)
      throw new UsageError(
        `${host.host} (${host.addresses.slice(0, 2).join(', ')}) is not this machine or a private network; webhooks test sends forged deliveries on purpose`,
        { hint: 'pass --allow-remote if the receiver there is yours to test' },
      );
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return unreachable(
      new ReceiverUnreachableError(
        `could not resolve ${url.hostname}: ${(error as Error).message}`,
        (error as { code?: string }).code,
        { hint: 'check the host name in the URL' },
      ),
    );
  }
  const { httpSender } = await import('../../../core/receiver-test/http-sender.js');
  const sender = httpSender({ url: url.href, timeoutMs, localOnly: local, signal: ctx.signal });
  let card;
  try {
    card = await testReceiver({
      url: shownUrl(url),
      signer,
      send: sender.send,
      ...(only.length > 0 ? { only } : {}),
      burst,
      timeoutMs,
      toleranceSeconds,
      clock: ctx.io.clock,
      onCheck: (check) => {
        if (output.stderrIsTTY && !output.json)
          output.status(`${check.verdict === 'fail' ? '✗' : '✓'} ${check.name}`);
      },
    });
  } catch (error) {
    if (error instanceof ReceiverUnreachableError) return unreachable(error);
    throw error;
  } finally {
    if (output.stderrIsTTY) output.status('');
    await sender.close();
  }
  // The scorecard first: a report that cannot be written still leaves it on screen.
  if (output.json) output.jsonDocument(card);
  else {
    const { printScorecard } = await import('../../render/scorecard-view.js');
    await printScorecard(output, card);
  }
  if (flags.junit !== undefined) {
    const { junitXml } = await import('../../render/junit.js');
    await writeReport(flags.junit, junitXml(card, now(), hostname()));
  }
  return card.failed === 0 ? ExitCode.ok : ExitCode.failed;
}

/** Before anything is sent: the report can be written there (its directory exists, it is not a directory). */
async function checkWritable(file: string): Promise<void> {
  const { access, constants, stat } = await import('node:fs/promises');
  const path = await import('node:path');
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`--junit ${file} is a directory; name a file in it`);
  try {
    await access(path.dirname(file), constants.W_OK);
  } catch {
    throw new UsageError(`--junit ${file}: its directory does not exist or cannot be written`);
  }
}

/** Written whole or not at all: a temporary file beside it, then renamed; none left behind on failure. */
async function writeReport(file: string, text: string): Promise<void> {
  const { rename, rm, writeFile } = await import('node:fs/promises');
  const part = `${file}.${process.pid}.part`;
  try {
    await writeFile(part, text, { mode: 0o644 });
    await rename(part, file);
  } catch (error) {
    await rm(part, { force: true });
    throw new StorageError(
      file,
      (error as { code?: string }).code,
      `could not write the JUnit report ${file}: ${(error as Error).message}`,
    );
  }
}

/** `sign-cli sandbox`: the local emulator of the service, until Ctrl-C. */
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { SignError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import { OPEN_FIELDS } from '../../../core/envelope/open-fields.js';
import { maskKey } from '../../../core/keys.js';
import type { CommandContext } from '../../context.js';
import {
  collect,
  parseDurationOption,
  parseIntegerOption,
  parsePositiveNumberOption,
} from '../../flags/values.js';
import type { Action } from '../../action.js';
import { isOpenField, parseValueList } from '../../config/settings.js';
import { formatInstant } from '../../render/time.js';
import { labelled } from '../../layout/wrap.js';
import type { Output } from '../../render/output.js';
import { DETACHED_ENV, readCredentials, reportReady, runningSandboxPid, startDetached } from './detach.js';
import { defaultSandboxDir } from './data-dir.js';
import { registerStop } from './stop.js';
import { registerOutbox } from './outbox.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { completes } from '../../completion/hints.js';

interface SandboxFlags {
  port: string;
  host: string;
  dataDir?: string;
  speed: string;
  rateLimit: string;
  latency: string;
  idempotencyRetention: string;
  accept: string[];
  signing: 'hmac' | 'ed25519';
  journey: Journey;
  templates?: string;
  detach?: boolean;
}

/** How envelopes proceed: simulated signers act on their own, or envelopes wait for people. */
const JOURNEYS = ['auto', 'manual'] as const;
type Journey = (typeof JOURNEYS)[number];

/**
 * `--accept verification=national_id,bank_id` (repeatable) and the config's
 * `sandbox.accept.<field>`, merged: the values the sandbox takes beyond its
 * own lists for the fields the published interface leaves open (docs/service.md, Envelope).
 */
export function acceptOptions(
  flags: readonly string[],
  configured: Record<string, unknown> = {},
): Record<string, string[]> {
  const accept: Record<string, string[]> = {};
  const add = (field: string, values: string[]) =>
    (accept[field] = [...new Set([...(accept[field] ?? []), ...values])]);
  for (const [field, values] of Object.entries(configured)) {
    if (!isOpenField(field) || !Array.isArray(values))
      throw new UsageError(
        `config sandbox.accept.${field}: not a list of values of ${OPEN_FIELDS.join(', ')}`,
        { hint: `fix it with \`sign-cli config set sandbox.accept.<field> a,b\`` },
      );
    add(field, values.map(String));
  }
  for (const flag of flags) {
    const at = flag.indexOf('=');
    const field = at < 0 ? flag : flag.slice(0, at);
    if (at < 0 || !isOpenField(field)) {
      throw new UsageError(
        `--accept ${JSON.stringify(flag)}: write it as <field>=<value,...> with field one of ${OPEN_FIELDS.join(', ')}`,
        { hint: 'e.g. --accept verification=national_id' },
      );
    }
    add(field, parseValueList(flag.slice(at + 1), `--accept ${field}`));
  }
  return accept;
}

export const doc: CommandDoc = {
  summary: 'run a local sandbox of the service (no account needed)',
  details: [
    'Alone, it runs in the foreground on 127.0.0.1:4010 with its state in ~/.local/share/sign-cli/sandbox, until Ctrl-C; `--detach` runs it in the background and returns once it listens and its credentials are written. It writes SIGN_BASE_URL, SIGN_API_KEY and SIGN_WEBHOOK_SECRET to <data-dir>/credentials.env (mode 0600), ready for `.` in a shell. With `--json` the first stdout line is `{"base_url", "api_key", "webhook_secret", "ca_file"}` (plus `"webhook_public_key"` with `--signing ed25519`, and `"pid"` with `--detach`), the key and secret whole even when the environment already holds them (the one line that shows them: a person sees them masked); `ca_file` is the PEM of the sandbox\'s own certificate authority, which signs its signed copies (PAdES), also served at GET /_sandbox/ca.pem.',
  ],
  more: [
    'A faithful emulator of the service: API keys with environment, scopes and expiry, 600 requests a minute per key, idempotency, the signing journey with signed webhooks and retries, a signed PDF with a certificate of completion, the audit trail, listings, void and resend; accounts and environments kept apart. Its state survives restarts and `kill -9`. What it serves, its magic contact values and its control endpoints: docs/sandbox.md.',
    'With `--detach`, its output goes to <data-dir>/sandbox.log (never a secret in it). When a sandbox already runs on the data dir (a block pasted twice), it says so, with its pid and URL, and exits 0. `sign-cli sandbox stop` stops it.',
    '`--speed` runs journey steps, expiry and webhook retries that many times faster. `--signing ed25519` signs deliveries with Ed25519 (`v1a`): receivers verify with the `whpk_` public key it prints. `--accept` widens the values it accepts for the fields the service leaves open (also `sign-cli config set sandbox.accept.<field> …`).',
    '`--journey manual` makes envelopes wait for people, as the service does: each signer has a signing page (`sign-cli envelopes open <id>` opens it), what they are sent (invitations, reminders, one-time codes, ID requests) lands in the outbox (`sign-cli sandbox outbox`), and a national-ID check is a mock page of its own. `--journey auto`, the default, has simulated signers act on their own (their magic contact values: docs/sandbox.md).',
    '`--templates <dir>` adds your own documents beside the built-in office lease (`tpl_office_lease`, also `tpl_lease_renewal`) and supplier agreement (`tpl_supplier_agreement`): one plain-text file per template version, named `<template_id>.v<version>.txt`, with a section per language (`[en]`, `[ar]`), `#` and `##` headings, `-` list items, paragraphs, and `{{title}}`, `{{contract_id}}`, `{{date}}`, `{{party.1}}`… filled from the envelope (the format: docs/sandbox.md; an example: examples/templates). A file it cannot use stops the start (exit 2) naming the file and line.',
    '`--idempotency-retention` is how long it remembers an Idempotency-Key (default 24h, in real time whatever `--speed`): a request re-sent within it gets the first response again; after it, the same key is a new request (a create makes a new envelope), as at a service that has forgotten the key.',
  ],
  examples: [
    'sign-cli sandbox --port 0 --detach --data-dir sbx    # returns once it listens and its credentials are written',
    'sign-cli sandbox stop --data-dir sbx                 # stops it; its state is kept',
    'sign-cli sandbox --port 0 --json --data-dir sbx --speed 20 --accept verification=national_id,bank_id   # in the foreground, until Ctrl-C',
    'sign-cli sandbox --port 0 --data-dir people --journey manual   # envelopes wait for people: `sandbox outbox`, `envelopes open`',
  ],
};

export function registerSandbox(program: Command, action: Action): void {
  const sandbox = defineCommand(program, 'sandbox', doc)
    .option('--port <n>', 'port to listen on; 0 picks a free one', '4010')
    .option('--host <h>', 'address to bind', '127.0.0.1')
    .option(
      '--data-dir <dir>',
      'where state lives (default: $SIGN_SANDBOX_DIR or ~/.local/share/sign-cli/sandbox)',
    )
    .option('--speed <factor>', 'sandbox clock speed relative to real time', '1')
    .option('--rate-limit <per-minute>', 'requests per minute per key before 429', '600')
    .option('--latency <ms>', 'added latency per API request, to emulate a distant service', '0')
    .option(
      '--idempotency-retention <duration>',
      'how long an Idempotency-Key is remembered, in real time (90s, 10m, 24h, 7d); after it the same key makes a new envelope',
      '24h',
    )
    .addOption(
      new Option(
        '--signing <kind>',
        'how webhook deliveries are signed: HMAC (v1, whsec_) or Ed25519 (v1a, whpk_ to verify)',
      )
        .choices(['hmac', 'ed25519'])
        .default('hmac'),
    )
    .addOption(
      completes(
        new Option(
          '--accept <field=values>',
          `also accept these values of a field the service does not list in full (${OPEN_FIELDS.join(', ')}); repeatable; also config sandbox.accept.<field>`,
        )
          .argParser(collect)
          .default([]),
        {
          kind: 'values',
          values: OPEN_FIELDS.map((field) => ({
            name: `${field}=`,
            description: `more values of ${field}, comma-separated`,
          })),
        },
      ),
    )
    .addOption(
      completes(
        new Option(
          '--journey <kind>',
          'how envelopes proceed: auto (simulated signers act on their own) or manual (they wait for people: signer pages, outbox)',
        )
          .choices(JOURNEYS)
          .default('auto'),
        {
          kind: 'values',
          values: [
            { name: 'auto', description: 'simulated signers act on their own' },
            {
              name: 'manual',
              description: 'envelopes wait for people: signer pages, outbox, national-ID mock',
            },
          ],
        },
      ),
    )
    .option(
      '--templates <dir>',
      'document templates of your own, one file per version (<template_id>.v<version>.txt), beside the built-in ones',
    )
    .option(
      '--detach',
      'run in the background: return once it listens and its credentials are written (output in <data-dir>/sandbox.log); `sign-cli sandbox stop` ends it',
    )
    .action(action(sandboxCommand));
  registerStop(sandbox, action);
  registerOutbox(sandbox, action);
}

export async function sandboxCommand(ctx: CommandContext, flags: SandboxFlags): Promise<number> {
  const { output } = ctx;
  const port = parseIntegerOption('--port', flags.port, 0, 65535);
  const speed = parsePositiveNumberOption('--speed', flags.speed);
  const rateLimit = parseIntegerOption('--rate-limit', flags.rateLimit, 1);
  const latency = parseIntegerOption('--latency', flags.latency, 0, 600_000);
  const idempotencyRetentionMs = parseDurationOption('--idempotency-retention', flags.idempotencyRetention);
  const dataDir = flags.dataDir ?? defaultSandboxDir(ctx.env);
  const accept = acceptOptions(flags.accept, (await ctx.loadConfig()).get('sandbox')?.accept ?? {});
  if (flags.detach) return detachedStart(ctx, dataDir, flags.journey, stopCommand(flags.dataDir));
  const [{ startSandbox }, { LockedError }] = await Promise.all([
    import('../../../sandbox/server.js'),
    import('../../../core/journal/pid-lock.js'),
  ]);
  let sandbox;
  try {
    sandbox = await startSandbox({
      dataDir,
      host: flags.host,
      port,
      speed,
      accept,
      signing: flags.signing,
      journey: flags.journey,
      ...(flags.templates === undefined ? {} : { templates: flags.templates }),
      faults: { rate_limit: rateLimit, latency_ms: latency },
      idempotencyRetentionMs,
      clock: ctx.io.clock,
      onWarning: (message) => output.warn(message),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new SignError(`port ${port} on ${flags.host} is already in use`, {
        hint: 'pass --port 0 to pick a free port, or stop the other process',
      });
    }
    if (error instanceof LockedError)
      throw new SignError(error.message, { hint: 'stop it first, or give this one another --data-dir' });
    throw error;
  }
  for (const notice of sandbox.notices) output.warn(notice);
  if (ctx.env[DETACHED_ENV] === '1') {
    // Started by --detach: the parent prints the summary; this process's output goes to sandbox.log.
    reportReady({
      ready: true,
      pid: process.pid,
      base_url: sandbox.baseUrl,
      api_key: sandbox.apiKey,
      webhook_secret: sandbox.webhookSecret,
      ...(sandbox.webhookPublicKey ? { webhook_public_key: sandbox.webhookPublicKey } : {}),
      ca_file: sandbox.caFile,
      data_dir: dataDir,
      notices: sandbox.notices,
    });
    output.protect(sandbox.apiKey);
    output.protect(sandbox.webhookSecret);
    output.info(
      `${formatInstant(new Date(ctx.io.clock.now()))} sandbox (pid ${process.pid}) listening on ${sandbox.baseUrl}; data dir ${dataDir}`,
    );
  } else if (output.json) {
    // The command's contract (docs/commands/sandbox.md): scripts and tests read the sandbox's own test key
    // from here, whole, even when the environment already holds it (credentials.env sourced before).
    output.credentialsLine(
      {
        base_url: sandbox.baseUrl,
        api_key: sandbox.apiKey,
        webhook_secret: sandbox.webhookSecret,
        ...(sandbox.webhookPublicKey ? { webhook_public_key: sandbox.webhookPublicKey } : {}),
        ca_file: sandbox.caFile,
      },
      [sandbox.apiKey, sandbox.webhookSecret],
    );
    // Any later line (a warning, an error) masks them, as every other line does.
    output.protect(sandbox.apiKey);
    output.protect(sandbox.webhookSecret);
  } else {
    output.protect(sandbox.apiKey);
    output.protect(sandbox.webhookSecret);
    output.line(`sandbox listening on ${output.out.bold(sandbox.baseUrl)}`);
    summary(output, `  API key         `, `${maskKey(sandbox.apiKey)} (environment test, all scopes)`);
    summary(output, `  webhook secret  `, maskKey(sandbox.webhookSecret));
    // A public key: shown whole, it is what receivers verify with.
    if (sandbox.webhookPublicKey)
      summary(output, `  signing         `, `Ed25519 (v1a); public key ${sandbox.webhookPublicKey}`);
    summary(output, `  signed copies   `, `PAdES, by its own CA: ${sandbox.caFile}`);
    summary(output, `  data dir        `, dataDir);
    if (flags.journey === 'manual') summary(output, `  journey         `, MANUAL_LINE);
    for (const [field, values] of Object.entries(accept))
      summary(output, `  also accepts    `, `${field}: ${values.join(', ')}`);
    summary(output, `  use it with     `, `. ${join(dataDir, 'credentials.env')}`, true);
    output.info('Ctrl-C stops it; state is kept for the next start.');
  }
  await ctx.untilInterrupted();
  await sandbox.close();
  if (!output.json)
    output.info(
      ctx.env[DETACHED_ENV] === '1'
        ? `${formatInstant(new Date(ctx.io.clock.now()))} sandbox (pid ${process.pid}) stopped`
        : 'sandbox stopped',
    );
  return ExitCode.ok;
}

/**
 * The command that stops this sandbox: with the --data-dir it was given, as typed (relative to
 * where it was typed), quoted for a POSIX shell when it holds more than plain path characters.
 */
function stopCommand(dataDir: string | undefined): string {
  if (dataDir === undefined) return 'sign-cli sandbox stop';
  const word = /^[\w@%+=:,./-]+$/.test(dataDir) ? dataDir : `'${dataDir.replace(/'/g, `'\\''`)}'`;
  return `sign-cli sandbox stop --data-dir ${word}`;
}

/** A line of the start's summary: its value beside the label, wrapped under it on a narrow terminal. */
function summary(output: Output, label: string, value: string, whole = false): void {
  for (const line of labelled(label, value, output.columns, whole)) output.line(line);
}

/** What the start says of a manual journey: where the people's side is. */
const MANUAL_LINE =
  'manual: envelopes wait for people (`sign-cli envelopes open <id>`, `sign-cli sandbox outbox`)';

/** The same command, minus --detach and --json, in the background; prints what the foreground start prints. */
async function detachedStart(
  ctx: CommandContext,
  dataDir: string,
  journey: Journey,
  stop: string,
): Promise<number> {
  const { output } = ctx;
  const running = runningSandboxPid(dataDir);
  if (running !== undefined) {
    // A block pasted twice (docker start, supabase start): the sandbox asked for is there; say so.
    const credentials = await readCredentials(dataDir);
    if (output.json && credentials)
      output.credentialsLine({ ...credentials, pid: running }, [
        credentials.api_key,
        credentials.webhook_secret,
      ]);
    output.info(
      `a sandbox is already running on ${dataDir} (pid ${running}${credentials ? `, ${credentials.base_url}` : ''}); use it with . ${join(dataDir, 'credentials.env')}, or stop it with \`${stop}\``,
    );
    return ExitCode.ok;
  }
  // The same command line, run in the foreground. --json and --query are this process's: the
  // child's output is a log, which must not hold the key.
  const args: string[] = [];
  for (let i = 0; i < ctx.argv.length; i++) {
    const arg = ctx.argv[i]!;
    if (arg === '--query') i++;
    else if (arg !== '--detach' && arg !== '--json' && !arg.startsWith('--query=')) args.push(arg);
  }
  const ready = await startDetached(ctx.io.relaunch, args, dataDir, ctx.env);
  for (const notice of ready.notices) output.warn(notice);
  if (output.json) {
    output.credentialsLine(
      {
        base_url: ready.base_url,
        api_key: ready.api_key,
        webhook_secret: ready.webhook_secret,
        ...(ready.webhook_public_key ? { webhook_public_key: ready.webhook_public_key } : {}),
        ca_file: ready.ca_file,
        pid: ready.pid,
      },
      [ready.api_key, ready.webhook_secret],
    );
    return ExitCode.ok;
  }
  output.protect(ready.api_key);
  output.protect(ready.webhook_secret);
  output.line(`sandbox listening on ${output.out.bold(ready.base_url)} in the background (pid ${ready.pid})`);
  summary(output, `  API key         `, `${maskKey(ready.api_key)} (environment test, all scopes)`);
  summary(output, `  webhook secret  `, maskKey(ready.webhook_secret));
  summary(output, `  data dir        `, `${dataDir} (log: sandbox.log)`);
  if (journey === 'manual') summary(output, `  journey         `, MANUAL_LINE);
  summary(output, `  use it with     `, `. ${join(dataDir, 'credentials.env')}`, true);
  output.info(`\`${stop}\` stops it; state is kept for the next start.`);
  return ExitCode.ok;
}

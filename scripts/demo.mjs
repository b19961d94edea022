// `npm run demo`: the whole life of an envelope, on this machine, through the
// built CLI exactly as a user would type it: a local sandbox, `sign-cli
// webhooks listen` printing each verified event, the envelope created, its
// signing journey to completion, the signed copy saved, the audit trail verified,
// and the envelopes listed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'sign-cli.js');
const work = mkdtempSync(join(tmpdir(), 'sign-cli-demo-'));
const env = { ...process.env };
for (const name of Object.keys(env)) if (name.startsWith('SIGN_')) delete env[name];

const bold = process.stdout.isTTY && !process.env.NO_COLOR ? (t) => `\x1b[1m${t}\x1b[0m` : (t) => t;
const step = (text) => process.stdout.write(`\n${bold(`# ${text}`)}\n`);

step('Start the local sandbox on a free port');
const sandbox = spawn(
  process.execPath,
  [bin, 'sandbox', '--port', '0', '--json', '--data-dir', join(work, 'sandbox')],
  {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const first = await new Promise((resolve, reject) => {
  createInterface({ input: sandbox.stdout }).once('line', resolve);
  sandbox.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
});
const sandboxFirst = JSON.parse(first);
const { base_url: baseUrl, api_key: apiKey, webhook_secret: secret } = sandboxFirst;
console.log(
  `sandbox at ${baseUrl}; its test key and webhook secret are in ${join(work, 'sandbox', 'credentials.env')}`,
);
const cliEnv = { ...env, SIGN_BASE_URL: baseUrl, SIGN_API_KEY: apiKey, SIGN_STATE_DIR: join(work, 'state') };

let failed = false;
/**
 * Runs the CLI without blocking, so the receiver in this process prints events while it runs. Its
 * stdout and stderr are this process's own, as a user's terminal is: its lines come in the order
 * it writes them (a table on stdout, then its ✓ on stderr). Relaying one of them through a pipe
 * put the ✓ of `audit --verify` in the middle of its table, which arrived later. With `capture`,
 * stdout is read instead (a `--query` whose answer the demo needs) and printed after it ends.
 */
function cli(args, input, { capture = false } = {}) {
  console.log(`$ sign-cli ${args.join(' ')}`);
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: cliEnv,
    stdio: ['pipe', capture ? 'pipe' : 'inherit', 'inherit'],
  });
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
  });
  child.stdin.end(input ?? '');
  return new Promise((resolve) =>
    child.on('close', (code) => {
      if (code !== 0) failed = true;
      process.stdout.write(stdout);
      resolve(stdout);
    }),
  );
}

const example = JSON.parse(readFileSync(join(root, 'examples', 'envelope.json'), 'utf8'));

/** Starts `sign-cli webhooks listen` on the example's port (or any free one) and relays its event lines. */
async function startListener(port) {
  // --events: only the signers' steps and the completion are shown; the other events are verified and answered, and counted.
  const child = spawn(
    process.execPath,
    [bin, 'webhooks', 'listen', '--port', String(port), '--events', 'signer.*,envelope.completed'],
    {
      env: { ...env, SIGN_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const events = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    events.push(line);
    console.log(`  ⇢ ${line}`);
  });
  const errors = createInterface({ input: child.stderr });
  const url = await new Promise((resolve) => {
    errors.on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve(match[1]);
      else if (!/address already in use|already in use/.test(line)) console.log(`  ${line}`);
    });
    child.once('exit', () => resolve(undefined));
  });
  return url ? { child, url, events } : undefined;
}

// SIGN_DEMO_LISTEN_PORT=0: any free port (a test, beside others that listen on the example's).
const examplePort = process.env.SIGN_DEMO_LISTEN_PORT ?? new URL(example.webhook_url).port;
const listener = (await startListener(examplePort)) ?? (await startListener(0));
const webhookUrl = `${listener.url}${new URL(example.webhook_url).pathname}`;

async function waitForEvent(type, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!listener.events.some((line) => line.includes(type)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
}

try {
  step(
    `sign-cli webhooks listen --events 'signer.*,envelope.completed' on ${listener.url}: every delivery's signature is verified; only those types are printed`,
  );

  step('Validate the example envelope (no network)');
  await cli(['envelopes', 'validate', 'examples/envelope.json']);

  step('Create it against the sandbox');
  // The example points its webhooks at 127.0.0.1:4020; if that port was taken the receiver got another one.
  if (webhookUrl === example.webhook_url) await cli(['envelopes', 'create', '-f', 'examples/envelope.json']);
  else await cli(['envelopes', 'create', '-f', '-'], JSON.stringify({ ...example, webhook_url: webhookUrl }));
  // The id of what it created: the newest envelope of this fresh sandbox.
  const id = /^env_\w+$/m.exec(
    await cli(['envelopes', 'list', '--limit', '1', '--query', 'id'], '', { capture: true }),
  )?.[0];

  if (id) {
    step('The same command again: the signers are not asked twice');
    if (webhookUrl === example.webhook_url)
      await cli(['envelopes', 'create', '-f', 'examples/envelope.json']);
    else
      await cli(['envelopes', 'create', '-f', '-'], JSON.stringify({ ...example, webhook_url: webhookUrl }));

    step('Signers are notified, open, verify and sign; events arrive as they happen');
    const pdf = join(work, 'signed.pdf');
    await cli(['envelopes', 'download', id, '--wait', '-o', pdf]);
    await waitForEvent('envelope.completed', 10_000);

    step('The audit trail, hash-chained, verified');
    await cli(['envelopes', 'audit', id, '--verify']);

    step('Every envelope, newest first; --query picks one field (JMESPath), here the state of the newest');
    await cli(['envelopes', 'list']);
    await cli(['envelopes', 'list', '--limit', '1', '--query', 'status']);
  }

  step(
    'Bulk from a spreadsheet: one envelope per row of examples/recipients.csv, filled into examples/template.json',
  );
  await cli([
    'envelopes',
    'create',
    '--csv',
    'examples/recipients.csv',
    '--template',
    'examples/template.json',
  ]);

  if (id) {
    step(
      `The signed copy proves itself: its PAdES signature, the chain to the sandbox's CA (${sandboxFirst.ca_file}), and the audit trail naming its hash`,
    );
    await cli([
      'envelopes',
      'download',
      id,
      '-o',
      join(work, 'verified.pdf'),
      '--verify',
      '--trust',
      sandboxFirst.ca_file,
    ]);
  }
} finally {
  step('Stop the listener (Ctrl-C prints its summary) and the sandbox');
  listener.child.kill('SIGINT');
  await new Promise((resolve) => listener.child.once('exit', resolve));
  sandbox.kill('SIGTERM');
  await new Promise((resolve) => sandbox.once('exit', resolve));
  rmSync(work, { recursive: true, force: true });
  console.log(failed ? 'demo failed' : `done: ${listener.events.length} events shown`);
}
process.exitCode = failed ? 1 : 0;

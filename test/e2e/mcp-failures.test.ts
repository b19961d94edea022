/**
 * Every tool of `sign-cli mcp` failing, each in a way of its own, through the SDK's Client (which
 * lists the tools first, as assistants do) against the built binary and a spawned sandbox: bad
 * arguments, a 404, a refused key (401 expired, 403 without the scope), a 429 from the sandbox's own
 * rate limit, the network down, a file that cannot be written or is not a PDF. Each failure must be a
 * tool result (isError, one message saying what and why), never a protocol error or a dead server:
 * after each one another tool is called on the same session and succeeds, its result allowed by its
 * published schema.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { example } from '../helpers/envelopes.js';
import { mcpSession, oneSignerEnvelope, resultText, type McpSession } from '../helpers/mcp.js';
import { freePort } from '../helpers/ports.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
let receiver: Receiver;
let completed: string;
let waiting: string;
const sessions: McpSession[] = [];

const envelope = (contract: string, email?: string) => oneSignerEnvelope(contract, receiver.url, email);

const cli = async (args: string[]) => {
  const run = await runCli(args, {
    env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey },
    timeoutMs: 60_000,
  });
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim();
};

async function session(
  options: { apiKey?: string; baseUrl?: string; globals?: string[]; root?: string } = {},
): Promise<McpSession> {
  const opened = await mcpSession({
    root: options.root ?? tempDir('sign-cli-mcp-root-'),
    env: {
      SIGN_BASE_URL: options.baseUrl ?? sandbox.baseUrl,
      SIGN_API_KEY: options.apiKey ?? sandbox.apiKey,
      SIGN_WEBHOOK_SECRET: sandbox.webhookSecret,
    },
    globals: options.globals ?? [],
  });
  sessions.push(opened);
  return opened;
}

/** A failure that is a tool result saying `why`, then `next` succeeding on the same session. */
async function failsThenLives(
  on: McpSession,
  failing: [string, Record<string, unknown>],
  why: RegExp,
  next: [string, Record<string, unknown>],
): Promise<Record<string, unknown>> {
  const failed = await on.call(...failing);
  expect(failed.isError, `${failing[0]}: ${JSON.stringify(failed)}`).toBe(true);
  expect(resultText(failed)).toMatch(why);
  // The server's own words, not a stack.
  expect(resultText(failed)).not.toMatch(/\n\s+at /);
  const after = await on.call(...next);
  expect(after.isError, `${next[0]} after ${failing[0]}: ${resultText(after)}`).toBeFalsy();
  expect(after.schemaErrors).toEqual([]);
  return after.structuredContent!;
}

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
  receiver = await startReceiver();
  const dir = tempDir();
  writeFileSync(join(dir, 'a.json'), JSON.stringify(envelope('FAIL-1')));
  writeFileSync(join(dir, 'b.json'), JSON.stringify(envelope('FAIL-2', 'omar+noview@example.com')));
  completed = await cli(['envelopes', 'create', '-f', join(dir, 'a.json'), '--query', 'envelope.id']);
  waiting = await cli(['envelopes', 'create', '-f', join(dir, 'b.json'), '--query', 'envelope.id']);
  // Back once the sandbox's signer has signed (at --speed 40, seconds): its signed copy exists.
  await cli(['envelopes', 'download', completed, '--wait', '-o', join(dir, 'a.pdf')]);
});

afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await receiver?.close();
  await sandbox?.stop();
});

describe('sign-cli mcp: every tool fails as a result, and the server lives on', () => {
  it('bad arguments, a 404, a file that cannot be written or is not a PDF, a receiver that is down', async () => {
    const root = tempDir('sign-cli-mcp-root-');
    const on = await session({ root });
    await failsThenLives(on, ['sample_envelope', { count: 3 }], /Unrecognized key.*count/s, [
      'validate_envelope',
      { envelope: example() },
    ]);
    await failsThenLives(on, ['validate_envelope', { envelope: 'a string' }], /envelope/, ['list_keys', {}]);
    await failsThenLives(on, ['get_envelope', { id: 'env_doesnotexist' }], /404/, [
      'list_envelopes',
      { limit: 1 },
    ]);

    // The download's temporary file cannot be opened (a directory of that name): before the fix, the
    // answer's body was destroyed with nobody listening and the server died ("Not connected" after).
    mkdirSync(join(root, 'x.pdf.part'));
    const got = await failsThenLives(
      on,
      ['download_signed_copy', { id: completed, path: 'x.pdf' }],
      /could not write .*x\.pdf\.part: it is a directory \(EISDIR\)/,
      ['get_envelope', { id: completed }],
    );
    expect(got).toMatchObject({ id: completed, status: 'completed' });
    expect(readdirSync(root)).toEqual(['x.pdf.part']);
    expect(statSync(join(root, 'x.pdf.part')).isDirectory()).toBe(true);

    writeFileSync(join(root, 'notes.pdf'), 'not a PDF at all\n');
    await failsThenLives(on, ['verify_pdf', { path: 'notes.pdf' }], /not a PDF/, [
      'list_deliveries',
      { envelope_id: completed },
    ]);
    await failsThenLives(on, ['list_deliveries', { envelope_id: '--all' }], /an id: a letter or digit/, [
      'sample_envelope',
      {},
    ]);
    await failsThenLives(on, ['resend_delivery', { event_id: 'evt_doesnotexist' }], /404/, [
      'list_deliveries',
      {},
    ]);
    await failsThenLives(
      on,
      ['trigger_webhook', { type: 'signer.signed', to: `http://127.0.0.1:${await freePort()}/hooks` }],
      /could not deliver signer\.signed/,
      ['get_envelope', { id: waiting }],
    );
    expect(existsSync(join(root, 'x.pdf'))).toBe(false);
  });

  it('a key without the scope (403) for void and audit; nothing voided', async () => {
    const readOnly = (
      await sandbox.control<{ key: string }>('/_sandbox/keys', { scopes: ['envelopes:read'] })
    ).key;
    const on = await session({ apiKey: readOnly });
    const after = await failsThenLives(
      on,
      ['void_envelope', { id: waiting, reason: 'sent by mistake' }],
      /HTTP 403 insufficient_scope.*envelopes:write/,
      ['get_envelope', { id: waiting }],
    );
    expect(after.status).not.toBe('voided');
    await failsThenLives(
      on,
      ['audit_envelope', { id: completed }],
      /HTTP 403 insufficient_scope.*audit:read/,
      ['list_envelopes', { limit: 1 }],
    );
  });

  it('an expired key (401), the service unreachable: the local tools still answer', async () => {
    const expired = (await sandbox.control<{ key: string }>('/_sandbox/keys', { expires: '2000-01-01' })).key;
    await failsThenLives(await session({ apiKey: expired }), ['list_keys', {}], /HTTP 401 expired_api_key/, [
      'sample_envelope',
      {},
    ]);
    const offline = await session({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      globals: ['--retries', '0'],
    });
    await failsThenLives(offline, ['list_envelopes', {}], /refused|could not connect|ECONNREFUSED/i, [
      'validate_envelope',
      { envelope: example() },
    ]);
  });

  it("a 429 from the sandbox's rate limit: nothing created; the same envelope after it is created once", async () => {
    const key = (await sandbox.control<{ key: string }>('/_sandbox/keys', { name: 'limited' })).key;
    const on = await session({ apiKey: key, globals: ['--retries', '0'] });
    const body = envelope('FAIL-429');
    const before = await sandbox.envelopeCount();
    await sandbox.control('/_sandbox/faults', { rate_limit: 1 });
    try {
      // The one request this key may send in the minute, then the create over the limit.
      expect((await on.call('list_envelopes', { limit: 1 })).isError).toBeFalsy();
      const refused = await on.call('create_envelope', { envelope: body });
      expect(refused.isError).toBe(true);
      expect(resultText(refused)).toMatch(/HTTP 429/);
    } finally {
      await sandbox.control('/_sandbox/faults', { rate_limit: 600 });
    }
    expect(await sandbox.envelopeCount()).toBe(before);
    const created = await on.call('create_envelope', { envelope: body });
    expect(created.schemaErrors).toEqual([]);
    expect(created.structuredContent).toMatchObject({ result: 'created', environment: 'test' });
    expect(await sandbox.envelopeCount()).toBe(before + 1);
  });
});

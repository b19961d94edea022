/**
 * After creation: `envelopes list`, `watch` and `void`, and `--query`, run as a
 * user would (the built binary) against a real sandbox process.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const example = JSON.parse(readFileSync(join(ROOT, 'examples/envelope.json'), 'utf8')) as Record<string, unknown>;

/** An envelope whose only signer never opens it: it stays `sent` until voided (magic value, sandbox/magic.ts). */
const stuck = (contractId: string) => ({
  ...example,
  contract_id: contractId,
  signers: [{ name: 'Nadia Noview', email: 'nadia+noview@example.com', channel: 'email', order: 1 }],
});

let sandbox: SandboxProcess;
let env: Record<string, string>;
const cli = (args: string[], options: { input?: string; timeoutMs?: number } = {}) => runCli(args, { env, ...options });
const requests = async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;

async function createOne(body: unknown): Promise<string> {
  const result = await cli(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], { input: JSON.stringify(body) });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout.trim();
}

beforeAll(async () => {
  // Speed 2: a two-signer journey completes in about three seconds.
  sandbox = await startSandboxProcess({ args: ['--speed', '2', '--rate-limit', '100000'] });
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, SIGN_STATE_DIR: tempDir() };
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('--query', () => {
  it('prints the id alone, unquoted (like jq -r); --no-raw quotes it', async () => {
    const raw = await cli(['envelopes', 'create', '-f', 'examples/envelope.json', '--json', '--query', 'envelope.id']);
    expect(raw.code).toBe(0);
    expect(raw.stdout).toMatch(/^env_\w+\n$/);
    const quoted = await cli(['envelopes', 'get', raw.stdout.trim(), '--query', 'id', '--no-raw']);
    expect(quoted.code).toBe(0);
    expect(quoted.stdout).toBe(`${JSON.stringify(raw.stdout.trim())}\n`);
  });

  it('applies per line to line-per-object output, and implies --json', async () => {
    const result = await cli(['envelopes', 'create', '--ndjson', '-f', 'examples/envelopes.ndjson', '--query', '[status, envelope.contract_id]']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown);
    const contracts = readFileSync(join(ROOT, 'examples/envelopes.ndjson'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { contract_id: string }).contract_id);
    expect(lines).toEqual(contracts.map((c) => ['created', c]));
  });

  it('a bad expression is exit 2 before anything is sent', async () => {
    const before = await requests();
    const result = await cli(['envelopes', 'create', '-f', 'examples/envelope.json', '--new', '--query', 'envelope.[id']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: --query "envelope\.\[id" is not a valid JMESPath expression: .*\(hint: JMESPath/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    // The control call itself is the only request the sandbox saw meanwhile.
    expect(await requests()).toBe(before + 1);
  });
});

describe('envelopes list', () => {
  /** Envelope id by contract id: bulk output comes in completion order, not input order. */
  let idOf: Map<string, string>;
  beforeAll(async () => {
    // 250 envelopes in one bulk run: three pages of 100.
    const lines = Array.from({ length: 250 }, (_, i) => JSON.stringify({ ...example, contract_id: `LIST-${String(i).padStart(4, '0')}` }));
    const file = join(tempDir(), 'many.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const created = await cli(['envelopes', 'create', '--ndjson', '-f', file, '--new', '--rate', '60000', '--concurrency', '16', '--query', '[envelope.contract_id, envelope.id]'], { timeoutMs: 60_000 });
    expect(created.code).toBe(0);
    idOf = new Map(created.stdout.trim().split('\n').map((line) => JSON.parse(line) as [string, string]));
    expect(new Set(idOf.values()).size).toBe(250);
  }, 90_000);

  it('--all follows the cursor: every envelope once, newest first', async () => {
    const result = await cli(['envelopes', 'list', '--all', '--json']);
    expect(result.code).toBe(0);
    const listed = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; created_at: string });
    const all = (await sandbox.control<{ data: { id: string }[] }>('/_sandbox/envelopes')).data;
    expect(listed).toHaveLength(all.length);
    expect(new Set(listed.map((e) => e.id))).toEqual(new Set(all.map((e) => e.id)));
    for (let i = 1; i < listed.length; i++) expect(listed[i - 1]!.created_at >= listed[i]!.created_at).toBe(true);
    // Newest first: the last envelope of the bulk run is near the top, the first one further down.
    expect(listed.findIndex((e) => e.id === idOf.get('LIST-0249'))).toBeLessThan(listed.findIndex((e) => e.id === idOf.get('LIST-0000')));
  });

  it('shows 20 by default as a table, and says how to see more', async () => {
    const result = await cli(['envelopes', 'list']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+SIGNED\s+CREATED\s+CONTRACT\s+TITLE$/);
    expect(lines).toHaveLength(21);
    expect(lines[1]).toMatch(/^env_\w+\s+(sent|completed)\s+\d\/2\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z\s+\S+\s+Office lease renewal 2027$/);
    expect(result.stderr).toContain('--all shows every one');
  });

  it('--limit crosses pages; --contract-id and --status filter', async () => {
    const limited = await cli(['envelopes', 'list', '--limit', '150', '--json', '--query', 'id']);
    expect(limited.stdout.trim().split('\n')).toHaveLength(150);
    const one = await cli(['envelopes', 'list', '--contract-id', 'LIST-0007', '--json', '--query', 'id']);
    expect(one.stdout).toBe(`${idOf.get('LIST-0007')}\n`);
    // Exactly as many as the limit, and no more: no "there are more".
    const exact = await cli(['envelopes', 'list', '--contract-id', 'LIST-0007', '--limit', '1']);
    expect(exact.stdout.trim().split('\n')).toHaveLength(2);
    expect(exact.stderr).toBe('');
    const sent = await cli(['envelopes', 'list', '--status', 'sent,voided', '--status', 'failed', '--all', '--json', '--query', 'status']);
    expect(sent.code).toBe(0);
    for (const status of sent.stdout.trim().split('\n').filter(Boolean)) expect(['sent', 'voided', 'failed']).toContain(status);
  });

  it('--since takes a duration or a date; a bad one is exit 2 with nothing sent', async () => {
    const recent = await cli(['envelopes', 'list', '--since', '1h', '--limit', '5', '--json', '--query', 'id']);
    expect(recent.stdout.trim().split('\n')).toHaveLength(5);
    const future = await cli(['envelopes', 'list', '--since', '2999-01-01']);
    expect(future.code).toBe(0);
    expect(future.stdout).toBe('');
    expect(future.stderr).toContain('no envelopes match');
    const before = await requests();
    const bad = await cli(['envelopes', 'list', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --since must be a date .* got "yesterday"\n$/);
    const both = await cli(['envelopes', 'list', '--all', '--limit', '5']);
    expect(both.code).toBe(2);
    expect(await requests()).toBe(before + 1);
  });
});

describe('envelopes void', () => {
  it('refuses without --yes where it cannot ask; nothing is sent', async () => {
    const id = await createOne(stuck('VOID-ASK'));
    const before = await requests();
    const result = await cli(['envelopes', 'void', id, '--reason', 'sent by mistake']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pass --yes');
    expect(await requests()).toBe(before + 1);
    const missing = await cli(['envelopes', 'void', id, '--yes']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--reason is required');
  });

  it('voids: state voided, audit entry, envelope.voided delivered; a re-run is answered, not refused', async () => {
    const id = await createOne(stuck('VOID-1'));
    const result = await cli(['envelopes', 'void', id, '--reason', 'sent to the wrong signer', '--yes', '--json']);
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(envelope).toMatchObject({ id, status: 'voided', void_reason: 'sent to the wrong signer' });

    const listed = await cli(['envelopes', 'list', '--status', 'voided', '--all', '--json', '--query', 'id']);
    expect(listed.stdout.trim().split('\n')).toContain(id);

    const again = await cli(['envelopes', 'void', id, '--reason', 'sent to the wrong signer', '--yes']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`voided ${id}`);

    const audit = await cli(['envelopes', 'audit', id, '--verify', '--json']);
    expect(audit.code).toBe(0);
    const trail = JSON.parse(audit.stdout) as { entries: { type: string; detail: string }[]; verification: { valid: boolean } };
    expect(trail.verification.valid).toBe(true);
    expect(trail.entries.filter((e) => e.type === 'envelope.voided')).toHaveLength(1);
    expect(trail.entries.at(-1)!.detail).toContain('sent to the wrong signer');

    // The example's webhook_url has no listener: the attempt is recorded all the same.
    const deadline = Date.now() + 5000;
    let types: string[] = [];
    while (!types.includes('envelope.voided') && Date.now() < deadline) {
      types = (await sandbox.control<{ data: { event_type: string }[] }>(`/_sandbox/deliveries?envelope_id=${id}`)).data.map((d) => d.event_type);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(types).toContain('envelope.voided');
  });

  it('a final envelope gives one clear 409, not retried', async () => {
    const id = await createOne(stuck('VOID-2'));
    expect((await cli(['envelopes', 'void', id, '--reason', 'first', '--yes'])).code).toBe(0);
    const before = await sandbox.control<{ by_status: Record<string, number> }>('/_sandbox/state');
    const result = await cli(['envelopes', 'void', id, '--reason', 'second', '--yes']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: void envelope: HTTP 409 envelope_final: the envelope is already voided; .*\(hint: only an envelope still under way can be voided/);
    expect(result.stderr).not.toContain('attempts');
    const after = await sandbox.control<{ by_status: Record<string, number> }>('/_sandbox/state');
    expect((after.by_status['409'] ?? 0) - (before.by_status['409'] ?? 0)).toBe(1);
  });
});

describe('envelopes watch', () => {
  it('piped: one line per change, exit 0 when completed', async () => {
    const id = await createOne(example);
    const result = await cli(['envelopes', 'watch', id, '--interval', '0.2'], { timeoutMs: 30_000 });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z  ${id}  sent  "Office lease renewal 2027", 2 signer\\(s\\)$`));
    // Each change is reported once, in order: signer 2 signs after signer 1 (sequential), then the envelope.
    // (A first look taken late, on a busy machine, may already find signer 1 signed.)
    const signed1 = lines.findIndex((l) => /signer 1\. Layla Haddad: (\S+ → )?signed$/.test(l));
    const signed2 = lines.findIndex((l) => /signer 2\. Omar Khalil: \S+ → signed$/.test(l));
    expect(signed1).toBeGreaterThan(0);
    expect(signed2).toBeGreaterThan(signed1);
    expect(lines.at(-1)).toMatch(new RegExp(`${id}  sent → completed$`));
    expect(new Set(lines.map((l) => l.slice(22))).size).toBe(lines.length);
    expect(result.stderr).toContain(`${id} is completed`);
  });

  it('--json: one JSON line per change; voided while watched is exit 1 with the reason', async () => {
    const id = await createOne(stuck('WATCH-VOID'));
    const child = spawn(process.execPath, [BIN, 'envelopes', 'watch', id, '--interval', '0.2', '--json'], { cwd: ROOT, env: cleanEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    while (!stdout.includes('\n')) await new Promise((r) => setTimeout(r, 50));
    expect((await cli(['envelopes', 'void', id, '--reason', 'duplicate', '--yes'])).code).toBe(0);
    expect(await exited).toBe(1);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string; signers: { status: string }[] });
    expect(lines[0]).toMatchObject({ id, status: 'sent' });
    expect(lines.at(-1)).toMatchObject({ id, status: 'voided' });
    expect(stderr).toMatch(new RegExp(`^error: ${id} ended voided \\(duplicate\\) \\(hint: .*envelopes audit ${id}`));
  });

  it('Ctrl-C stops watching: exit 130', async () => {
    const id = await createOne(stuck('WATCH-INT'));
    const child = spawn(process.execPath, [BIN, 'envelopes', 'watch', id, '--interval', '0.2'], { cwd: ROOT, env: cleanEnv(env) });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    while (!stdout.includes(id)) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  });
});

describe('sandbox --accept', () => {
  const withVerification = (verification: string) => ({ ...example, signers: [{ ...(example.signers as object[])[0], verification }] });

  it('rejects an unlisted value with a 422 that names --accept; validate only warns', async () => {
    const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `accept-${Date.now()}` },
      body: JSON.stringify(withVerification('national_id')),
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { message: string };
    expect(body.message).toContain('sign-cli sandbox --accept verification=national_id');
    expect(body.message).toContain('sign-cli config set sandbox.accept.verification national_id');
    const validate = await cli(['envelopes', 'validate', '-'], { input: JSON.stringify(withVerification('national_id')) });
    expect(validate.code).toBe(0);
    expect(validate.stderr).toContain('warning:');
  });

  it('widened by --accept, or by the config setting', async () => {
    const flagged = await startSandboxProcess({ args: ['--accept', 'verification=national_id,bank_id', '--accept', 'locale=id'] });
    const configDir = tempDir();
    try {
      const flaggedEnv = { SIGN_BASE_URL: flagged.baseUrl, SIGN_API_KEY: flagged.apiKey };
      const ok = await runCli(['envelopes', 'create', '-f', '-', '--json', '--query', 'status'], { env: flaggedEnv, input: JSON.stringify({ ...withVerification('bank_id'), locale: 'id' }) });
      expect(ok.stderr).not.toContain('error');
      expect(ok.stdout).toBe('created\n');
    } finally {
      await flagged.stop();
    }
    const set = await runCli(['config', 'set', 'sandbox.accept.verification', 'national_id'], { env: { SIGN_CONFIG_DIR: configDir } });
    expect(set.code).toBe(0);
    const badSet = await runCli(['config', 'set', 'sandbox.accept.colour', 'red'], { env: { SIGN_CONFIG_DIR: configDir } });
    expect(badSet.code).toBe(2);
    const configured = await startSandboxProcess({ env: { SIGN_CONFIG_DIR: configDir } });
    try {
      const ok = await runCli(['envelopes', 'create', '-f', '-', '--json', '--query', 'status'], {
        env: { SIGN_BASE_URL: configured.baseUrl, SIGN_API_KEY: configured.apiKey },
        input: JSON.stringify(withVerification('national_id')),
      });
      expect(ok.stdout).toBe('created\n');
    } finally {
      await configured.stop();
    }
    const badFlag = await runCli(['sandbox', '--port', '0', '--accept', 'verification']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('<field>=<value,...>');
  }, 30_000);
});

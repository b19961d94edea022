/**
 * `envelopes create`, in process from src against an in-process sandbox:
 * its flags, what it prints on a terminal and in a pipe, and what it does.
 * (Signals and two processes at once: test/e2e/envelopes.test.ts.)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash, derivedIdempotencyKey } from '../../../../src/core/client/idempotency.js';
import { tempDir } from '../../../helpers/paths.js';
import { EXAMPLE, example, workspace } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
const work = workspace('sign-cli-create-');

beforeAll(async () => {
  sandbox = await startTestSandbox();
  env = sandbox.env;
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes create: flags', () => {
  it('refuses bad values and unknown options (exit 2) before reading any input', async () => {
    for (const args of [
      ['--bogus'],
      ['-f', EXAMPLE, '--rate', 'fast'],
      ['-f', EXAMPLE, '--concurrency', '0'],
      ['-f', EXAMPLE, '--rate', '-5'],
    ]) {
      const result = await runCommand(['envelopes', 'create', ...args], { env });
      expect([args, result.code]).toEqual([args, 2]);
      expect(result.stdout).toBe('');
    }
    const rate = await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--rate', 'fast'], { env });
    expect(rate.stderr).toContain('--rate must be a number greater than 0, got "fast"');
  });

  it('exits 2 with no input and no terminal, naming the flag', async () => {
    const result = await runCommand(['envelopes', 'create'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('-f');
  });

  it('--dry-run validates and sends nothing, without needing a key', async () => {
    const before = await sandbox.envelopeCount();
    const result = await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--dry-run', '--json'], {
      env: { SIGN_BASE_URL: sandbox.baseUrl },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'valid', envelope: example() });
    expect(await sandbox.envelopeCount()).toBe(before);
  });
});

describe('envelopes create: output', () => {
  it('in a pipe: one plain line per envelope on stdout, nothing on stderr', async () => {
    const before = await sandbox.envelopeCount();
    const result = await runCommand(['envelopes', 'create', '-f', work.unique()], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^✓ created env_\w+ in test from .*unique-\d+\.json: "Office lease renewal 2027 #\d+" \(2 signers, status sent\)\n$/,
    );
    expect(await sandbox.envelopeCount()).toBe(before + 1);
  });

  it('an envelope the service replays (created elsewhere) is reported with the state it was created in, said to be that, not as its state now', async () => {
    const file = work.unique();
    const first = await runCommand(['envelopes', 'create', '-f', file, '--query', 'envelope.id'], { env });
    const id = first.stdout.trim();
    expect(id).toMatch(/^env_\w+$/);
    expect((await runCommand(['envelopes', 'watch', id], { env })).code).toBe(0);
    // Another machine (a journal of its own) sends it again: the service replays its first answer.
    const again = await runCommand(['envelopes', 'create', '-f', file], {
      env: { ...env, SIGN_STATE_DIR: tempDir() },
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`already created ${id} in test: "Office lease renewal 2027 #`);
    expect(again.stdout).toContain('(2 signers, status sent when created)');
    expect(again.stdout).not.toMatch(/status sent\)/);
  });

  it('on a terminal: the same line, and a multi-envelope run ends with a summary on stderr', async () => {
    const result = await runCommand(['envelopes', 'create', '-f', work.unique(), '-f', work.unique()], {
      env,
      tty: true,
      columns: 100,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.match(/✓ created env_\w+ in test/g)).toHaveLength(2);
    expect(result.stderr).toContain('created 2 in test, already created 0, failed 0');
  });

  it('--json: one line per envelope, the Idempotency-Key derived from the body', async () => {
    const input = readFileSync(work.unique(), 'utf8');
    const result = await runCommand(['envelopes', 'create', '-f', '-', '--json'], { env, input });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!);
    expect(report).toMatchObject({
      input: '-',
      status: 'created',
      http_status: 201,
      error: null,
      environment: 'test',
    });
    expect(report.idempotency_key).toMatch(/^sc1-[0-9a-f]{48}$/);
    expect(report.idempotency_key).toBe(derivedIdempotencyKey(contentHash(JSON.parse(input))));
    expect(report.envelope.signers).toHaveLength(2);
  });

  it('--query picks a field of each line', async () => {
    const result = await runCommand(['envelopes', 'create', '-f', work.unique(), '--query', 'envelope.id'], {
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^env_\w+\n$/);
  });

  it('never prints the API key in full, even with --verbose', async () => {
    const result = await runCommand(['envelopes', 'create', '-f', work.unique(), '--verbose', '--json'], {
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('authorization: Bearer sk_test_****');
    expect(result.stdout + result.stderr).not.toContain(sandbox.apiKey);
    expect(result.stdout + result.stderr).not.toContain(sandbox.apiKey.slice(8, -4));
  });
});

describe('envelopes create: invalid input sends nothing', () => {
  it('exits 2 on an invalid envelope, lists every error with its path', async () => {
    const bad = example();
    (bad.signers as Record<string, unknown>[])[1]!.phone = '0501234567';
    (bad.document as Record<string, unknown>).version = 0;
    delete bad.title;
    const path = work.write('invalid.json', bad);
    const before = await sandbox.envelopeCount();
    const result = await runCommand(['envelopes', 'create', '-f', path], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('signers[1].phone');
    expect(result.stderr).toContain('document.version');
    expect(result.stderr).toContain('title: is required');
    expect(result.stderr).toContain('nothing was sent');
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('shows hostile input escaped, refuses duplicate keys and deep nesting (one line each)', async () => {
    const before = await sandbox.envelopeCount();
    const escape = work.write('esc.json', '{"title":\u001b]0;PWNED\u0007 }');
    const duplicate = work.write('dup.json', '{\n  "title": 5,\n  "title": "Lease"\n}');
    const deep = work.write('deep.json', `{"title":${'['.repeat(100_000)}`);
    const deepUnknown = work.write(
      'deep-unknown.json',
      JSON.stringify(example()).replace(/}$/, `,"extra":${'['.repeat(5000)}${']'.repeat(5000)}}`),
    );
    for (const [file, expected] of [
      [escape, /esc\.json.*invalid JSON at line 1, column 10: unexpected token '\\u001b'$/m],
      [
        duplicate,
        /dup\.json.*invalid JSON at line 3, column 3: duplicate key "title" \(first at line 2, column 3\)/,
      ],
      [deep, /deep\.json.*invalid JSON at line 1, column 73: nested deeper than 64 levels/],
      [deepUnknown, /deep-unknown\.json.*invalid JSON .*nested deeper than 64 levels/],
    ] as const) {
      const result = await runCommand(['envelopes', 'create', '-f', file], { env });
      expect([file, result.code]).toEqual([file, 2]);
      expect(result.stderr).toMatch(expected);
      expect(result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(result.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    }
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('names line and column of malformed JSON', async () => {
    const path = work.write('broken.json', '{\n  "title": "x",\n  "signers": [\n}\n');
    const result = await runCommand(['envelopes', 'create', '-f', path], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken\.json: invalid JSON at line 4, column 1/);
  });

  it('validates every input before sending any: one bad file in a directory stops all', async () => {
    const dir = join(work.dir, 'batch');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.json'), JSON.stringify(example()));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...example(), expires_in_days: -1 }));
    const before = await sandbox.envelopeCount();
    const result = await runCommand(['envelopes', 'create', '-f', dir], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('b.json: expires_in_days');
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('exits 2 when there is no envelope at all', async () => {
    const blank = work.write('blank.ndjson', '\n\n');
    expect((await runCommand(['envelopes', 'create', '--ndjson', '-f', blank], { env })).code).toBe(2);
  });
});

describe('envelopes create: keys and faults', () => {
  it('exits 3 without an API key, with a wrong one, without the scope, or expired', async () => {
    const missing = await runCommand(['envelopes', 'create', '-f', EXAMPLE], {
      env: { SIGN_BASE_URL: sandbox.baseUrl },
    });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no API key/);
    const wrongKey = 'sk_test_ThisKeyDoesNotExist0000000000';
    const wrong = await runCommand(['envelopes', 'create', '-f', EXAMPLE], {
      env: { ...env, SIGN_API_KEY: wrongKey },
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('HTTP 401');
    expect(wrong.stderr).not.toContain(wrongKey);
    const reader = await sandbox.mintKey({ name: 'reader', scopes: ['envelopes:read'] });
    const forbidden = await runCommand(['envelopes', 'create', '-f', EXAMPLE], {
      env: { ...env, SIGN_API_KEY: reader },
    });
    expect(forbidden.code).toBe(3);
    expect(forbidden.stderr).toContain('HTTP 403');
    expect(forbidden.stderr).toContain('envelopes:write');
    const expired = await sandbox.mintKey({ name: 'old', expires: '2020-01-31' });
    const old = await runCommand(['envelopes', 'create', '-f', EXAMPLE], {
      env: { ...env, SIGN_API_KEY: expired },
    });
    expect(old.code).toBe(3);
    expect(old.stderr).toContain('expired_api_key');
  });

  it('retries a create whose answer was lost after commit, with the same key: exactly one envelope', async () => {
    await sandbox.control('/_sandbox/faults', { drop_after_commit: 1 });
    const before = await sandbox.envelopeCount();
    const result = await runCommand(['envelopes', 'create', '-f', work.unique(), '--verbose'], { env });
    expect(result.code).toBe(0);
    expect(await sandbox.envelopeCount()).toBe(before + 1);
    const keys = [...result.stderr.matchAll(/> idempotency-key: (\S+)/g)].map((m) => m[1]);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(result.stderr).toContain('replayed by the service');
    expect(result.stdout).toMatch(/after 2 attempts, its answer replayed/);
  });

  it('retries through injected 503s and still creates exactly one', async () => {
    await sandbox.control('/_sandbox/faults', { fail_before_commit: 2, fail_status: 503 });
    const before = await sandbox.envelopeCount();
    const result = await runCommand(['envelopes', 'create', '-f', work.unique(), '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status).toBe('created');
    expect(await sandbox.envelopeCount()).toBe(before + 1);
  });

  it('the same --idempotency-key again creates nothing new; with another body it fails (exit 1, not retried)', async () => {
    const before = await sandbox.envelopeCount();
    const key = `rerun-${Date.now()}`;
    const args = ['envelopes', 'create', '-f', work.unique(), '--idempotency-key', key, '--json'];
    const first = JSON.parse((await runCommand(args, { env })).stdout);
    const second = JSON.parse((await runCommand(args, { env })).stdout);
    expect(second.envelope.id).toBe(first.envelope.id);
    expect(await sandbox.envelopeCount()).toBe(before + 1);
    const other = work.write('other.json', { ...example(), title: 'Another title' });
    const result = await runCommand(
      ['envelopes', 'create', '-f', other, '--idempotency-key', key, '--json', '--verbose'],
      { env },
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'failed',
      http_status: 422,
      idempotency_key: key,
    });
    expect(result.stderr).toContain('idempotency_key_reused');
    expect(result.stderr.match(/> POST /g)).toHaveLength(1);
  });

  it('points out a base URL ending in /api under --verbose', async () => {
    const result = await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--verbose'], {
      env: { ...env, SIGN_BASE_URL: `${sandbox.baseUrl}/api` },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/api/api/v1/envelopes');
    expect(result.stderr).toMatch(/ends in \/api/);
  });
});

describe('envelopes create: the field or flag meant', () => {
  const requests = async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;
  const misspelt = async () => {
    const { webhook_url: url, ...rest } = example();
    return JSON.stringify({ ...rest, webhookUrl: url, contract_id: `UNKNOWN-${Date.now()}` });
  };

  it('an NDJSON file given without --ndjson suggests --ndjson', async () => {
    const file = join(tempDir(), 'batch.ndjson');
    const line = JSON.stringify(JSON.parse(readFileSync(EXAMPLE, 'utf8')));
    writeFileSync(file, `${line}\n${line}\n`);
    const result = await runCommand(['envelopes', 'create', '-f', file, '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /invalid JSON at line 2, column 1: .*; this looks like NDJSON \(one envelope per line\): add --ndjson/,
    );
    expect(result.stderr).not.toMatch(/position \d+/);
  });
  it('webhookUrl: exit 2 naming webhook_url and --allow-unknown-fields; nothing sent', async () => {
    const before = await requests();
    const result = await runCommand(['envelopes', 'create', '-f', '-'], { env, input: await misspelt() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '-: webhookUrl: is not a field of an envelope; did you mean webhook_url? (the fields are in docs/service.md; --allow-unknown-fields sends it as is)',
    );
    expect(result.stdout).toBe('');
    const validate = await runCommand(['envelopes', 'validate', '-'], { input: await misspelt() });
    expect(validate.code).toBe(2);
    // Only the look at the state itself: the command sent nothing.
    expect(await requests()).toBe(before + 1);
  });
  it('with --allow-unknown-fields (or the setting) it is sent, with a warning', async () => {
    const flag = await runCommand(['envelopes', 'create', '-f', '-', '--allow-unknown-fields', '--json'], {
      env,
      input: await misspelt(),
    });
    expect(flag.code).toBe(0);
    expect(flag.stderr).toMatch(
      /warning: -: webhookUrl: is not a field of an envelope; did you mean webhook_url\?; sent as is/,
    );
    expect(JSON.parse(flag.stdout)).toMatchObject({ status: 'created' });
    const configDir = tempDir();
    await runCommand(['config', 'set', 'allow_unknown_fields', 'true'], {
      env: { SIGN_CONFIG_DIR: configDir },
    });
    const setting = await runCommand(['envelopes', 'create', '-f', '-'], {
      env: { ...env, SIGN_CONFIG_DIR: configDir },
      input: await misspelt(),
    });
    expect(setting.code).toBe(0);
    expect(
      (
        await runCommand(['config', 'set', 'allow_unknown_fields', 'maybe'], {
          env: { SIGN_CONFIG_DIR: configDir },
        })
      ).code,
    ).toBe(2);
  });
});

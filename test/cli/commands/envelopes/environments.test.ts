/**
 * Test and live kept apart, as a user moving from a test key to a live key
 * sees it (in process, against an in-process sandbox): what a run created counts again only for the
 * same service, account and environment; the environment is named in every
 * create line and summary; one envelope for a person is one envelope; runs
 * that overlap report one creation between them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

let sandbox: TestSandbox;
let sample: Record<string, unknown>;
const mint = (body: Record<string, unknown>) =>
  sandbox.control<{ key: string }>('/_sandbox/keys', body).then((k) => k.key);
const state = () => sandbox.control<{ requests: number }>('/_sandbox/state');
const envelopesOf = async (contractId: string) =>
  (
    await sandbox.control<{ data: { id: string; contract_id: string; realm: string }[] }>(
      '/_sandbox/envelopes',
    )
  ).data.filter((e) => e.contract_id === contractId);

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 50 });
  sample = JSON.parse((await runCommand(['envelopes', 'sample'])).stdout) as Record<string, unknown>;
});
afterAll(async () => {
  await sandbox?.stop();
});

function file(contractId: string, changes: Record<string, unknown> = {}): string {
  const path = join(tempDir(), `${contractId}.json`);
  writeFileSync(path, JSON.stringify({ ...sample, contract_id: contractId, ...changes }));
  return path;
}

describe('exactly once per account and environment', () => {
  it('test, then live: one new envelope each, each line and summary naming its environment', async () => {
    const path = file('ENV-TEST-LIVE');
    const stateDir = tempDir();
    const asTest = await runCommand(['envelopes', 'create', '-f', path, '--json'], {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, SIGN_STATE_DIR: stateDir },
    });
    expect(asTest.code).toBe(0);
    expect(JSON.parse(asTest.stdout)).toMatchObject({
      status: 'created',
      already_created: false,
      environment: 'test',
    });
    const live = await mint({ environment: 'live' });
    const asLive = await runCommand(['envelopes', 'create', '-f', path], {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: live, SIGN_STATE_DIR: stateDir },
    });
    expect(asLive.code).toBe(0);
    expect(asLive.stdout).toMatch(/^✓ created env_\w+ in live from /m);
    expect(asLive.stdout).not.toContain('already created');
    const made = await envelopesOf('ENV-TEST-LIVE');
    expect(made.map((e) => e.realm).sort()).toEqual(['acct_sandbox/live', 'acct_sandbox/test']);
    // Each again: already created, in its own environment, nothing sent.
    const againLive = await runCommand(['envelopes', 'create', '-f', path, '--json'], {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: live, SIGN_STATE_DIR: stateDir },
    });
    expect(JSON.parse(againLive.stdout)).toMatchObject({
      already_created: true,
      skipped: true,
      environment: 'live',
    });
    expect(await envelopesOf('ENV-TEST-LIVE')).toHaveLength(2);
  });

  it('an invalid key after a run gets the service\'s answer (exit 3), never a journal\'s "already created"', async () => {
    const path = file('ENV-INVALID');
    const stateDir = tempDir();
    expect(
      (
        await runCommand(['envelopes', 'create', '-f', path], {
          env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, SIGN_STATE_DIR: stateDir },
        })
      ).code,
    ).toBe(0);
    const invalid = await runCommand(['envelopes', 'create', '-f', path], {
      env: {
        SIGN_BASE_URL: sandbox.baseUrl,
        SIGN_API_KEY: 'sk_test_RevokedOrNeverIssued000',
        SIGN_STATE_DIR: stateDir,
      },
    });
    expect(invalid.code).toBe(3);
    expect(invalid.stdout).not.toContain('already created');
    expect(invalid.stderr).toContain('HTTP 401 invalid_api_key');
  });

  it('a rotated key of the same account and environment creates nothing: one read to confirm, then none', async () => {
    const paths = [file('ENV-ROT-1'), file('ENV-ROT-2'), file('ENV-ROT-3')];
    const stateDir = tempDir();
    const args = ['envelopes', 'create', ...paths.flatMap((p) => ['-f', p])];
    expect(
      (
        await runCommand(args, {
          env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, SIGN_STATE_DIR: stateDir },
        })
      ).code,
    ).toBe(0);
    const rotated = await mint({ environment: 'test', name: 'rotated' });
    const before = (await state()).requests;
    const again = await runCommand(args, {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: rotated, SIGN_STATE_DIR: stateDir },
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('created 0 in test, already created 3, failed 0; nothing was sent');
    // One GET (the confirmation) and the look at the state.
    expect((await state()).requests).toBe(before + 2);
    const third = await runCommand(args, {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: rotated, SIGN_STATE_DIR: stateDir },
    });
    expect(third.code).toBe(0);
    expect((await state()).requests).toBe(before + 3);
    for (const contract of ['ENV-ROT-1', 'ENV-ROT-2', 'ENV-ROT-3'])
      expect(await envelopesOf(contract)).toHaveLength(1);
  });

  it("another account's key in the same environment creates its own", async () => {
    const path = file('ENV-ACCOUNTS');
    const stateDir = tempDir();
    await runCommand(['envelopes', 'create', '-f', path], {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, SIGN_STATE_DIR: stateDir },
    });
    const second = await mint({ environment: 'test', account: 'acct_second' });
    const result = await runCommand(['envelopes', 'create', '-f', path], {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: second, SIGN_STATE_DIR: stateDir },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✓ created env_\w+ in test from /m);
    expect((await envelopesOf('ENV-ACCOUNTS')).map((e) => e.realm).sort()).toEqual([
      'acct_sandbox/test',
      'acct_second/test',
    ]);
  });
});

describe('one envelope for a person is one envelope on the wire', () => {
  it('NFD for NFC, spaces around, an e-mail domain in capitals: the service recognises the same envelope', async () => {
    const env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
    const nfc = file('ENV-NFC', {
      signers: [{ name: 'Amāl Ḥaddād', email: 'Amal@example.com', channel: 'email', order: 1 }],
    });
    const nfd = file('ENV-NFC', {
      title: ` ${String(sample.title)}  `,
      signers: [
        { name: ' Amāl Ḥaddād'.normalize('NFD'), email: 'Amal@EXAMPLE.com ', channel: 'email', order: 1 },
      ],
    });
    expect(
      (await runCommand(['envelopes', 'create', '-f', nfc], { env: { ...env, SIGN_STATE_DIR: tempDir() } }))
        .code,
    ).toBe(0);
    const dry = await runCommand(['envelopes', 'create', '-f', nfd, '--dry-run', '--json'], { env });
    // --dry-run shows the body as it will be sent.
    expect(JSON.parse(dry.stdout).envelope.signers[0]).toEqual({
      name: 'Amāl Ḥaddād',
      email: 'Amal@example.com',
      channel: 'email',
      order: 1,
    });
    const second = await runCommand(['envelopes', 'create', '-f', nfd, '--json'], {
      env: { ...env, SIGN_STATE_DIR: tempDir() },
    });
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'created', already_created: true });
    expect(await envelopesOf('ENV-NFC')).toHaveLength(1);
  });
});

describe('runs that overlap', () => {
  it('two commands sharing an envelope, at once: one reports it created, the other already created', async () => {
    const dir = tempDir();
    const path = join(dir, 'shared.json');
    writeFileSync(path, JSON.stringify({ ...sample, contract_id: 'ENV-OVERLAP' }));
    const env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
    // The service takes its time: the second request arrives while the first is in flight (409, then a replay).
    await sandbox.control('/_sandbox/faults', { latency_ms: 1500 });
    try {
      const [byFile, byDir] = await Promise.all([
        runCommand(['envelopes', 'create', '-f', path, '--json'], {
          env: { ...env, SIGN_STATE_DIR: tempDir() },
        }),
        new Promise((r) => setTimeout(r, 300)).then(() =>
          runCommand(['envelopes', 'create', '-f', dir, '--json'], {
            env: { ...env, SIGN_STATE_DIR: tempDir() },
          }),
        ),
      ]);
      expect([byFile.code, byDir.code]).toEqual([0, 0]);
      const lines = [JSON.parse(byFile.stdout), JSON.parse(byDir.stdout)] as {
        already_created: boolean;
        envelope: { id: string };
      }[];
      expect(lines.map((l) => l.already_created).sort()).toEqual([false, true]);
      expect(lines[0]!.envelope.id).toBe(lines[1]!.envelope.id);
      const human = await runCommand(['envelopes', 'create', '-f', dir], {
        env: { ...env, SIGN_STATE_DIR: tempDir() },
      });
      expect(human.stdout).toMatch(/already created env_\w+ in test/);
      expect(human.stderr).toContain('created 0 in test, already created 1');
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
    expect(await envelopesOf('ENV-OVERLAP')).toHaveLength(1);
  });
});

describe('the environment, always visible', () => {
  it('doctor names it', async () => {
    const live = await mint({ environment: 'live' });
    const doctor = await runCommand(['doctor'], {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: live },
    });
    expect(doctor.stdout).toMatch(/^✓ api key\s+sk_live_\*{4}\w{4} from SIGN_API_KEY, environment live$/m);
  });
});

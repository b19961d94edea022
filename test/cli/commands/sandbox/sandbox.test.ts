/**
 * `sandbox` in the foreground, in process: the --json line, what a person
 * sees (keys masked), credentials.env and the modes of what it writes, bad
 * flags, a taken port. (--detach starts a process of its own:
 * test/e2e/sandbox.test.ts.)
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { example } from '../../../helpers/envelopes.js';
import { runCommand, startCommand, startTestSandbox } from '../../../helpers/in-process.js';

describe('sandbox', () => {
  it('--json: the first line has base_url, api_key and webhook_secret; it serves until Ctrl-C (exit 0)', async () => {
    const dataDir = tempDir('sign-cli-sandbox-');
    const run = startCommand(['sandbox', '--port', '0', '--json', '--data-dir', dataDir, '--speed', '20']);
    try {
      await run.waitFor('\n');
      const first = JSON.parse(run.io.stdout.text.split('\n')[0]!) as {
        base_url: string;
        api_key: string;
        webhook_secret: string;
      };
      expect(first.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(first.api_key).toMatch(/^sk_test_\w{32}$/);
      expect(first.webhook_secret).toMatch(/^whsec_/);
      const created = await runCommand(['envelopes', 'create', '-f', '-', '--query', 'envelope.id'], {
        env: { SIGN_BASE_URL: first.base_url, SIGN_API_KEY: first.api_key },
        input: JSON.stringify(example()),
      });
      expect(created.stdout).toMatch(/^env_\w+\n$/);
      const credentials = readFileSync(join(dataDir, 'credentials.env'), 'utf8');
      expect(credentials).toContain(`SIGN_BASE_URL='${first.base_url}'`);
      expect(credentials).toContain(`SIGN_API_KEY='${first.api_key}'`);
      expect(statSync(join(dataDir, 'credentials.env')).mode & 0o777).toBe(0o600);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    } finally {
      run.interrupt();
    }
    expect((await run.done).code).toBe(0);
  });

  it('on a terminal: the URL and masked credentials, never the key in full; its state is there at the next start', async () => {
    const dataDir = tempDir('sign-cli-sandbox-');
    const run = startCommand(
      ['sandbox', '--port', '0', '--data-dir', dataDir, '--accept', 'verification=national_id'],
      { tty: true, columns: 100 },
    );
    await run.waitFor('use it with');
    run.interrupt();
    const result = await run.done;
    expect(result.code).toBe(0);
    const key = /SIGN_API_KEY='([^']+)'/.exec(readFileSync(join(dataDir, 'credentials.env'), 'utf8'))![1]!;
    expect(result.stdout).toMatch(/^sandbox listening on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(result.stdout).toContain(
      `API key         sk_test_****${key.slice(-4)} (environment test, all scopes)`,
    );
    expect(result.stdout).toContain('also accepts    verification: national_id');
    expect(result.stdout + result.stderr).not.toContain(key);
    expect(result.stderr).toContain('sandbox stopped');
    // The same data dir again: the same key.
    const again = startCommand(['sandbox', '--port', '0', '--json', '--data-dir', dataDir]);
    await again.waitFor('\n');
    expect(JSON.parse(again.io.stdout.text.split('\n')[0]!).api_key).toBe(key);
    again.interrupt();
    expect((await again.done).code).toBe(0);
  });

  it('--json with the credentials already in the environment (credentials.env sourced): the line still holds them whole', async () => {
    const dataDir = tempDir('sign-cli-sandbox-');
    const first = startCommand(['sandbox', '--port', '0', '--json', '--data-dir', dataDir]);
    await first.waitFor('\n');
    first.interrupt();
    expect((await first.done).code).toBe(0);
    const credentials = readFileSync(join(dataDir, 'credentials.env'), 'utf8');
    const key = /SIGN_API_KEY='([^']+)'/.exec(credentials)![1]!;
    const secret = /SIGN_WEBHOOK_SECRET='([^']+)'/.exec(credentials)![1]!;
    // Another secret the run knows, which this line must still mask (a JMESPath literal puts it there).
    const other = 'whsec_c29tZSBvdGhlciByZWNlaXZlcidzIHNlY3JldA==';
    const again = startCommand(
      [
        'sandbox',
        '--port',
        '0',
        '--json',
        '--data-dir',
        dataDir,
        '--query',
        `[api_key, webhook_secret, '${other}']`,
      ],
      { env: { SIGN_API_KEY: key, SIGN_WEBHOOK_SECRET: `${secret},${other}` } },
    );
    try {
      await again.waitFor('\n');
      const [shownKey, shownSecret, shownOther] = JSON.parse(
        again.io.stdout.text.split('\n')[0]!,
      ) as string[];
      expect(shownKey).toBe(key);
      expect(shownSecret).toBe(secret);
      expect(shownOther).not.toContain(other.slice(6, -4));
      const created = await runCommand(['envelopes', 'create', '-f', '-', '--query', 'envelope.id'], {
        env: {
          SIGN_BASE_URL: /SIGN_BASE_URL='([^']+)'/.exec(
            readFileSync(join(dataDir, 'credentials.env'), 'utf8'),
          )![1]!,
          SIGN_API_KEY: shownKey,
        },
        input: JSON.stringify(example()),
      });
      expect(created.stdout).toMatch(/^env_\w+\n$/);
    } finally {
      again.interrupt();
    }
    const result = await again.done;
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain(key);
  });

  it('--journey manual: said at start, and the envelopes it creates wait for people', async () => {
    const dataDir = tempDir('sign-cli-sandbox-');
    const run = startCommand(['sandbox', '--port', '0', '--data-dir', dataDir, '--journey', 'manual'], {
      tty: true,
      columns: 100,
    });
    try {
      await run.waitFor('use it with');
      // Wrapped under its label at 100 columns.
      expect(run.io.stdout.text).toContain(
        'journey         manual: envelopes wait for people (`sign-cli envelopes open <id>`, `sign-cli\n                  sandbox outbox`)',
      );
      const credentials = readFileSync(join(dataDir, 'credentials.env'), 'utf8');
      const env = {
        SIGN_BASE_URL: /SIGN_BASE_URL='([^']+)'/.exec(credentials)![1]!,
        SIGN_API_KEY: /SIGN_API_KEY='([^']+)'/.exec(credentials)![1]!,
      };
      const id = (
        await runCommand(['envelopes', 'create', '-f', '-', '--query', 'envelope.id'], {
          env,
          input: JSON.stringify(example()),
        })
      ).stdout.trim();
      const opened = await runCommand(['envelopes', 'open', id, '--signer', '1', '--json'], { env });
      expect(JSON.parse(opened.stdout)).toMatchObject({ envelope_id: id, signer: { order: 1 } });
      const links = await fetch(`${env.SIGN_BASE_URL}/_sandbox/envelopes/${id}/links`, {
        headers: { authorization: `Bearer ${env.SIGN_API_KEY}` },
      });
      expect(((await links.json()) as { journey: string }).journey).toBe('manual');
    } finally {
      run.interrupt();
    }
    expect((await run.done).code).toBe(0);
  });

  it('refuses bad flags (exit 2) and says when the port is taken (exit 1)', async () => {
    for (const args of [
      ['--port', 'x'],
      ['--speed', '0'],
      ['--accept', 'verification'],
      ['--accept', 'colour=red'],
      ['--signing', 'rsa'],
      ['--journey', 'robots'],
    ]) {
      const result = await runCommand(['sandbox', '--data-dir', tempDir('sign-cli-sandbox-'), ...args]);
      expect([args, result.code]).toEqual([args, 2]);
    }
    const other = await startTestSandbox();
    try {
      const port = new URL(other.baseUrl).port;
      const taken = await runCommand(['sandbox', '--port', port, '--data-dir', tempDir('sign-cli-sandbox-')]);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await other.stop();
    }
  });
});

describe('sandbox --accept', () => {
  const withVerification = (verification: string) => ({
    ...example(),
    signers: [{ ...(example().signers as object[])[0], verification }],
  });

  /** `sign-cli sandbox --port 0 --json …` in process; stops it after `use`. */
  async function withSandbox(
    args: string[],
    env: Record<string, string>,
    use: (service: { SIGN_BASE_URL: string; SIGN_API_KEY: string }) => Promise<void>,
  ): Promise<void> {
    const run = startCommand(
      ['sandbox', '--port', '0', '--json', '--data-dir', tempDir('sign-cli-sandbox-'), ...args],
      { env },
    );
    try {
      await run.waitFor('\n');
      const first = JSON.parse(run.io.stdout.text.split('\n')[0]!) as { base_url: string; api_key: string };
      await use({ SIGN_BASE_URL: first.base_url, SIGN_API_KEY: first.api_key });
    } finally {
      run.interrupt();
      expect((await run.done).code).toBe(0);
    }
  }

  it('rejects an unlisted value with a 422 that names --accept; validate only warns', async () => {
    await withSandbox([], {}, async (service) => {
      const response = await fetch(`${service.SIGN_BASE_URL}/api/v1/envelopes`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${service.SIGN_API_KEY}`,
          'content-type': 'application/json',
          'idempotency-key': `accept-${Date.now()}`,
        },
        body: JSON.stringify(withVerification('national_id')),
      });
      expect(response.status).toBe(422);
      const body = (await response.json()) as { message: string };
      expect(body.message).toContain('sign-cli sandbox --accept verification=national_id');
      expect(body.message).toContain('sign-cli config set sandbox.accept.verification national_id');
    });
    const validate = await runCommand(['envelopes', 'validate', '-'], {
      input: JSON.stringify(withVerification('national_id')),
    });
    expect(validate.code).toBe(0);
    expect(validate.stderr).toContain('warning:');
  });

  it('widened by --accept, or by the config setting', async () => {
    const create = (service: Record<string, string>, body: unknown) =>
      runCommand(['envelopes', 'create', '-f', '-', '--json', '--query', 'status'], {
        env: service,
        input: JSON.stringify(body),
      });
    await withSandbox(
      ['--accept', 'verification=national_id,bank_id', '--accept', 'locale=id'],
      {},
      async (service) => {
        const ok = await create(service, { ...withVerification('bank_id'), locale: 'id' });
        expect(ok.stderr).not.toContain('error');
        expect(ok.stdout).toBe('created\n');
      },
    );
    const configDir = tempDir('sign-cli-config-');
    expect(
      (
        await runCommand(['config', 'set', 'sandbox.accept.verification', 'national_id'], {
          env: { SIGN_CONFIG_DIR: configDir },
        })
      ).code,
    ).toBe(0);
    expect(
      (
        await runCommand(['config', 'set', 'sandbox.accept.colour', 'red'], {
          env: { SIGN_CONFIG_DIR: configDir },
        })
      ).code,
    ).toBe(2);
    await withSandbox([], { SIGN_CONFIG_DIR: configDir }, async (service) => {
      expect((await create(service, withVerification('national_id'))).stdout).toBe('created\n');
    });
    const badFlag = await runCommand(['sandbox', '--port', '0', '--accept', 'verification']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('<field>=<value,...>');
  });
});

describe('sandbox --idempotency-retention', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a create re-sent within it is replayed; after it the same key makes a new envelope', async () => {
    const run = startCommand([
      'sandbox',
      '--port',
      '0',
      '--json',
      '--data-dir',
      tempDir('sign-cli-sandbox-'),
      '--idempotency-retention',
      '2s',
    ]);
    try {
      await run.waitFor('\n');
      const first = JSON.parse(run.io.stdout.text.split('\n')[0]!) as { base_url: string; api_key: string };
      const create = async () => {
        const response = await fetch(`${first.base_url}/api/v1/envelopes`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${first.api_key}`,
            'content-type': 'application/json',
            'idempotency-key': 'retention-flag',
          },
          body: JSON.stringify(example()),
        });
        return {
          status: response.status,
          replayed: response.headers.get('idempotent-replayed') === 'true',
          id: ((await response.json()) as { id: string }).id,
        };
      };
      // Only Date is faked: the sandbox measures retention with the real clock it was given (the system's).
      const start = Date.now();
      vi.useFakeTimers({ toFake: ['Date'], now: start });
      const created = await create();
      expect([created.status, created.replayed]).toEqual([201, false]);
      vi.setSystemTime(start + 1500);
      const replay = await create();
      expect([replay.status, replay.id, replay.replayed]).toEqual([201, created.id, true]);
      vi.setSystemTime(start + 2500);
      const anew = await create();
      expect([anew.status, anew.replayed]).toEqual([201, false]);
      expect(anew.id).not.toBe(created.id);
    } finally {
      vi.useRealTimers();
      run.interrupt();
    }
    expect((await run.done).code).toBe(0);
  });

  it('refuses a value that is not a duration greater than 0 (exit 2), in one line with an example', async () => {
    for (const value of ['soon', '24', '0s', '-5m', '']) {
      const result = await runCommand([
        'sandbox',
        '--data-dir',
        tempDir('sign-cli-sandbox-'),
        '--idempotency-retention',
        value,
      ]);
      expect([value, result.code]).toEqual([value, 2]);
      expect(result.stderr).toContain(
        `--idempotency-retention must be a duration greater than 0 such as 90s, 10m, 24h or 7d, got ${JSON.stringify(value)}`,
      );
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

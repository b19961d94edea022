/** `keys check`, in process against an in-process sandbox: one line per problem, exit 1 for CI. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { withConfig, isoDay } from '../../../helpers/profiles.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('keys check', () => {
  it('exits 0 when all is well and 1 with one line per problem', async () => {
    const { env } = withConfig();
    await runCommand(
      ['keys', 'add', 'fine', '--stdin', '--offline', '--expires', isoDay(200), '--scope', 'envelopes:write'],
      { env, input: 'sk_test_fine000000000000000' },
    );
    const ok = await runCommand(['keys', 'check', '--local'], { env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('');

    await runCommand(['keys', 'add', 'soon', '--stdin', '--offline', '--expires', isoDay(20)], {
      env,
      input: 'sk_test_soon000000000000000',
    });
    expect((await runCommand(['keys', 'check', '--local'], { env })).code).toBe(0);
    const within30 = await runCommand(['keys', 'check', '--local', '--expiring-within', '30'], { env });
    expect(within30.code).toBe(1);
    expect(within30.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^✗ expiring: soon \(sk_test_\*\*\*\*0000\) expires on .* in 20 day/),
    ]);

    await runCommand(['keys', 'add', 'old', '--stdin', '--offline', '--expires', isoDay(-1)], {
      env,
      input: 'sk_test_old0000000000000000',
    });
    await runCommand(
      [
        'keys',
        'add',
        'narrow',
        '--stdin',
        '--offline',
        '--scope',
        'envelopes:read',
        '--require',
        'envelopes:write',
      ],
      { env, input: 'sk_test_narrow0000000000000' },
    );
    const bad = await runCommand(['keys', 'check', '--local', '--json'], { env });
    expect(bad.code).toBe(1);
    const { problems } = JSON.parse(bad.stdout) as { problems: { name: string; problem: string }[] };
    expect(problems.map((p) => `${p.name}:${p.problem}`).sort()).toEqual([
      'narrow:missing_scope',
      'old:expired',
    ]);
  });
  it('checks the keys the service lists too, and required scopes from config', async () => {
    const { env } = withConfig();
    await sandbox.control('/_sandbox/keys', { name: 'expiring-ci', expires: isoDay(2) });
    const remote = await runCommand(['keys', 'check'], {
      env: { ...env, SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey },
    });
    expect(remote.code).toBe(1);
    expect(remote.stdout).toContain('expiring: expiring-ci');
    expect((await runCommand(['config', 'set', 'required_scopes', 'audit:read'], { env })).code).toBe(0);
    await runCommand(
      [
        'keys',
        'add',
        'writer',
        '--stdin',
        '--offline',
        '--scope',
        'envelopes:write',
        '--expires',
        isoDay(300),
      ],
      { env, input: 'sk_test_writer000000000000' },
    );
    const scoped = await runCommand(['keys', 'check', '--local'], { env });
    expect(scoped.code).toBe(1);
    expect(scoped.stdout).toContain('lacks the required scope audit:read');
  });
});

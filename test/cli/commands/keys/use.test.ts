/** `keys use`, in process: the active profile, and what still wins over it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { withConfig } from '../../../helpers/profiles.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('keys use', () => {
  it('keys use warns when SIGN_API_KEY still wins, and keys list marks the key actually in use', async () => {
    const { env } = withConfig();
    await runCommand(['keys', 'add', 'a', '--stdin', '--offline'], {
      env,
      input: 'sk_test_aaaaaaaaaaaaaaaa',
    });
    await runCommand(['keys', 'add', 'b', '--stdin', '--offline'], {
      env,
      input: 'sk_test_bbbbbbbbbbbbbbbb',
    });
    const use = await runCommand(['keys', 'use', 'b'], {
      env: { ...env, SIGN_API_KEY: 'sk_test_FromTheEnvironment000' },
    });
    expect(use.code).toBe(0);
    expect(use.stderr).toContain("SIGN_API_KEY is set in this environment and wins over profile b's key");
    const list = JSON.parse(
      (
        await runCommand(['keys', 'list', '--local', '--json'], {
          env: { ...env, SIGN_API_KEY: 'sk_test_FromTheEnvironment000' },
        })
      ).stdout,
    ) as { name: string; active: boolean; source: string; key: string }[];
    expect(list.filter((r) => r.active)).toEqual([
      expect.objectContaining({ name: '(SIGN_API_KEY)', source: 'env', key: 'sk_test_****t000' }),
    ]);
    const profileInUse = JSON.parse(
      (await runCommand(['keys', 'list', '--local', '--json'], { env })).stdout,
    ) as { name: string; active: boolean }[];
    expect(profileInUse.filter((r) => r.active).map((r) => r.name)).toEqual(['b']);
  });
});

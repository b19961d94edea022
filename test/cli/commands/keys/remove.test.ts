/** `keys remove`, in process: profiles switched and removed. */
import { readFileSync } from 'node:fs';
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

describe('keys remove', () => {
  it('switches and removes profiles', async () => {
    const { env, file } = withConfig();
    await runCommand(['keys', 'add', 'a', '--stdin', '--offline'], {
      env,
      input: 'sk_test_aaaaaaaaaaaaaaaa',
    });
    await runCommand(['keys', 'add', 'b', '--stdin', '--offline'], {
      env,
      input: 'sk_test_bbbbbbbbbbbbbbbb',
    });
    expect(JSON.parse(readFileSync(file, 'utf8')).active_profile).toBe('a');
    expect((await runCommand(['keys', 'use', 'b'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).active_profile).toBe('b');
    expect((await runCommand(['keys', 'use', 'c'], { env })).code).toBe(2);
    expect((await runCommand(['keys', 'remove', 'b'], { env })).code).toBe(0);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.profiles.b).toBeUndefined();
    expect(after.active_profile).toBeUndefined();
  });
});

/** `config list`, in process: each setting as a run would use it, and where it comes from. */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';

describe('config list', () => {
  it('config list shows where each value comes from: flag, env, profile, config, default', async () => {
    const dir = tempDir();
    const configEnv = { SIGN_CONFIG_DIR: dir };
    await runCommand(
      ['keys', 'add', 'prod', '--stdin', '--offline', '--base-url', 'https://esign.example.com'],
      { env: configEnv, input: 'sk_live_ProfileKeyForSources0042' },
    );
    await runCommand(['config', 'set', 'rate', '120'], { env: configEnv });
    const source = (text: string, name: string) =>
      new RegExp(`^${name}\\s+(.*?)\\s{2,}(\\S.*)$`, 'm').exec(text)?.slice(1);
    const fromProfile = await runCommand(['config', 'list'], { env: configEnv });
    expect(fromProfile.code).toBe(0);
    expect(source(fromProfile.stdout, 'base_url')).toEqual(['https://esign.example.com', 'profile prod']);
    expect(source(fromProfile.stdout, 'api_key')).toEqual(['sk_live_****0042', 'profile prod']);
    expect(source(fromProfile.stdout, 'profile')).toEqual(['prod', 'config']);
    expect(source(fromProfile.stdout, 'rate')).toEqual(['120', 'config']);
    expect(source(fromProfile.stdout, 'retries')).toEqual(['5', 'default']);
    const fromEnv = await runCommand(['config', 'list', '--timeout', '9'], {
      env: { ...configEnv, SIGN_BASE_URL: 'http://127.0.0.1:4999', SIGN_RETRIES: '2' },
    });
    expect(source(fromEnv.stdout, 'base_url')).toEqual(['http://127.0.0.1:4999', 'env SIGN_BASE_URL']);
    expect(source(fromEnv.stdout, 'retries')).toEqual(['2', 'env SIGN_RETRIES']);
    expect(source(fromEnv.stdout, 'timeout')).toEqual(['9', 'flag --timeout']);
    const json = JSON.parse(
      (
        await runCommand(['config', 'list', '--json'], {
          env: { ...configEnv, SIGN_BASE_URL: 'http://127.0.0.1:4999' },
        })
      ).stdout,
    );
    expect(json.effective).toContainEqual({
      name: 'base_url',
      value: 'http://127.0.0.1:4999',
      source: 'env SIGN_BASE_URL',
    });
    expect(json.profiles.prod.api_key).toBe('sk_live_****0042');
    expect(JSON.stringify([fromProfile, fromEnv, json])).not.toContain('ProfileKeyForSources');
  });
});

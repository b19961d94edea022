/**
 * The config file as commands see it: read with a JSON parse, written through conf. What one
 * side writes, the other reads, at the one path both resolve.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigFile } from '../../src/cli/config/config-file.js';
import { UsageError } from '../../src/core/errors.js';
import { runCli } from '../helpers/cli.js';
import { withConfig } from '../helpers/profiles.js';

describe('the config file', () => {
  it('reads what is there, with conf’s dot paths, and no file as an empty config in a directory it makes', () => {
    const { dir, env } = withConfig();
    const nested = join(dir, 'not', 'yet');
    const empty = ConfigFile.open({ SIGN_CONFIG_DIR: nested });
    expect(empty.store).toEqual({});
    expect(empty.get('profiles')).toBeUndefined();
    expect(existsSync(nested)).toBe(true);

    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ active_profile: 'a', profiles: { a: { environment: 'test' } } }),
    );
    const config = ConfigFile.open(env);
    expect(config.path).toBe(join(dir, 'config.json'));
    expect(config.get('active_profile')).toBe('a');
    expect(config.get('profiles.a.environment')).toBe('test');
  });

  it('writes through conf (mode 0600), and reads back what it wrote', async () => {
    const { env, file } = withConfig();
    const config = ConfigFile.open(env);
    await config.set('profiles.p.environment', 'live');
    await config.set('active_profile', 'p');
    expect(config.get('profiles.p.environment')).toBe('live');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      profiles: { p: { environment: 'live' } },
      active_profile: 'p',
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await config.delete('active_profile');
    expect(config.get('active_profile')).toBeUndefined();
    expect(ConfigFile.open(env).store).toEqual({ profiles: { p: { environment: 'live' } } });
  });

  it('a file that is not JSON is a usage error naming the file, never quoting it', () => {
    const { env, file } = withConfig();
    writeFileSync(file, '{"profiles": {"p": {"api_key": "sk_live_secretvalue0001234"');
    let thrown: unknown;
    try {
      ConfigFile.open(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toBe(`the config file ${file} is not valid JSON`);
  });

  it('without SIGN_CONFIG_DIR, reads and writes where conf keeps sign-cli’s config (XDG_CONFIG_HOME on Linux)', async () => {
    // The built CLI in a process of its own: this suite does not change process.env (vitest.config.ts).
    const { dir } = withConfig();
    const env = { SIGN_CONFIG_DIR: undefined, XDG_CONFIG_HOME: dir };
    const file = join(dir, 'sign-cli', 'config.json');
    const path = await runCli(['config', 'path', '--json'], { env });
    expect(path.code).toBe(0);
    expect(JSON.parse(path.stdout)).toEqual({ path: file });
    // conf's own resolution agrees, or the write would be refused.
    const set = await runCli(['config', 'set', 'rate', '120'], { env });
    expect(set).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ settings: { rate: 120 } });
  });
});

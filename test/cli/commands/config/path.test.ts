/** `config path`, in process: where the file is, as text or JSON; refused when another user could write it. */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';

describe('config path', () => {
  it('prints $SIGN_CONFIG_DIR/config.json, or {"path"} with --json', async () => {
    const dir = tempDir('sign-cli-path-');
    const env = { SIGN_CONFIG_DIR: dir };
    expect(await runCommand(['config', 'path'], { env })).toMatchObject({
      code: 0,
      stdout: `${join(dir, 'config.json')}\n`,
      stderr: '',
    });
    expect(JSON.parse((await runCommand(['config', 'path', '--json'], { env })).stdout)).toEqual({
      path: join(dir, 'config.json'),
    });
  });

  it('a config dir others can write is refused (exit 2) with the chmod that fixes it', async () => {
    const dir = join(tempDir('sign-cli-path-'), 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const result = await runCommand(['config', 'path'], { env: { SIGN_CONFIG_DIR: dir } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`chmod`);
    expect(result.stderr).toContain(dir);
  });
});

/** `config get`, in process: a stored value, or the default that applies, as text or JSON with its source. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';

describe('config get', () => {
  it('config get of an unset setting prints its default; config path has --json', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const configEnv = { SIGN_CONFIG_DIR: dir };
    expect((await runCommand(['config', 'get', 'rate'], { env: configEnv })).stdout).toBe('600\n');
    expect(
      JSON.parse(
        (await runCommand(['config', 'get', 'paths.getAuditTrail', '--json'], { env: configEnv })).stdout,
      ),
    ).toEqual({
      name: 'paths.getAuditTrail',
      value: '/api/v1/envelopes/{id}/audit-trail',
      source: 'default',
    });
    await runCommand(['config', 'set', 'rate', '120'], { env: configEnv });
    expect(
      JSON.parse((await runCommand(['config', 'get', 'rate', '--json'], { env: configEnv })).stdout),
    ).toEqual({ name: 'rate', value: 120, source: 'config' });
    expect(JSON.parse((await runCommand(['config', 'path', '--json'], { env: configEnv })).stdout)).toEqual({
      path: join(dir, 'config.json'),
    });
    expect((await runCommand(['config', 'list'], { env: configEnv })).stdout).toMatch(
      /^timeout\s+30\s+default$/m,
    );
  });
});

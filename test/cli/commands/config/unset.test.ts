/** `config unset`, in process: back to the default, and only names that are settings. */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';

describe('config unset', () => {
  it('removes a stored setting: config get prints its default again', async () => {
    const env = { SIGN_CONFIG_DIR: tempDir('sign-cli-unset-') };
    expect((await runCommand(['config', 'set', 'timeout', '12'], { env })).code).toBe(0);
    expect((await runCommand(['config', 'get', 'timeout'], { env })).stdout).toBe('12\n');
    const unset = await runCommand(['config', 'unset', 'timeout'], { env });
    expect(unset.code).toBe(0);
    expect(unset.stderr).toContain('timeout unset');
    expect((await runCommand(['config', 'get', 'timeout'], { env })).stdout).toBe('30\n');
    // Unsetting what is not set is not an error: the result is the same.
    expect((await runCommand(['config', 'unset', 'timeout'], { env })).code).toBe(0);
  });

  it('an unknown name is exit 2, naming the settings there are', async () => {
    const result = await runCommand(['config', 'unset', 'colour'], {
      env: { SIGN_CONFIG_DIR: tempDir('sign-cli-unset-') },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown setting "colour"');
    expect(result.stderr).toContain('base_url');
  });
});

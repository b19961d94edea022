/**
 * `sandbox stop`, in process: when none runs it says so (exit 0), as text or
 * JSON; a lock left by a process that is gone is no sandbox. (Stopping a
 * running one, started with --detach: test/e2e/sandbox.test.ts.)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';

describe('sandbox stop', () => {
  it('says when no sandbox runs on the data dir, and exits 0', async () => {
    const dataDir = tempDir('sign-cli-stop-');
    const result = await runCommand(['sandbox', 'stop', '--data-dir', dataDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`no sandbox is running on ${dataDir}; nothing to stop`);
    expect(
      JSON.parse((await runCommand(['sandbox', 'stop', '--data-dir', dataDir, '--json'])).stdout),
    ).toEqual({ stopped: false, pid: null, data_dir: dataDir });
  });

  it('the default data dir comes from SIGN_SANDBOX_DIR', async () => {
    const dataDir = tempDir('sign-cli-stop-');
    const result = await runCommand(['sandbox', 'stop', '--json'], { env: { SIGN_SANDBOX_DIR: dataDir } });
    expect(JSON.parse(result.stdout)).toMatchObject({ stopped: false, data_dir: dataDir });
  });

  it('a lock whose process is gone is not a running sandbox: nothing is signalled', async () => {
    const dataDir = join(tempDir('sign-cli-stop-'), 'sbx');
    mkdirSync(dataDir, { mode: 0o700 });
    // A pid that cannot be alive (above pid_max), as a crashed sandbox of another boot would leave.
    writeFileSync(
      join(dataDir, 'sandbox.lock'),
      JSON.stringify({ pid: 4_194_305, token: 'gone', boot: 'another-boot', pidns: null, start: 1 }),
      { mode: 0o600 },
    );
    const result = await runCommand(['sandbox', 'stop', '--data-dir', dataDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('no sandbox is running');
  });
});

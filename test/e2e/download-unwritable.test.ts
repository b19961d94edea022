/**
 * The built binary's `envelopes download -o <path>` where the file cannot be written, against a
 * spawned sandbox: one error line naming the path and why, exit 1, no stack trace, nothing left
 * behind. It used to die of the answer's body, given up with nobody listening: "Unhandled 'error'
 * event … AbortError: Request aborted (UND_ERR_ABORTED)" and a stack. In process:
 * test/cli/commands/envelopes/download-unwritable.test.ts.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../helpers/envelopes.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
let env: Record<string, string>;
let completed: string;

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
  const created = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--new', '--query', 'envelope.id'], {
    env,
  });
  completed = created.stdout.trim();
  // --wait: back once its signers have signed; the signed copy exists from then on.
  const first = await runCli(['envelopes', 'download', completed, '--wait', '-o', join(tempDir(), 'a.pdf')], {
    env,
    timeoutMs: 60_000,
  });
  expect(first.code, first.stderr).toBe(0);
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('sign-cli envelopes download, to a path that cannot be written', () => {
  it('its directory missing, a file in its path, its temporary file a directory: one line each, exit 1', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes'), 'mine');
    mkdirSync(join(dir, 'x.pdf.part'));
    const before = readdirSync(dir).sort();
    for (const [target, why] of [
      [join(dir, 'missing', 'x.pdf'), 'a directory on its path does not exist (ENOENT)'],
      [join(dir, 'notes', 'x.pdf'), 'a part of the path is not a directory (ENOTDIR)'],
      [join(dir, 'x.pdf'), 'it is a directory (EISDIR)'],
    ] as const) {
      const result = await runCli(['envelopes', 'download', completed, '-o', target], { env });
      expect(result.code, result.stderr).toBe(1);
      expect(result.signal).toBeNull();
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toMatch(/Unhandled|\n\s+at /);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toContain(`error: could not write ${target}.part: ${why}`);
      expect(readdirSync(dir).sort()).toEqual(before);
    }
  });
});

/**
 * `envelopes download -o <path>` where the file cannot be written (its directory missing, a file where a
 * directory should be, a directory where its temporary file goes), in process against an in-process
 * sandbox: one error line naming the path and why, exit 1, nothing left behind, and the process goes
 * on (the answer's body, given up, once ended it with "Unhandled 'error' event … Request aborted").
 * The built binary: test/e2e/download-unwritable.test.ts.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/paths.js';

let sandbox: TestSandbox;
let completed: string;

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40 });
  completed = (
    await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--new', '--query', 'envelope.id'], {
      env: sandbox.env,
    })
  ).stdout.trim();
  // --wait: back once its signers have signed; the signed copy exists from then on.
  const first = await runCommand(
    ['envelopes', 'download', completed, '--wait', '-o', join(tempDir(), 'a.pdf')],
    {
      env: sandbox.env,
    },
  );
  expect(first.code, first.stderr).toBe(0);
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes download to a path that cannot be written', () => {
  it.each([
    [
      'its directory is missing',
      (dir: string) => join(dir, 'missing', 'x.pdf'),
      /a directory on its path does not exist \(ENOENT\)/,
    ],
    [
      'a file stands where a directory should',
      (dir: string) => {
        writeFileSync(join(dir, 'notes'), 'mine');
        return join(dir, 'notes', 'x.pdf');
      },
      /a part of the path is not a directory \(ENOTDIR\)/,
    ],
    [
      'its temporary file is a directory',
      (dir: string) => {
        mkdirSync(join(dir, 'x.pdf.part'));
        return join(dir, 'x.pdf');
      },
      /it is a directory \(EISDIR\)/,
    ],
  ])('%s: one line naming the path and why, exit 1, nothing left', async (_, place, why) => {
    const dir = tempDir();
    const target = place(dir);
    const before = readdirSync(dir).sort();
    const result = await runCommand(['envelopes', 'download', completed, '-o', target], { env: sandbox.env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`error: could not write ${target}.part: `);
    expect(lines[0]).toMatch(why);
    expect(readdirSync(dir).sort()).toEqual(before);
    // What was there is still there, as it was.
    if (before.includes('x.pdf.part')) expect(statSync(join(dir, 'x.pdf.part')).isDirectory()).toBe(true);
  });
});

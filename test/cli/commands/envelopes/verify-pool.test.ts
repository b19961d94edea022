/**
 * The worker threads of an archive run (src/cli/commands/envelopes/verify-pool.ts), with the
 * worker's entry bundled here as the build bundles it (esbuild): real threads verifying real
 * files (the sandbox's signed copy, an unsigned PDF, a file that is not one). A worker that dies
 * on a file makes that file unreadable and another takes its place; workers that cannot start
 * leave the files to the command's own thread; Ctrl-C ends the run while a named pipe is being
 * read. The worker loads the verifier and the reader of a PDF, nothing of the CLI.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../../../src/core/errors.js';
import { VerifyPool } from '../../../../src/cli/commands/envelopes/verify-pool.js';
import type { FileOutcome, RunSettings } from '../../../../src/cli/commands/envelopes/verify-one.js';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { basePdf } from '../../../helpers/pdf-build.js';
import { saveSignedCopy } from '../../../helpers/pdf-folders.js';

const dir = tempDir('sign-cli-verify-pool-');
const scripts = join(dir, 'scripts');
let sandbox: TestSandbox;
let signed: string;
let settings: RunSettings;
/** The source files the worker's bundle is made of. */
let inputs: string[];

beforeAll(async () => {
  mkdirSync(scripts);
  const built = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['src/cli/commands/envelopes/verify-worker.ts'],
    outfile: join(scripts, 'verify-worker.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    metafile: true,
    logLevel: 'warning',
  });
  inputs = Object.keys(built.metafile.inputs);
  // Dies on any file named crash.pdf, as a verifier with a fatal bug would; the real worker otherwise.
  writeFileSync(
    join(scripts, 'dies-on-crash.mjs'),
    [
      "import { parentPort } from 'node:worker_threads';",
      "parentPort.on('message', (task) => { if (task.file.endsWith('crash.pdf')) throw new Error('died on ' + task.file); });",
      "await import('./verify-worker.mjs');",
    ].join('\n'),
  );
  writeFileSync(join(scripts, 'cannot-start.mjs'), "throw new Error('this worker cannot start');\n");
  // Fills its heap on any file named big.pdf, as a file too large for a worker's bound would.
  writeFileSync(
    join(scripts, 'fills-heap-on-big.mjs'),
    [
      "import { parentPort } from 'node:worker_threads';",
      "parentPort.on('message', (task) => { if (task.file.endsWith('big.pdf')) { const hoard = []; for (;;) hoard.push(new Array(1e5).fill(hoard.length)); } });",
      "await import('./verify-worker.mjs');",
    ].join('\n'),
  );

  sandbox = await startTestSandbox({ speed: 40 });
  signed = join(dir, 'signed.pdf');
  const ca = await saveSignedCopy(sandbox, signed);
  const { pemCertificates } = await import('../../../../src/core/pades/verify.js');
  settings = {
    trusted: pemCertificates(ca),
    allowWeak: false,
    maxBytes: 16 * 1024 * 1024,
    now: Date.now(),
    json: true,
  };
  writeFileSync(join(dir, 'unsigned.pdf'), basePdf());
  writeFileSync(join(dir, 'text.pdf'), 'not a PDF\n');
  copyFileSync(join(dir, 'unsigned.pdf'), join(dir, 'crash.pdf'));
  copyFileSync(join(dir, 'unsigned.pdf'), join(dir, 'big.pdf'));
});
afterAll(async () => {
  await sandbox?.stop();
});

/** Every file through one pool, each outcome by its file's name. */
async function throughPool(
  script: string,
  files: string[],
  fallback = noFallback,
  heapMb?: number,
): Promise<FileOutcome[]> {
  const pool = new VerifyPool(
    join(scripts, script),
    2,
    settings,
    fallback,
    new AbortController().signal,
    heapMb,
  );
  try {
    return await Promise.all(files.map((file, index) => pool.verify(index, join(dir, file))));
  } finally {
    await pool.close();
  }
}
const noFallback = (file: string): Promise<FileOutcome> =>
  Promise.reject(new Error(`the pool fell back for ${file}`));
const shown = (outcomes: FileOutcome[]) => outcomes.map((o) => [relative(dir, o.file), o.result]);

describe('the pool of worker threads', () => {
  it('verifies each file on a worker: valid, invalid, unreadable, each with its JSON line', async () => {
    const outcomes = await throughPool('verify-worker.mjs', [
      'signed.pdf',
      'unsigned.pdf',
      'text.pdf',
      'signed.pdf',
    ]);
    expect(shown(outcomes)).toEqual([
      ['signed.pdf', 'valid'],
      ['unsigned.pdf', 'invalid'],
      ['text.pdf', 'unreadable'],
      ['signed.pdf', 'valid'],
    ]);
    expect(outcomes[1]!.reason).toBe('no signature in it; it proves nothing about who signed it');
    expect(JSON.parse(outcomes[0]!.json!)).toMatchObject({ file: signed, valid: true, audit_trail: null });
    expect(JSON.parse(outcomes[2]!.json!)).toEqual({
      file: join(dir, 'text.pdf'),
      valid: false,
      unreadable: true,
      error: expect.stringContaining('text.pdf: '),
    });
  });

  it('makes the file a worker died on unreadable, and goes on with another worker', async () => {
    const outcomes = await throughPool('dies-on-crash.mjs', [
      'unsigned.pdf',
      'crash.pdf',
      'signed.pdf',
      'crash.pdf',
      'signed.pdf',
    ]);
    expect(shown(outcomes)).toEqual([
      ['unsigned.pdf', 'invalid'],
      ['crash.pdf', 'unreadable'],
      ['signed.pdf', 'valid'],
      ['crash.pdf', 'unreadable'],
      ['signed.pdf', 'valid'],
    ]);
    expect(outcomes[1]!.reason).toBe(
      `${join(dir, 'crash.pdf')}: the verifier stopped on it (died on ${join(dir, 'crash.pdf')})`,
    );
  });

  it("verifies a file that fills a worker's heap on the command's own thread, and goes on with another worker", async () => {
    const fallen: string[] = [];
    const outcomes = await throughPool(
      'fills-heap-on-big.mjs',
      ['unsigned.pdf', 'big.pdf', 'signed.pdf', 'big.pdf', 'text.pdf'],
      async (file) => {
        fallen.push(relative(dir, file));
        return { file, result: 'invalid', reason: 'verified on the command thread' };
      },
      16,
    );
    expect(fallen).toEqual(['big.pdf', 'big.pdf']);
    expect(outcomes.map((o) => [relative(dir, o.file), o.result, o.reason])).toEqual([
      ['unsigned.pdf', 'invalid', 'no signature in it; it proves nothing about who signed it'],
      ['big.pdf', 'invalid', 'verified on the command thread'],
      ['signed.pdf', 'valid', ''],
      ['big.pdf', 'invalid', 'verified on the command thread'],
      ['text.pdf', 'unreadable', expect.stringContaining('text.pdf: ')],
    ]);
  });

  it("leaves the files to the command's own thread when no worker can start", async () => {
    const fallen: string[] = [];
    const outcomes = await throughPool('cannot-start.mjs', ['unsigned.pdf', 'text.pdf'], async (file) => {
      fallen.push(relative(dir, file));
      return { file, result: 'invalid', reason: 'verified on the command thread' };
    });
    expect(fallen.sort()).toEqual(['text.pdf', 'unsigned.pdf']);
    expect(outcomes.map((o) => o.reason)).toEqual([
      'verified on the command thread',
      'verified on the command thread',
    ]);
  });

  it.skipIf(process.platform === 'win32')(
    'stops at Ctrl-C while a worker reads a named pipe that never ends',
    async () => {
      const pipe = join(dir, 'endless.pdf');
      execFileSync('mkfifo', [pipe]);
      const stop = new AbortController();
      const pool = new VerifyPool(join(scripts, 'verify-worker.mjs'), 1, settings, noFallback, stop.signal);
      const verdict = pool.verify(0, pipe);
      // Open once the worker opened it to read; never written nor closed: the read cannot finish.
      const writer = await open(pipe, 'w');
      try {
        stop.abort();
        await expect(verdict).rejects.toBeInstanceOf(InterruptedError);
        await pool.close();
        await expect(pool.verify(1, join(dir, 'signed.pdf'))).rejects.toBeInstanceOf(InterruptedError);
      } finally {
        await writer.close();
      }
    },
  );

  it('loads the verifier and the reader of a PDF, nothing of the CLI', () => {
    const outside = inputs.filter(
      (file) =>
        !file.startsWith('src/core/') &&
        ![
          'src/cli/commands/envelopes/verify-worker.ts',
          'src/cli/commands/envelopes/verify-one.ts',
          'src/cli/commands/envelopes/verify-text.ts',
          'src/cli/input/pdf-file.ts',
          'src/cli/input/stdin.ts',
          'src/cli/render/time.ts',
        ].includes(file),
    );
    expect(outside).toEqual([]);
  });
});

/**
 * `envelopes verify <file|dir>...` over many files in one run, in process (from the sources the
 * files are verified on the command's own thread; the worker threads of the built CLI:
 * test/e2e/verify-archive.test.ts and verify-pool.test.ts): the sandbox's signed copies made here,
 * a tampered one, broken files, directories walked to their *.pdf, links out of them not followed,
 * the summary and the exits (0, 1, 2), one --json line per file in the order found, progress on a
 * terminal and none in a pipe, Ctrl-C while a named pipe among the files cannot finish, and the
 * real-world corpus in one run judged as test/core/pades/realworld.test.ts judges it.
 */
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/core/clock.js';
import { systemClock } from '../../../../src/core/clock.js';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, startCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { CORPUS, DELIBERATE, NOW, present, rows, same } from '../../../helpers/pades-corpus.js';
import { pdfFolder, saveSignedCopy, withOneByteChanged } from '../../../helpers/pdf-folders.js';
import { threadCount } from '../../../../src/cli/commands/envelopes/verify-many.js';
import { UsageError } from '../../../../src/core/errors.js';

let sandbox: TestSandbox;
const dir = tempDir('sign-cli-verify-many-');
let signed: string;
let caFile: string;
/** Verify never calls the service without --envelope: nothing listens here. */
const env = { SIGN_BASE_URL: 'http://127.0.0.1:9' };

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40 });
  signed = join(dir, 'signed.pdf');
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, await saveSignedCopy(sandbox, signed));
});
afterAll(async () => {
  await sandbox?.stop();
});

/** A directory of the test's own under `dir`, with `files` (path → bytes, or the signed copy). */
const folder = (name: string, files: Record<string, Buffer | 'signed'>) =>
  pdfFolder(join(dir, name), signed, files);
const tampered = () => withOneByteChanged(signed);

const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('envelopes verify over files and directories', () => {
  it('verifies every *.pdf of the directories and the files given, and sums them up: exit 1 when any fails', async () => {
    const archive = folder('archive', {
      'a/first.pdf': 'signed',
      'a/b/second.PDF': 'signed',
      'a/changed.pdf': tampered(),
      'broken.pdf': Buffer.from('not a PDF at all\n'),
      'notes.txt': Buffer.from('not looked at'),
    });
    const result = await runCommand(['envelopes', 'verify', archive, signed, '--trust', caFile], { env });
    expect(result.code, result.stderr).toBe(1);
    const out = result.stdout.trimEnd().split('\n');
    // The files that failed, with their reasons, then the counts as the last line.
    expect(out[0]).toMatch(/^FILE +RESULT +REASON$/);
    expect(out.find((l) => l.includes('changed.pdf'))).toMatch(
      /changed\.pdf +invalid +Signature1: digest: .*; Timestamp1: digest: /,
    );
    expect(out.find((l) => l.includes('broken.pdf'))).toMatch(/broken\.pdf +unreadable +.*not a PDF/);
    expect(out.filter((l) => /first\.pdf|second\.PDF|signed\.pdf/.test(l))).toEqual([]);
    expect(out.at(-1)).toBe('✗ 5 PDFs: 3 valid, 1 invalid, 1 unreadable');
    expect(result.stderr).toBe('');
  });

  it('exits 0 when every file verifies, and 2 when none could be read', async () => {
    const good = folder('good', { 'one.pdf': 'signed', 'two/two.pdf': 'signed' });
    const valid = await runCommand(['envelopes', 'verify', good, '--trust', caFile], { env });
    expect({ code: valid.code, stdout: valid.stdout }).toEqual({
      code: 0,
      stdout: '✓ 2 PDFs: 2 valid, 0 invalid, 0 unreadable\n',
    });

    const bad = folder('bad', { 'text.pdf': Buffer.from('hello\n'), 'empty.pdf': Buffer.alloc(0) });
    const none = await runCommand(['envelopes', 'verify', bad, join(dir, 'missing.pdf')], { env });
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/missing\.pdf +unreadable +no such file/);
    expect(none.stdout.trimEnd().split('\n').at(-1)).toBe('✗ 3 PDFs: 0 valid, 0 invalid, 3 unreadable');

    // A signed file without a trusted root is read, and fails: 1, not 2.
    const untrusted = await runCommand(['envelopes', 'verify', bad, signed], { env });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('hint: if you trust the issuer, pass its CA certificate with --trust');

    const empty = folder('empty', { 'readme.txt': Buffer.from('no PDF here') });
    const nothing = await runCommand(['envelopes', 'verify', empty], { env });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/^error: nothing to verify: no \*\.pdf in .*empty/);
  });

  it('prints one JSON line per file, in the order found, each as one file of `verify --json` prints it', async () => {
    const now = Date.now();
    const clock: Clock = { ...systemClock, now: () => now };
    const archive = folder('json', {
      'b.pdf': 'signed',
      'a/changed.pdf': tampered(),
      'c.pdf': Buffer.from('x'),
    });
    const result = await runCommand(['envelopes', 'verify', archive, signed, '--trust', caFile, '--json'], {
      env,
      clock,
    });
    expect(result.code).toBe(1);
    const found = lines(result.stdout);
    expect(found.map((l) => [relative(dir, String(l.file)), l.valid])).toEqual([
      ['json/a/changed.pdf', false],
      ['json/b.pdf', true],
      ['json/c.pdf', false],
      ['signed.pdf', true],
    ]);
    expect(found[2]).toEqual({
      file: join(archive, 'c.pdf'),
      valid: false,
      unreadable: true,
      error: expect.stringMatching(/c\.pdf: .*PDF/),
    });
    // One file given alone keeps its JSON document, the same object as its line here.
    const one = await runCommand(['envelopes', 'verify', signed, '--trust', caFile, '--json'], {
      env,
      clock,
    });
    expect(found[3]).toEqual(JSON.parse(one.stdout));
    // The counts go to stderr: stdout holds the lines alone.
    expect(result.stderr).toBe('✗ 4 PDFs: 2 valid, 1 invalid, 1 unreadable\n');
  });

  it('refuses --envelope with several files or a directory, naming the flag (exit 2)', async () => {
    for (const args of [[signed, signed], [dir]]) {
      const result = await runCommand(['envelopes', 'verify', ...args, '--envelope', 'env_1'], { env });
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(
        /^error: --envelope checks one file against its envelope's audit trail: give one file/,
      );
    }
  });

  it('draws its progress in place on a terminal, and none in a pipe', async () => {
    const archive = folder('progress', { '1.pdf': 'signed', '2.pdf': 'signed', '3.pdf': Buffer.from('x') });
    // Every reading of this clock is a second later: each file is due a redraw.
    let t = Date.now();
    const clock: Clock = { ...systemClock, now: () => (t += 1000) };
    const tty = await runCommand(['envelopes', 'verify', archive, '--trust', caFile], {
      env,
      clock,
      tty: true,
      // Wide enough for the file's whole path: on a narrower terminal it is what goes first.
      columns: 300,
    });
    expect(tty.code).toBe(1);
    const drawn = tty.stderr.split('\r\u001b[2K');
    expect(drawn).toContain('verifying 0/3 · 0 valid · 0 invalid · 0 unreadable');
    expect(drawn).toContain('verifying 2/3 · 2 valid · 0 invalid · 0 unreadable · ' + join(archive, '2.pdf'));
    expect(drawn).toContain('verifying 3/3 · 2 valid · 0 invalid · 1 unreadable · ' + join(archive, '3.pdf'));
    // Cleared at the end: the summary is not left under a progress line.
    expect(tty.stderr.endsWith('\r\u001b[2K')).toBe(true);

    const pipe = await runCommand(['envelopes', 'verify', archive, '--trust', caFile], { env, clock });
    expect(pipe.stderr).toBe('');
  });

  it('follows links inside a directory that stay in it, never one that leads out', async () => {
    const outside = folder('outside', { 'elsewhere.pdf': 'signed', 'sub/also.pdf': 'signed' });
    const archive = folder('links', { 'inside/real.pdf': 'signed' });
    symlinkSync(join(archive, 'inside', 'real.pdf'), join(archive, 'again.pdf'));
    symlinkSync(join(outside, 'elsewhere.pdf'), join(archive, 'out.pdf'));
    symlinkSync(join(outside, 'sub'), join(archive, 'outdir'));
    symlinkSync(join(archive, 'inside'), join(archive, 'indir'));
    symlinkSync(join(archive, 'gone.pdf'), join(archive, 'dangling.pdf'));
    const result = await runCommand(['envelopes', 'verify', archive, '--trust', caFile, '--json'], { env });
    expect(lines(result.stdout).map((l) => [String(l.file).slice(archive.length + 1), l.valid])).toEqual([
      ['again.pdf', true],
      ['dangling.pdf', false],
      ['inside/real.pdf', true],
    ]);
    expect(result.stderr).toContain(
      `skipped 2 links leading out of the directories given, not followed (name their files to verify them): ${join(archive, 'out.pdf')}, ${join(archive, 'outdir')}`,
    );
    // Named on the command line, a link is the person's choice: followed.
    const named = await runCommand(
      ['envelopes', 'verify', join(archive, 'out.pdf'), join(archive, 'outdir'), '--trust', caFile],
      {
        env,
      },
    );
    expect(named.stdout.trimEnd().split('\n').at(-1)).toBe('✓ 2 PDFs: 2 valid, 0 invalid, 0 unreadable');
  });

  it.skipIf(process.platform === 'win32')(
    'stops at Ctrl-C while a named pipe among the files cannot finish, with the summary of what was done (exit 130)',
    async () => {
      const archive = folder('interrupted', { '1-signed.pdf': 'signed', '3-signed.pdf': 'signed' });
      const pipe = join(archive, '2-endless.pdf');
      execFileSync('mkfifo', [pipe]);
      // Named, so read: inside a directory a named pipe is never opened.
      const run = startCommand(
        [
          'envelopes',
          'verify',
          join(archive, '1-signed.pdf'),
          pipe,
          join(archive, '3-signed.pdf'),
          '--trust',
          caFile,
        ],
        { env },
      );
      // Opened for writing once the command opens it to read (after the first file), never written nor closed.
      const writer = await open(pipe, 'w');
      try {
        run.interrupt();
        const result = await run.done;
        expect(result.code).toBe(130);
        expect(result.stdout).toBe(
          '✗ interrupted after 1 of 3 PDFs: 1 valid, 0 invalid, 0 unreadable; 2 not verified\n',
        );
      } finally {
        await writer.close();
      }
      // In a directory, the same pipe is listed as unreadable and never opened: the run ends.
      const walked = await runCommand(['envelopes', 'verify', archive, '--trust', caFile], { env });
      expect(walked.code).toBe(1);
      expect(walked.stdout).toMatch(/2-endless\.pdf +unreadable +a named pipe, not a regular file: not read/);
    },
  );
});

describe('how many worker threads', () => {
  it('starts one per eight files, up to one per core and four, and none for fewer than eight', () => {
    const on = (files: number, cores: number) => threadCount({}, files, cores);
    expect([on(1, 8), on(7, 8), on(8, 8), on(15, 8), on(16, 8), on(189, 8), on(189, 2), on(189, 1)]).toEqual([
      0, 0, 1, 1, 2, 4, 2, 1,
    ]);
  });

  it('takes SIGN_VERIFY_THREADS as it is (0: the command thread), never more than the files', () => {
    expect(threadCount({ SIGN_VERIFY_THREADS: '3' }, 2, 8)).toBe(2);
    expect(threadCount({ SIGN_VERIFY_THREADS: ' 3 ' }, 100, 1)).toBe(3);
    expect(threadCount({ SIGN_VERIFY_THREADS: '0' }, 100, 8)).toBe(0);
    for (const bad of ['-1', 'two', '1.5', '65'])
      expect(() => threadCount({ SIGN_VERIFY_THREADS: bad }, 100, 8)).toThrow(UsageError);
  });
});

describe.skipIf(!present)('the real-world corpus in one run', () => {
  it('judges each of its files as its source does, as test/core/pades/realworld.test.ts does one at a time', async () => {
    const clock: Clock = { ...systemClock, now: () => NOW.getTime() };
    const result = await runCommand(['envelopes', 'verify', CORPUS, '--json'], { env, clock });
    expect(result.code).toBe(1);
    const byFile = new Map(lines(result.stdout).map((l) => [String(l.file).slice(CORPUS.length + 1), l]));
    expect(byFile.size).toBe(rows.length);
    const judged = rows.map(({ file, exit, integrity }) => {
      const line = byFile.get(file)!;
      const got = line.unreadable
        ? { integrity: 'refuse', exit: 2 }
        : { integrity: String(line.integrity), exit: line.valid ? 0 : 1 };
      const deliberate = DELIBERATE[file];
      return deliberate
        ? { file, got: got.integrity, expected: deliberate.got }
        : { file, got: [same(got.integrity), got.exit], expected: [same(integrity), exit] };
    });
    expect(judged.filter((j) => JSON.stringify(j.got) !== JSON.stringify(j.expected))).toEqual([]);
  }, 180_000);
});

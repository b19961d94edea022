/**
 * `envelopes verify <file|dir>...` as the built binary runs it, on the command's own thread (fewer
 * than eight files) and on worker threads (dist/cli/verify-worker.cjs; SIGN_VERIFY_THREADS); in
 * process from the sources it runs on one thread: test/cli/commands/envelopes/verify-many.test.ts.
 * Files and directories of the sandbox's signed copies with a changed one, a damaged one and files
 * that are not PDFs among them: the summary, one JSON line per file, the exits; the progress drawn
 * in a real terminal (tmux) while a named pipe holds the run, and cleared; the real-world corpus in
 * one run, judged as its sources judge it; SIGINT while a worker reads a named pipe that never
 * ends: exit 130 with the summary of what was done; no progress drawn into a pipe.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { EXAMPLE } from '../helpers/envelopes.js';
import { CORPUS, DELIBERATE, present, rows, same } from '../helpers/pades-corpus.js';
import { basePdf } from '../helpers/pdf-build.js';
import { pdfFolder, withOneByteChanged } from '../helpers/pdf-folders.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { sourcedEnv } from '../helpers/terminal-env.js';

const dir = tempDir('sign-cli-verify-archive-');

/** Every *.pdf under `root`, relative to it, each directory's entries in the order of their names. */
function walkOrder(root: string, under = ''): string[] {
  return readdirSync(join(root, under), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const path = under ? `${under}/${entry.name}` : entry.name;
      if (entry.isDirectory()) return walkOrder(root, path);
      return /\.pdf$/i.test(entry.name) ? [path] : [];
    });
}
// Several workers even on a machine of one core: the pool is what is tested here.
const env = { SIGN_BASE_URL: 'http://127.0.0.1:9', SIGN_VERIFY_THREADS: '3' };

let sandbox: SandboxProcess;
/** The sandbox's signed copy, and its CA. */
let signed: string;
let ca: string;

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
  const service = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
  const created = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--new', '--query', 'envelope.id'], {
    env: service,
  });
  signed = join(dir, 'signed.pdf');
  const downloaded = await runCli(['envelopes', 'download', created.stdout.trim(), '--wait', '-o', signed], {
    env: service,
    timeoutMs: 60_000,
  });
  expect(downloaded.code, downloaded.stderr).toBe(0);
  ca = join(dir, 'ca.pem');
  writeFileSync(ca, await (await fetch(`${sandbox.baseUrl}/_sandbox/ca.pem`)).text());
});
afterAll(async () => {
  await sandbox?.stop();
});

/** A directory under `dir` holding `files` (path → bytes, or the signed copy). */
const folder = (name: string, files: Record<string, Buffer | 'signed'>) =>
  pdfFolder(join(dir, name), signed, files);
const changed = () => withOneByteChanged(signed);

/** A verdict with `validated_at` blanked where it is the time of the run (`validation_time: now`). */
const withoutNow = (verdict: unknown) => {
  const v = verdict as { signatures?: { validation_time: string; validated_at: string }[] };
  return {
    ...v,
    signatures: v.signatures?.map((s) => (s.validation_time === 'now' ? { ...s, validated_at: 'now' } : s)),
  };
};
const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { file: string; valid: boolean; unreadable?: true; error?: string });

describe.each([
  ["the command's own thread (fewer than eight files)", {}],
  ['two worker threads', { SIGN_VERIFY_THREADS: '2' }],
])('many files and directories, on %s', (_, threads) => {
  const run = (args: string[]) =>
    runCli(['envelopes', 'verify', ...args, '--trust', ca, '--verbose'], {
      env: { SIGN_BASE_URL: 'http://127.0.0.1:9', ...threads },
      timeoutMs: 60_000,
    });

  it('verifies every *.pdf found, sums up the ones that fail with their reasons, and exits 1', async () => {
    const archive = folder(`archive-${Object.keys(threads).length}`, {
      '2025/contract.pdf': 'signed',
      '2026/q1/contract.PDF': 'signed',
      '2026/q1/changed.pdf': changed(),
      '2026/damaged.pdf': readFileSync(signed).subarray(0, 2000),
      'notes.pdf': Buffer.from('meeting notes, not a PDF\n'),
      'readme.txt': Buffer.from('not looked at'),
    });
    const result = await run([archive, signed]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      Object.keys(threads).length > 0
        ? 'verifying 6 files on 2 worker threads'
        : "verifying 6 files on the command's own thread",
    );
    const out = result.stdout.trimEnd().split('\n');
    expect(out[0]).toMatch(/^FILE +RESULT +REASON/);
    expect(out.find((l) => l.includes('changed.pdf'))).toMatch(
      /changed\.pdf +invalid +Signature1: digest: .*; Timestamp1: digest: /,
    );
    expect(out.find((l) => l.includes('damaged.pdf'))).toMatch(/damaged\.pdf +(invalid|unreadable) +\S/);
    expect(out.find((l) => l.includes('notes.pdf'))).toMatch(/notes\.pdf +unreadable +.*not a PDF/);
    expect(out.filter((l) => /contract\.pdf|contract\.PDF|signed\.pdf/.test(l))).toEqual([]);
    expect(out.at(-1)).toMatch(/^✗ 6 PDFs: 3 valid, [12] invalid, [12] unreadable$/);
  });

  it('prints one JSON line per file in the order found, the counts on stderr', async () => {
    const archive = folder(`json-${Object.keys(threads).length}`, {
      'b/contract.pdf': 'signed',
      'a/changed.pdf': changed(),
      'c.pdf': Buffer.from('x'),
    });
    const result = await run([signed, archive, '--json']);
    expect(result.code, result.stderr).toBe(1);
    const lines = jsonLines(result.stdout);
    expect(lines.map((l) => [l.file, l.valid, l.unreadable ?? false])).toEqual([
      [signed, true, false],
      [join(archive, 'a', 'changed.pdf'), false, false],
      [join(archive, 'b', 'contract.pdf'), true, false],
      [join(archive, 'c.pdf'), false, true],
    ]);
    expect(lines[3]!.error).toMatch(/c\.pdf: .*PDF/);
    // A B-LTA copy: its signature and its document timestamp both broken by the change.
    expect(lines[1]).toMatchObject({ integrity: 'broken', signatures: [{ valid: false }, { valid: false }] });
    expect(result.stderr).toContain('✗ 4 PDFs: 2 valid, 1 invalid, 1 unreadable');
    // One file alone keeps its one JSON document, the same as its line among many (but the instant
    // of a check made now: the copy's document timestamp, which no later timestamp covers).
    const one = await run([signed, '--json']);
    expect(one.code).toBe(0);
    expect(withoutNow(lines[0])).toEqual(withoutNow(JSON.parse(one.stdout)));
  });

  it('exits 0 when every file verifies, and 2 when none could be read', async () => {
    const good = folder(`good-${Object.keys(threads).length}`, {
      'one.pdf': 'signed',
      'two/two.pdf': 'signed',
    });
    const valid = await run([good]);
    expect({ code: valid.code, stdout: valid.stdout }).toEqual({
      code: 0,
      stdout: '✓ 2 PDFs: 2 valid, 0 invalid, 0 unreadable\n',
    });
    const bad = folder(`bad-${Object.keys(threads).length}`, {
      'a.pdf': Buffer.from('hello'),
      'b.pdf': Buffer.alloc(0),
    });
    const none = await run([bad]);
    expect(none.code).toBe(2);
    expect(none.stdout.trimEnd().split('\n').at(-1)).toBe('✗ 2 PDFs: 0 valid, 0 invalid, 2 unreadable');
  });
});

describe.skipIf(process.platform === 'win32')('progress in a terminal', () => {
  // A tmux server of this file's own (its socket in the run's TMPDIR), as test/e2e/tables.test.ts has it.
  const TMUX = ['-S', join(tempDir('sign-cli-verify-tmux-'), 'socket')];
  const tmux = (...args: string[]) => execFileSync('tmux', [...TMUX, ...args], { encoding: 'utf8' });
  const session = `sign-cli-verify-${process.pid}`;
  afterAll(() => {
    spawnSync('tmux', [...TMUX, 'kill-server']);
  });

  /** The screen once `done` holds of it; the deadline only ends a run that went wrong. */
  async function screenWhen(done: (shown: string) => boolean): Promise<string> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const shown = tmux('capture-pane', '-p', '-t', session, '-S', '-50');
      if (done(shown)) return shown;
      if (Date.now() > deadline) throw new Error(`the screen never showed it:\n${shown}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('draws its progress on stderr while a named pipe holds the run, and clears it at the end', async () => {
    const held = folder('held', { 'a.pdf': 'signed' });
    const pipe = join(held, 'b-pipe.pdf');
    execFileSync('mkfifo', [pipe]);
    const env = { SIGN_BASE_URL: 'http://127.0.0.1:9', NO_COLOR: '1' };
    // Named, so read (inside a directory a pipe is never opened): the run waits on it after a.pdf.
    tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '80',
      '-y',
      '20',
      `cd ${ROOT} && ${sourcedEnv(env, { unsetCi: true })}${process.execPath} ${BIN} envelopes verify ${join(held, 'a.pdf')} ${pipe} ${signed} --trust ${ca}; echo "EXIT=$?"; sleep 60`,
    );
    try {
      // Opened for writing once the command opens it to read, after a.pdf: the progress says so.
      const writer = await open(pipe, 'w');
      const during = await screenWhen((shown) => shown.includes('verifying 1/3'));
      const line = during.split('\n').find((l) => l.includes('verifying 1/3'))!;
      expect(line).toMatch(/^verifying 1\/3 · 1 valid · 0 invalid · 0 unreadable/);
      expect(line.length).toBeLessThan(80);
      await writer.writeFile(readFileSync(signed));
      await writer.close();
      const after = await screenWhen((shown) => /EXIT=\d/.test(shown));
      expect(after).toContain('✓ 3 PDFs: 3 valid, 0 invalid, 0 unreadable');
      expect(after).toContain('EXIT=0');
      expect(after).not.toContain('verifying');
    } finally {
      spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
    }
  });
});

describe.skipIf(!present)('the real-world corpus on worker threads', () => {
  it("judges each file's integrity as its source does, every file once, in the order found", async () => {
    const result = await runCli(['envelopes', 'verify', CORPUS, '--json', '--verbose'], {
      env,
      timeoutMs: 170_000,
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`verifying ${rows.length} files on 3 worker threads`);
    expect(result.stderr).not.toContain('\r');
    const found = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { file: string; integrity?: string; unreadable?: boolean });
    // Reported in the order found, whichever worker finished first: each directory's names sorted.
    expect(found.map((l) => l.file.slice(CORPUS.length + 1))).toEqual(walkOrder(CORPUS));
    expect(found).toHaveLength(rows.length);
    // Integrity, not the exit: what the signatures say of the document is the same at any time,
    // where the chains are checked now (the in-process run fixes the time and checks both).
    const byFile = new Map(found.map((l) => [l.file.slice(CORPUS.length + 1), l]));
    const differ = rows.flatMap(({ file, integrity }) => {
      const line = byFile.get(file)!;
      const got = line.unreadable ? 'refuse' : String(line.integrity);
      const expected = DELIBERATE[file]?.got ?? integrity;
      return same(got) === same(expected) ? [] : [{ file, got, expected }];
    });
    expect(differ).toEqual([]);
  }, 180_000);
});

describe.skipIf(process.platform === 'win32')('an archive run interrupted', () => {
  it('stops on SIGINT while a worker reads a named pipe that never ends: exit 130, with the summary of what was done', async () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    for (const name of ['a.pdf', 'b.pdf', 'c.pdf']) writeFileSync(join(folder, name), basePdf());
    const pipe = join(dir, 'endless.pdf');
    execFileSync('mkfifo', [pipe]);
    const child = spawn(process.execPath, [BIN, 'envelopes', 'verify', pipe, folder], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Open once a worker opened it to read; never written nor closed: that file cannot finish.
    const writer = await open(pipe, 'w');
    try {
      child.kill('SIGINT');
      expect({ code: await closed, stderr }).toEqual({
        code: 130,
        stderr: expect.not.stringContaining('\r'),
      });
      // The pipe is the first file: nothing can be reported before it, so nothing was.
      expect(stdout).toBe(
        '✗ interrupted after 0 of 4 PDFs: 0 valid, 0 invalid, 0 unreadable; 4 not verified\n',
      );
    } finally {
      await writer.close();
    }
  });
});

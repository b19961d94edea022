/**
 * `envelopes verify` on files it must not read whole, or not for long: a file
 * over --max-size (256 MB by default) is refused before it is read, in one
 * line naming the flag (exit 2), and the flag raises the bound; a device that
 * never ends is read no further than the bound; Ctrl-C and SIGTERM stop a
 * verification that cannot finish (a named pipe whose writer never closes it) with exit 130, in
 * process and as the built binary: nothing here depends on how fast the machine is. The
 * verification itself stops at its next turn once aborted, and the verifier's own bounds:
 * test/core/pades/bounds.test.ts.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, writeFileSync, ftruncateSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, startCommand } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/paths.js';
import { basePdf } from '../../../helpers/pdf-build.js';

const MB = 1024 * 1024;
const dir = tempDir('sign-cli-verify-bounds-');
// Nothing listens: verify without --envelope never calls the service.
const env = { SIGN_BASE_URL: 'http://127.0.0.1:9' };

describe('--max-size', () => {
  it('refuses a larger file before reading it, in one line naming the flag; the flag raises the bound', async () => {
    const file = join(dir, 'padded.pdf');
    writeFileSync(file, Buffer.concat([basePdf(), Buffer.alloc(2 * MB, 0x20)]));
    const refused = await runCommand(['envelopes', 'verify', file, '--max-size', '1'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^error: .*padded\.pdf: 2\.0 MB \(\d+ bytes\), over the 1 MB a signed document may have here .*raise the bound with --max-size 3$/,
      ),
    ]);
    // Under the bound it is read and verified: it has no signature (exit 1).
    const read = await runCommand(['envelopes', 'verify', file, '--max-size', '3'], { env });
    expect(read.code).toBe(1);
    expect(read.stdout).toContain('no signature in it');
  });

  it('is 256 MB by default: a larger file is refused at once, unread', async () => {
    // Sparse: 300 MB that take no room, and are never read.
    const file = join(dir, 'huge.pdf');
    const fd = openSync(file, 'w');
    writeFileSync(fd, basePdf());
    ftruncateSync(fd, 300 * MB);
    closeSync(fd);
    const refused = await runCommand(['envelopes', 'verify', file], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /huge\.pdf: 300 MB \(314572800 bytes\), over the 256 MB a signed document may have here .*--max-size 300\n$/,
    );
  });

  it('reads a device or a pipe no further than the bound', async () => {
    const zero = '/dev/zero';
    if (!existsSync(zero)) return;
    const refused = await runCommand(['envelopes', 'verify', zero, '--max-size', '1'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /\/dev\/zero: more than 1 MB, over the 1 MB a signed document may have here .*--max-size 2\n$/,
    );
  });

  it('is a whole number of MB', async () => {
    for (const value of ['0', '1.5', 'big']) {
      const result = await runCommand(['envelopes', 'verify', join(dir, 'none.pdf'), '--max-size', value], {
        env,
      });
      expect({ value, code: result.code }).toEqual({ value, code: 2 });
      expect(result.stderr).toContain(`--max-size ${value}: not a size in MB`);
    }
  });
});

describe('an interrupted verification', () => {
  /** A named pipe: a file whose reading ends only when its writer closes it. */
  function namedPipe(name: string): string {
    const path = join(dir, name);
    if (!existsSync(path)) execFileSync('mkfifo', [path]);
    return path;
  }
  /**
   * The pipe's write end, opened once the command has opened the read end, and never written to
   * nor closed: the command's read waits for bytes that never come, however fast the machine.
   * The function returned ends the pipe (the read left pending returns).
   */
  async function feed(path: string): Promise<() => Promise<void>> {
    const writer = await open(path, 'w');
    return () => writer.close();
  }

  it('stops on Ctrl-C while it reads a pipe that never ends, exit 130, in process', async () => {
    const pipe = namedPipe('endless-in-process.pdf');
    const run = startCommand(['envelopes', 'verify', pipe], { env });
    const close = await feed(pipe);
    try {
      // Most times the read is under way by now; whether or not, it cannot end by itself.
      await new Promise((resolve) => setTimeout(resolve, 100));
      run.interrupt();
      const result = await run.done;
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 130,
        stdout: '',
        stderr: expect.stringMatching(
          /interrupted while reading .*endless-in-process\.pdf; nothing was verified/,
        ),
      });
    } finally {
      await close();
    }
  });

  it.skipIf(process.platform === 'win32')(
    'stops on SIGTERM or SIGINT while it reads a pipe that never ends, exit 130, as the built binary',
    async () => {
      const { BIN, ROOT, cleanEnv } = await import('../../../helpers/cli.js');
      const pipe = namedPipe('endless-binary.pdf');
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        const child = spawn(process.execPath, [BIN, 'envelopes', 'verify', pipe], {
          cwd: ROOT,
          env: cleanEnv(env),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.stdout.resume();
        const closed = new Promise<{ code: number | null }>((resolve) =>
          child.on('close', (code) => resolve({ code })),
        );
        // Opened by the child: it is reading, and cannot finish until the pipe ends.
        const close = await feed(pipe);
        try {
          child.kill(signal);
          const result = await closed;
          expect({ signal, code: result.code, stderr }).toEqual({
            signal,
            code: 130,
            stderr: expect.stringMatching(
              /interrupted while reading .*endless-binary\.pdf; nothing was verified/,
            ),
          });
        } finally {
          await close();
        }
      }
    },
    60_000,
  );
});

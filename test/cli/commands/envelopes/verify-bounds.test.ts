/**
 * `envelopes verify` on files it must not read whole, or not for long: a file
 * over --max-size (256 MB by default) is refused before it is read, in one
 * line naming the flag (exit 2), and the flag raises the bound; a device that
 * never ends is read no further than the bound; Ctrl-C and SIGTERM stop a
 * verification of a large, slow file mid-way (exit 130), in process
 * and as the built binary. The verifier's own bounds: test/core/pades/bounds.test.ts.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, startCommand } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/paths.js';
import { basePdf } from '../../../helpers/pdf-build.js';

const MB = 1024 * 1024;
const dir = tempDir('sign-cli-verify-bounds-');
// Nothing listens: verify without --envelope never calls the service.
const env = { SIGN_BASE_URL: 'http://127.0.0.1:9' };

/**
 * A PDF followed by `megabytes` of cross-reference sections that read but make no revision,
 * each named by a startxref of its own: every one is tried, so the verification takes seconds
 * (and is refused at the end of its allowance).
 */
function slowPdf(megabytes: number): string {
  const file = join(dir, `slow-${megabytes}.pdf`);
  if (existsSync(file)) return file;
  const base = basePdf();
  const parts = [base.toString('latin1')];
  let at = base.length;
  while (at < megabytes * MB) {
    const chunk = `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 >>\nstartxref\n${at}\n%%EOF\n`;
    parts.push(chunk);
    at += chunk.length;
  }
  writeFileSync(file, parts.join(''), 'latin1');
  return file;
}

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
  it('stops on Ctrl-C mid-way, exit 130, in process', async () => {
    const file = slowPdf(8);
    const run = startCommand(['envelopes', 'verify', file], { env });
    await new Promise((resolve) => setTimeout(resolve, 300));
    run.interrupt();
    const result = await run.done;
    // Stopped mid-way (the whole verification takes seconds and ends in a refusal, exit 2); how soon
    // after the signal is measured, not asserted (the closing note's figures: 0.03 to 0.12 s).
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted: ');
    expect(result.stderr).toContain('was not verified');
  });

  /**
   * CPU seconds a process has used and its state letter (Linux: /proc/<pid>/stat, CPU in clock
   * ticks of 1/100 s); undefined once it is gone.
   */
  const procStat = (pid: number): { cpu: number; state: string } | undefined => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return undefined;
    }
    const fields = stat.replace(/^.*\) /, '').split(' ');
    return { cpu: (Number(fields[11]) + Number(fields[12])) / 100, state: fields[0]! };
  };

  it.skipIf(process.platform !== 'linux')(
    'stops on SIGTERM or SIGINT mid-way, exit 130, as the built binary',
    async () => {
      const { BIN, ROOT, cleanEnv } = await import('../../../helpers/cli.js');
      // About 4 s of work on a laptop, more on a loaded CI machine: the signal comes well inside it.
      const file = slowPdf(48);
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        const child = spawn(process.execPath, [BIN, 'envelopes', 'verify', file], {
          cwd: ROOT,
          env: cleanEnv(env),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.stdout.resume();
        const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
          child.on('close', (code, sig) => resolve({ code, signal: sig })),
        );
        let exited = false;
        void closed.then(() => (exited = true));
        // Signalled once it has been verifying for a while: a second of CPU is well past start-up and the read.
        // Bounded: a child that waits instead of working would otherwise hold the test to its timeout.
        const deadline = Date.now() + 30_000;
        let cpu = 0;
        while (!exited && cpu < 1 && Date.now() < deadline) {
          cpu = procStat(child.pid!)?.cpu ?? cpu;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(exited, `it ended before the signal: ${stderr}`).toBe(false);
        const state = procStat(child.pid!)?.state ?? '?';
        if (cpu < 1) child.kill('SIGKILL');
        expect(
          cpu,
          `after 30 s it had used ${cpu} s of CPU (state ${state}): ${stderr}`,
        ).toBeGreaterThanOrEqual(1);
        child.kill(signal);
        const result = await closed;
        // Stopped mid-way, not at the end of the work (which is a refusal, exit 2).
        expect({ signal, code: result.code, stderr }).toEqual({
          signal,
          code: 130,
          stderr: expect.stringMatching(/interrupted: .*slow-48\.pdf was not verified/),
        });
      }
    },
    60_000,
  );
});

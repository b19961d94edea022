/**
 * stdout and stderr written straight to their descriptor while they are a pipe or a file
 * (src/cli/launch/fd-stream.ts): real files and real pipes, and the built CLI whose reader went away
 * or whose output meets a full device.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fdStream } from '../../src/cli/launch/fd-stream.js';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';

/** A stand-in for process.stdout that records whether it was asked for. */
function realStreamProbe() {
  const asked: string[] = [];
  const listeners: string[] = [];
  const stream = {
    write: (chunk: string | Uint8Array) => {
      asked.push(String(chunk));
      return true;
    },
    on: (event: string) => {
      listeners.push(event);
      return stream;
    },
  };
  return { asked, listeners, make: () => stream as unknown as NodeJS.WriteStream };
}

describe('fdStream', () => {
  it('writes a file descriptor directly, in order, and never makes the real stream', async () => {
    const file = join(tempDir(), 'out.txt');
    const fd = openSync(file, 'w');
    const probe = realStreamProbe();
    let made = 0;
    const stream = fdStream(
      fd,
      () => {},
      () => (made++, probe.make()),
    );
    try {
      expect(stream.isTTY).toBe(false);
      expect(stream.columns).toBeUndefined();
      // A failed write is reported as it fails: the CLI need not wait a turn of the event loop to hear it.
      expect(stream.direct).toBe(true);
      stream.write('first ');
      stream.write(Buffer.from('second ✓\n'));
      await new Promise((resolve) => stream.write('', resolve));
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe('first second ✓\n');
    expect(made).toBe(0);
  });

  it('writes /dev/null directly too (where scripts and hyperfine send output), and never makes the real stream', async () => {
    const fd = openSync('/dev/null', 'w');
    const probe = realStreamProbe();
    let made = 0;
    try {
      const stream = fdStream(
        fd,
        () => {},
        () => (made++, probe.make()),
      );
      expect(stream.direct).toBe(true);
      stream.write('gone');
      await new Promise((resolve) => stream.write('', resolve));
    } finally {
      closeSync(fd);
    }
    expect(made).toBe(0);
    expect(probe.asked).toEqual([]);
  });

  it('hands anything that is neither a pipe, a file nor /dev/null (here /dev/zero, another device) to the real stream, with the error handler on it', () => {
    const fd = openSync('/dev/zero', 'w');
    const probe = realStreamProbe();
    try {
      const stream = fdStream(fd, () => {}, probe.make);
      expect(stream.direct).not.toBe(true);
      stream.write('to the real one');
    } finally {
      closeSync(fd);
    }
    expect(probe.asked).toEqual(['to the real one']);
    expect(probe.listeners).toEqual(['error']);
  });

  it('reports a failed write to the error handler instead of throwing, and still calls back', async () => {
    const file = join(tempDir(), 'read-only.txt');
    writeFileSync(file, '');
    const fd = openSync(file, 'r');
    const failed: string[] = [];
    try {
      const stream = fdStream(fd, (error) => failed.push(error.code ?? ''), realStreamProbe().make);
      let returned: boolean | undefined;
      const calledBack = new Promise((resolve) => {
        returned = stream.write('cannot be written', resolve);
      });
      expect(returned).toBe(true);
      await calledBack;
    } finally {
      closeSync(fd);
    }
    expect(failed).toEqual(['EBADF']);
  });
});

describe('the CLI writing to a pipe nobody reads', () => {
  it('ends quietly with its own exit code when stdout is closed (sign-cli … | head)', async () => {
    const child = spawn(process.execPath, [BIN, 'completion', 'bash'], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader goes away before the CLI has started: its first write meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) =>
      child.on('close', (status) => resolve(status)),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it.each([[['--version']], [['envelopes', 'sample']]])(
    '%j to a full device fails with one line, not a stack and not exit 0',
    async (args) => {
      const full = openSync('/dev/full', 'w');
      try {
        const child = spawn(process.execPath, [BIN, ...args], {
          env: cleanEnv(),
          stdio: ['ignore', full, 'pipe'],
        });
        let stderr = '';
        child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const code = await new Promise<number | null>((resolve) =>
          child.on('close', (status) => resolve(status)),
        );
        expect(code).toBe(1);
        expect(stderr).toMatch(
          /^error: could not write (the output )?to stdout: ENOSPC \(check the file or device it goes to[^\n]*\)\n$/,
        );
      } finally {
        closeSync(full);
      }
    },
  );
});

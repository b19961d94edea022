/**
 * globalSetup of both suites: the run gets a TMPDIR of its own, removed at the
 * end, so the temp dirs, sockets and compile caches that tests and the
 * processes they spawn make are never left behind in the machine's TMPDIR.
 * Workers and their children start after this runs, so they inherit it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function usePrivateTmpdir(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-tests-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}

export default function setup(): () => void {
  return usePrivateTmpdir();
}

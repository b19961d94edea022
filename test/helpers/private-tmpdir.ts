/**
 * globalSetup of both suites: the run gets a TMPDIR of its own, removed at the
 * end, so the temp dirs, sockets and compile caches that tests and the
 * processes they spawn make are never left behind in the machine's TMPDIR.
 * Workers and their children start after this runs, so they inherit it. At
 * the end it says what was left in the machine's TMPDIR all the same
 * (something written around it): CI runs each suite with a fresh TMPDIR and
 * fails when anything is left.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Sets the private TMPDIR; the returned function removes it and returns the names left in the outer one. */
export function usePrivateTmpdir(): () => string[] {
  const outer = tmpdir();
  const before = new Set(readdirSync(outer));
  const dir = mkdtempSync(join(outer, 'sign-cli-tests-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    // vitest's module runner keeps its transforms in `<random>/ssr` under the TMPDIR it started
    // with, and removes it when it exits: not left behind, so not counted.
    return readdirSync(outer).filter((name) => !before.has(name) && !existsSync(join(outer, name, 'ssr')));
  };
}

export default function setup(): () => void {
  const finish = usePrivateTmpdir();
  return () => {
    const left = finish();
    if (left.length > 0) process.stderr.write(`\nleft in TMPDIR by the run: ${left.join(', ')}\n`);
  };
}

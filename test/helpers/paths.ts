/** Where things are, for every test: the repository, the built launcher, a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'sign-cli.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function tempDir(prefix = 'sign-cli-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

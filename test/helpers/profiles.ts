/** A config directory of a test's own, and the checks the keys and config tests share. */
import { join } from 'node:path';
import { expect } from 'vitest';
import { tempDir, type CliResult } from './paths.js';

/** A fresh SIGN_CONFIG_DIR: its path, the env that selects it, and its config.json. */
export function withConfig() {
  const dir = tempDir('sign-cli-keys-');
  return { dir, env: { SIGN_CONFIG_DIR: dir }, file: join(dir, 'config.json') };
}

/** Every output of a run, for scanning: a key must never appear in full, nor its hidden middle. */
export function expectNoKey(results: CliResult[], key: string): void {
  const hidden = key.slice(8, -4);
  for (const r of results) {
    expect(r.stdout + r.stderr).not.toContain(key);
    expect(r.stdout + r.stderr).not.toContain(hidden);
  }
}

/** The UTC date `offsetDays` from today, as YYYY-MM-DD. */
export const isoDay = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

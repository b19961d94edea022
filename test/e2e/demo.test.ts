/**
 * `npm run demo` (scripts/demo.mjs) as a person sees it: its output and the
 * CLI's, stdout and stderr, in one stream as on a terminal, in the order
 * they were written. The audit trail's ✓ comes after its table, not inside it.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/paths.js';

/** Runs the demo with stdout and stderr on one file, as a terminal shows both; resolves with its code and what it wrote. */
function runDemo(): Promise<{ code: number | null; output: string }> {
  const file = join(tempDir('sign-cli-demo-test-'), 'output.txt');
  const fd = openSync(file, 'w');
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', SIGN_DEMO_LISTEN_PORT: '0' };
  for (const name of Object.keys(env))
    if (name.startsWith('SIGN_') && name !== 'SIGN_DEMO_LISTEN_PORT') delete env[name];
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'demo.mjs')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', fd, fd],
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      closeSync(fd);
      resolve({ code, output: readFileSync(file, 'utf8') });
    }),
  );
}

describe('npm run demo', () => {
  it('prints its lines in order: the audit trail verified after its table', async () => {
    const { code, output } = await runDemo();
    expect(code, output).toBe(0);
    const lines = output.split('\n');
    const header = lines.findIndex((line) => line.startsWith('# The audit trail'));
    const verified = lines.findIndex((line) => /^✓ audit trail of env_\w+ verified: \d+ entries/.test(line));
    const next = lines.findIndex((line) => line.startsWith('# Every envelope'));
    expect(header, output).toBeGreaterThan(0);
    expect(verified, output).toBeGreaterThan(header);
    expect(next, output).toBeGreaterThan(verified);
    // Between the step and its ✓: the command, the table's head, then one row per entry, numbered.
    const table = lines.slice(header + 1, verified).filter((line) => !line.startsWith('  ⇢ '));
    expect(table[0]).toMatch(/^\$ sign-cli envelopes audit env_\w+ --verify$/);
    expect(table[1]).toMatch(/^#\s+TIME\s+EVENT/);
    expect(table.slice(2).length).toBeGreaterThan(5);
    for (const row of table.slice(2)) expect(row, output).toMatch(/^\d+\s+\d{4}-\d\d-\d\d /);
    // And no row of it after the ✓.
    expect(lines.slice(verified + 1, next).filter((line) => /^\d+\s+\d{4}-\d\d-\d\d /.test(line))).toEqual(
      [],
    );
  }, 240_000);
});

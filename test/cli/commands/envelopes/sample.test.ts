/** `envelopes sample`: a valid envelope to start from, and n distinct ones for a bulk create. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand } from '../../../helpers/in-process.js';
import { ROOT } from '../../../helpers/cli.js';

describe('envelopes sample', () => {
  it('prints the example envelope, valid as it is; indented on a terminal, compact in a pipe', async () => {
    const piped = await runCommand(['envelopes', 'sample']);
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout)).toEqual(JSON.parse(readFileSync(EXAMPLE, 'utf8')));
    expect((await runCommand(['envelopes', 'validate', '-'], { input: piped.stdout })).code).toBe(0);
    const tty = await runCommand(['envelopes', 'sample'], { tty: true });
    expect(JSON.parse(tty.stdout)).toEqual(JSON.parse(piped.stdout));
    expect(tty.stdout.split('\n').length).toBeGreaterThan(5);
  });

  it('--count n prints n distinct envelopes as NDJSON; 0 or a word is exit 2', async () => {
    const batch = await runCommand(['envelopes', 'sample', '--count', '3']);
    const lines = batch.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { contract_id: string });
    expect(new Set(lines.map((l) => l.contract_id)).size).toBe(3);
    expect((await runCommand(['envelopes', 'validate', '--ndjson', '-'], { input: batch.stdout })).code).toBe(
      0,
    );
    expect((await runCommand(['envelopes', 'sample', '--count', '0'])).code).toBe(2);
    expect((await runCommand(['envelopes', 'sample', '--count', 'many'])).code).toBe(2);
  });

  it('--csv and --template print the spreadsheet pair of examples/, valid together; one choice at a time', async () => {
    const csv = await runCommand(['envelopes', 'sample', '--csv']);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe(readFileSync(join(ROOT, 'examples', 'recipients.csv'), 'utf8'));
    const template = await runCommand(['envelopes', 'sample', '--template']);
    expect(template.stdout).toBe(readFileSync(join(ROOT, 'examples', 'template.json'), 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'sign-cli-sample-'));
    try {
      writeFileSync(join(dir, 'recipients.csv'), csv.stdout);
      writeFileSync(join(dir, 'template.json'), template.stdout);
      const checked = await runCommand([
        'envelopes',
        'validate',
        '--csv',
        join(dir, 'recipients.csv'),
        '--template',
        join(dir, 'template.json'),
        '--json',
      ]);
      expect(checked.code, checked.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const both = await runCommand(['envelopes', 'sample', '--csv', '--count', '2']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--count and --csv: give one of them');
  });
});

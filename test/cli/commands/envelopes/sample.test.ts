/** `envelopes sample`: a valid envelope to start from, and n distinct ones for a bulk create. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand } from '../../../helpers/in-process.js';

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
    const lines = batch.stdout.trim().split('\n').map((l) => JSON.parse(l) as { contract_id: string });
    expect(new Set(lines.map((l) => l.contract_id)).size).toBe(3);
    expect((await runCommand(['envelopes', 'validate', '--ndjson', '-'], { input: batch.stdout })).code).toBe(0);
    expect((await runCommand(['envelopes', 'sample', '--count', '0'])).code).toBe(2);
    expect((await runCommand(['envelopes', 'sample', '--count', 'many'])).code).toBe(2);
  });
});

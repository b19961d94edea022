/**
 * `journal show`, in process against an in-process sandbox: a file journal's inputs, named by
 * the journal's id or a unique prefix of it.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { ndjsonOf, type ListedJournal } from '../../../helpers/journal-commands.js';

let sandbox: TestSandbox;
let sample: Record<string, unknown>;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  sample = JSON.parse((await runCommand(['envelopes', 'sample'])).stdout) as Record<string, unknown>;
});
afterAll(async () => {
  await sandbox?.stop();
});

const ndjson = (tag: string, n: number) => ndjsonOf(sample, tag, n);

describe('journal show', () => {
  it('shows each input of a journal named by its id or a unique prefix; an unknown id is exit 2', async () => {
    const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir('sign-cli-state-') };
    const file = ndjson('files', 3);
    expect((await runCommand(['envelopes', 'create', '--ndjson', '-f', file], { env })).code).toBe(0);

    const [journal] = JSON.parse(
      (await runCommand(['journal', 'list', '--json'], { env })).stdout,
    ) as ListedJournal[];
    // A unique prefix names it; each input with its envelope and key.
    const show = await runCommand(['journal', 'show', journal!.id.slice(0, 8), '--json'], { env });
    expect(show.code).toBe(0);
    const entries = JSON.parse(show.stdout) as {
      ref: string;
      state: string;
      envelope_id: string;
      key: string;
    }[];
    expect(entries.map((e) => e.ref)).toEqual([1, 2, 3].map((n) => `${file}:${n}`));
    expect(entries.every((e) => e.state === 'created' && e.envelope_id.startsWith('env_'))).toBe(true);
    expect(entries.every((e) => e.key.startsWith('sc1-'))).toBe(true);
    const shown = await runCommand(['journal', 'show', journal!.id], { env });
    expect(shown.stdout).toContain(entries[0]!.envelope_id);

    // Unknown, and a prefix too short to name one.
    for (const bad of [
      ['journal', 'show', 'nope'],
      ['journal', 'show', journal!.id.slice(0, 3)],
    ]) {
      const refused = await runCommand(bad, { env });
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('skips lines of a journal file no run wrote, each with a warning naming file and line, and shows the rest on one line each', async () => {
    const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir('sign-cli-state-') };
    const file = ndjson('junk', 2);
    expect((await runCommand(['envelopes', 'create', '--ndjson', '-f', file], { env })).code).toBe(0);
    const [journal] = JSON.parse(
      (await runCommand(['journal', 'list', '--json'], { env })).stdout,
    ) as (ListedJournal & {
      location: string;
    })[];
    const path = journal!.location;
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
    appendFileSync(
      path,
      [
        JSON.stringify({
          id: 'x1',
          ref: 'a.json',
          key: 'k1',
          state: 'created',
          envelope_id: { id: 'env_1' },
        }),
        'not json',
        JSON.stringify({ id: 'x2', ref: 'b.json', key: 'k2', state: 'bogus' }),
        JSON.stringify({
          id: 'x3',
          ref: 'c.json\nenv_FORGED  created',
          key: 'k3',
          state: 'failed',
          error: 'HTTP 422\r\nfake',
        }),
        '',
      ].join('\n'),
    );
    const list = await runCommand(['journal', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ inputs: 3, states: { created: 2, failed: 1 } });
    const show = await runCommand(['journal', 'show', journal!.id], { env });
    expect(show.code).toBe(0);
    expect(show.stderr.trim().split('\n').sort()).toEqual(
      [
        `warning: skipped ${path}:${lines + 1}: its envelope_id is not a string`,
        `warning: skipped ${path}:${lines + 2}: not JSON`,
        `warning: skipped ${path}:${lines + 3}: its state is not created, sending, unknown or failed`,
      ].sort(),
    );
    const rows = show.stdout.trim().split('\n');
    expect(rows).toHaveLength(1 + 3);
    expect(rows.at(-1)).toMatch(/^c\.json\\nenv_FORGED created\s+failed\s+k3\s+HTTP 422\\nfake$/);
  });
});

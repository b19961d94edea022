/**
 * `journal show`, in process against an in-process sandbox: a file journal's inputs, named by
 * the journal's id or a unique prefix of it.
 */
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
});

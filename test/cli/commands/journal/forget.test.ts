/**
 * `journal forget`, in process against an in-process sandbox: by id or age, `--yes` where
 * nobody can be asked, and what forgetting means (the inputs go out again; the service's
 * memory of their keys is then all that stands in the way).
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

describe('journal forget', () => {
  it('forgets by id or age, asking for --yes where nobody can answer; forgotten, the inputs go out again', async () => {
    const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir('sign-cli-state-') };
    const file = ndjson('files', 3);
    expect((await runCommand(['envelopes', 'create', '--ndjson', '-f', file], { env })).code).toBe(0);

    const [journal] = JSON.parse(
      (await runCommand(['journal', 'list', '--json'], { env })).stdout,
    ) as ListedJournal[];
    for (const bad of [
      ['journal', 'forget'],
      ['journal', 'forget', '--older-than', 'soon'],
      ['journal', 'forget', 'nope', '--yes'],
    ]) {
      const refused = await runCommand(bad, { env });
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    }
    // Nobody to ask: --yes is needed, and nothing is forgotten without it.
    const unasked = await runCommand(['journal', 'forget', journal!.id], { env });
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain('--yes');
    expect(JSON.parse((await runCommand(['journal', 'list', '--json'], { env })).stdout)).toHaveLength(1);
    // Nothing older than a day.
    const young = await runCommand(['journal', 'forget', '--older-than', '1d', '--yes'], { env });
    expect(young.stderr).toContain('nothing to forget');

    const forgot = await runCommand(['journal', 'forget', journal!.id, '--yes'], { env });
    expect(forgot.code).toBe(0);
    expect(forgot.stderr).toContain('forgot 1 journal (3 inputs)');
    expect(JSON.parse((await runCommand(['journal', 'list', '--json'], { env })).stdout)).toEqual([]);
    // Forgotten, the inputs go out again: the service still knows their derived keys, so none is new.
    const before = await sandbox.envelopeCount();
    const again = await runCommand(['envelopes', 'create', '--ndjson', '-f', file, '--json'], { env });
    expect(again.code).toBe(0);
    const lines = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { skipped?: boolean; already_created: boolean });
    expect(lines.every((l) => l.already_created && !l.skipped)).toBe(true);
    expect(await sandbox.envelopeCount()).toBe(before);
  });
});

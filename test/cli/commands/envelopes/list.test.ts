/** `envelopes list`, in process against an in-process sandbox: paging, filters, the table, JSON lines. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, workspace } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
/** Envelope id by contract id: bulk output comes in completion order, not input order. */
let idOf: Map<string, string>;
const work = workspace('sign-cli-list-');
const requests = async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;

beforeAll(async () => {
  sandbox = await startTestSandbox({ faults: { rate_limit: 100_000 } });
  env = sandbox.env;
  // 250 envelopes in one bulk run: three pages of 100.
  const lines = Array.from({ length: 250 }, (_, i) =>
    JSON.stringify({ ...example(), contract_id: `LIST-${String(i).padStart(4, '0')}` }),
  );
  const file = join(work.dir, 'many.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const created = await runCommand(
    [
      'envelopes',
      'create',
      '--ndjson',
      '-f',
      file,
      '--rate',
      '60000',
      '--concurrency',
      '16',
      '--query',
      '[envelope.contract_id, envelope.id]',
    ],
    { env },
  );
  expect(created.code).toBe(0);
  idOf = new Map(
    created.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as [string, string]),
  );
  expect(new Set(idOf.values()).size).toBe(250);
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes list', () => {
  it('--all follows the cursor: every envelope once, newest first', async () => {
    const result = await runCommand(['envelopes', 'list', '--all', '--json'], { env });
    expect(result.code).toBe(0);
    const listed = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; created_at: string });
    expect(listed).toHaveLength(250);
    expect(new Set(listed.map((e) => e.id))).toEqual(new Set(idOf.values()));
    for (let i = 1; i < listed.length; i++)
      expect(listed[i - 1]!.created_at >= listed[i]!.created_at).toBe(true);
    expect(listed.findIndex((e) => e.id === idOf.get('LIST-0249'))).toBeLessThan(
      listed.findIndex((e) => e.id === idOf.get('LIST-0000')),
    );
  });

  it('in a pipe: 20 by default as a table, nothing cut, and says how to see more', async () => {
    const result = await runCommand(['envelopes', 'list'], { env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+SIGNED\s+CREATED\s+CONTRACT\s+TITLE$/);
    expect(lines).toHaveLength(21);
    expect(lines[1]).toMatch(
      /^env_\w+\s+(sent|completed)\s+\d\/2\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z\s+\S+\s+Office lease renewal 2027$/,
    );
    expect(result.stderr).toContain('showing the newest 20; more with --limit <n>, or every one with --all');
  });

  it('on a terminal: the title is cut with …, never the id, the time or the contract id (stacked at 80 columns)', async () => {
    const wide = await runCommand(['envelopes', 'list', '--limit', '3'], { env, tty: true, columns: 100 });
    expect(wide.code).toBe(0);
    for (const row of wide.stdout.trimEnd().split('\n').slice(1)) {
      expect(row.length).toBeLessThanOrEqual(100);
      expect(row).toMatch(
        /^env_\w+ .* \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z {2}LIST-\d{4} {2}Office lease.*…$/,
      );
    }
    const narrow = await runCommand(['envelopes', 'list', '--limit', '3'], { env, tty: true, columns: 80 });
    for (const line of narrow.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(narrow.stdout.match(/^contract: +LIST-\d{4}$/gm)).toHaveLength(3);
  });

  it('--limit crosses pages; --contract-id and --status filter', async () => {
    const limited = await runCommand(['envelopes', 'list', '--limit', '150', '--json', '--query', 'id'], {
      env,
    });
    expect(limited.stdout.trim().split('\n')).toHaveLength(150);
    const one = await runCommand(
      ['envelopes', 'list', '--contract-id', 'LIST-0007', '--json', '--query', 'id'],
      { env },
    );
    expect(one.stdout).toBe(`${idOf.get('LIST-0007')}\n`);
    const exact = await runCommand(['envelopes', 'list', '--contract-id', 'LIST-0007', '--limit', '1'], {
      env,
    });
    expect(exact.stdout.trim().split('\n')).toHaveLength(2);
    expect(exact.stderr).toBe('');
    const sent = await runCommand(
      [
        'envelopes',
        'list',
        '--status',
        'sent,voided',
        '--status',
        'failed',
        '--all',
        '--json',
        '--query',
        'status',
      ],
      { env },
    );
    expect(sent.code).toBe(0);
    for (const status of sent.stdout.trim().split('\n').filter(Boolean))
      expect(['sent', 'voided', 'failed']).toContain(status);
  });

  it('--since takes a duration or a date; a bad one, or a state that is not one, is exit 2 with nothing sent', async () => {
    const recent = await runCommand(
      ['envelopes', 'list', '--since', '1h', '--limit', '5', '--json', '--query', 'id'],
      { env },
    );
    expect(recent.stdout.trim().split('\n')).toHaveLength(5);
    const future = await runCommand(['envelopes', 'list', '--since', '2999-01-01'], { env });
    expect(future.code).toBe(0);
    expect(future.stdout).toBe('');
    expect(future.stderr).toContain('no envelopes match');
    const before = await requests();
    const bad = await runCommand(['envelopes', 'list', '--since', 'yesterday'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --since must be a date .* got "yesterday"\n$/);
    const both = await runCommand(['envelopes', 'list', '--all', '--limit', '5'], { env });
    expect(both.code).toBe(2);
    const status = await runCommand(['envelopes', 'list', '--status', 'complete'], { env });
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('did you mean completed?');
    expect(await requests()).toBe(before + 1);
  });
});

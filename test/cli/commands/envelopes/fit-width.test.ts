/**
 * Human output at 80 and 120 columns, in process against an in-process
 * sandbox: every line fits the terminal, ids, contract ids and times whole,
 * and a title or a signer name built to wrap into a line of its own (a run of
 * spaces, then `status: completed` or a fake time) stays on its own line,
 * collapsed and cut. Pipes are never cut, but runs of spaces collapse.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, workspace } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

const FAKE_EVENT = '2026-11-25 13:05:00Z  envelope.completed  env_Zq9FAKEFAKEFAKEFAKE00';
let sandbox: TestSandbox;
const work = workspace('sign-cli-fit-');
/** Envelope ids by contract id. */
const ids = new Map<string, string>();

/** The rows a terminal `width` wide shows for this output (a character a column: the text here is ASCII but … and ✓). */
const screen = (text: string, width: number): string[] =>
  text
    .trimEnd()
    .split('\n')
    .flatMap((line) =>
      [...line].length === 0 ? [''] : ([...line].join('').match(new RegExp(`(?:.){1,${width}}`, 'gu')) ?? []),
    );
const linesOf = (text: string) => text.trimEnd().split('\n');

const forgedTitle = (width: number) => `Lease${' '.repeat(width - 24)}status: completed`;

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40 });
  const base = example();
  const signers = base.signers as Record<string, unknown>[];
  const envelopes = [
    {
      ...base,
      contract_id: 'EMP-2027-0042',
      title: 'Employment contract for the new regional operations manager, Dubai office',
    },
    { ...base, contract_id: 'EMP-FORGED-080', title: forgedTitle(80) },
    {
      ...base,
      contract_id: 'EMP-FORGED-120',
      title: forgedTitle(120),
      signers: [{ ...signers[0], name: `Omar${' '.repeat(42)}${FAKE_EVENT}` }, ...signers.slice(1)],
    },
  ];
  const file = join(work.dir, 'three.ndjson');
  writeFileSync(file, `${envelopes.map((e) => JSON.stringify(e)).join('\n')}\n`);
  const created = await runCommand(
    ['envelopes', 'create', '--ndjson', '-f', file, '--query', '[envelope.contract_id, envelope.id]'],
    { env: sandbox.env },
  );
  expect(created.code, created.stderr).toBe(0);
  for (const line of linesOf(created.stdout)) {
    const [contract, id] = JSON.parse(line) as [string, string];
    ids.set(contract, id);
  }
  // The journey to its end: the audit trail holds the signers' names.
  await runCommand(['envelopes', 'watch', ids.get('EMP-FORGED-120')!, '--interval', '0.1', '--json'], {
    env: sandbox.env,
  });
});
afterAll(async () => {
  await sandbox?.stop();
});

describe.each([80, 120])('at %i columns', (width) => {
  it('envelopes get: a title padded to the width shows no second status line', async () => {
    const id = ids.get(`EMP-FORGED-${width === 80 ? '080' : '120'}`)!;
    const result = await runCommand(['envelopes', 'get', id], {
      env: sandbox.env,
      tty: true,
      columns: width,
    });
    expect(result.code).toBe(0);
    for (const line of linesOf(result.stdout)) expect([...line].length, line).toBeLessThanOrEqual(width);
    // No line wraps, so every `status:` on the screen is one of ours: the envelope's, then each signer's when they are stacked.
    expect(screen(result.stdout, width)).toHaveLength(linesOf(result.stdout).length);
    expect(linesOf(result.stdout).filter((line) => line.startsWith('status:'))[0]).toMatch(/^status: +\w+$/);
    expect(result.stdout).toMatch(/^title: +Lease status: /m);
    expect(result.stdout).toMatch(new RegExp(`^id: +${id}$`, 'm'));
    expect(result.stdout).toMatch(/^contract_id: +EMP-FORGED-\d+$/m);
    expect(result.stdout).toMatch(/^created_at: +\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/m);
  });

  it('envelopes audit: a signer name built to wrap into a fake event starts no line of its own', async () => {
    const result = await runCommand(['envelopes', 'audit', ids.get('EMP-FORGED-120')!], {
      env: sandbox.env,
      tty: true,
      columns: width,
    });
    expect(result.code).toBe(0);
    for (const line of linesOf(result.stdout)) expect([...line].length, line).toBeLessThanOrEqual(width);
    expect(screen(result.stdout, width).filter((row) => row.startsWith('2026-11-25 13:05:00Z'))).toEqual([]);
    expect(result.stdout).not.toMatch(/Omar {2}/);
  });

  it('envelopes list: contract ids and times whole, only titles cut', async () => {
    const result = await runCommand(['envelopes', 'list'], { env: sandbox.env, tty: true, columns: width });
    expect(result.code).toBe(0);
    for (const line of linesOf(result.stdout)) expect([...line].length, line).toBeLessThanOrEqual(width);
    for (const contract of ids.keys())
      expect(result.stdout).toMatch(new RegExp(`(^|\\s)${contract}(\\s|$)`, 'm'));
    for (const id of ids.values()) expect(result.stdout).toContain(id);
    expect(screen(result.stdout, width)).toHaveLength(linesOf(result.stdout).length);
    expect(result.stdout).toContain('…');
  });

  it('envelopes create: one line per envelope within the width, each id whole; the title cut', async () => {
    const base = example();
    const file = join(work.dir, `create-${width}.ndjson`);
    const contracts = ['EMP-2028-0001', 'EMP-2028-0002'].map((c) => `${c}-${width}`);
    writeFileSync(
      file,
      `${contracts.map((contract_id) => JSON.stringify({ ...base, contract_id, title: `A title far too long for one line ${'of a terminal '.repeat(8)}` })).join('\n')}\n`,
    );
    const result = await runCommand(['envelopes', 'create', '--ndjson', '-f', file], {
      env: sandbox.env,
      tty: true,
      columns: width,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = linesOf(result.stdout);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect([...line].length, line).toBeLessThanOrEqual(width);
      expect(line).toMatch(/^✓ created env_\w{20} in test from .*: "A title.*…/);
    }
    // Again: already created, the id whole, still within the width; what happened said whole, on
    // a second line (indented) when the first cannot hold it.
    const again = await runCommand(['envelopes', 'create', '--ndjson', '-f', file], {
      env: sandbox.env,
      tty: true,
      columns: width,
    });
    for (const line of linesOf(again.stdout)) expect([...line].length, line).toBeLessThanOrEqual(width);
    const reports = again.stdout.split(/\n(?! )/).filter(Boolean);
    expect(reports).toHaveLength(2);
    for (const report of reports)
      expect(report.replace(/\n +/g, ' ')).toMatch(
        /^= \S*create-\d+\.ndjson:\d: already created env_\w{20} in test.*; the service recognised it, nothing new was created \(--new creates another\)$/,
      );
  });

  it('envelopes watch: the live block fits without cutting an id, a time or our own words', async () => {
    const id = ids.get('EMP-2027-0042')!;
    const result = await runCommand(['envelopes', 'watch', id, '--interval', '0.1'], {
      env: sandbox.env,
      tty: true,
      columns: width,
    });
    expect(result.code).toBe(0);
    const drawn = result.stdout
      .split('\u001b[2K')
      .slice(1)
      .map((line) => line.replace(/\n.*$/s, ''));
    for (const line of drawn) expect([...line].length, line).toBeLessThan(width);
    expect(drawn.some((line) => line.startsWith(`✓ ${id}  Employment contract`))).toBe(true);
    expect(
      drawn.filter((line) =>
        /^ {2}checked \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ · every 0\.1 s, slower while quiet · Ctrl-C stops$/.test(
          line,
        ),
      ).length,
    ).toBeGreaterThan(0);
  });
});

describe('in a pipe', () => {
  it('nothing is cut, but a run of spaces in a title is one space', async () => {
    const result = await runCommand(['envelopes', 'get', ids.get('EMP-FORGED-120')!], { env: sandbox.env });
    expect(result.stdout).toMatch(/^title: +Lease status: completed$/m);
    expect(result.stdout).toContain(`Omar ${FAKE_EVENT.replace(/ {2}/g, ' ')}`);
    const json = await runCommand(
      ['envelopes', 'get', ids.get('EMP-FORGED-120')!, '--json', '--query', 'title'],
      { env: sandbox.env },
    );
    expect(json.stdout).toBe(`${forgedTitle(120)}\n`);
  });

  it('the listing footer, the prompt intro and the watch footer are within 80 columns', async () => {
    const listed = await runCommand(['envelopes', 'list', '--limit', '1'], {
      env: sandbox.env,
      tty: true,
      columns: 80,
    });
    const footer = linesOf(listed.stderr).find((line) => line.startsWith('showing the newest'))!;
    expect(footer).toBe('showing the newest 1; more with --limit <n>, or every one with --all');
    expect(`showing the newest 10,000; more with --limit <n>, or every one with --all`.length).toBeLessThan(
      80,
    );
  });
});

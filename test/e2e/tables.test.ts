/**
 * One face for every table, at the widths people have: each table-drawing
 * command of the built CLI in a real terminal (tmux) 80 and 120 columns wide.
 * No line is wider than the terminal (capture-pane -J joins wrapped lines, so
 * a wrapped row shows as one long line), no borders, UPPER CASE heads or the
 * stacked `label: value` form, one time format, and the values a person reads
 * by (ids, names, key masks, times, types, errors) whole.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { sourcedEnv } from '../helpers/terminal-env.js';

const SESSION = `sign-cli-tables-${process.pid}`;
// A tmux server of this file's own (its socket in the run's TMPDIR): files running at the same time
// each kill their sessions, and a shared default server exits under another file's new-session.
const TMUX = ['-S', join(tempDir('sign-cli-tables-tmux-'), 'socket')];
const tmux = (...args: string[]) => execFileSync('tmux', [...TMUX, ...args], { encoding: 'utf8' });
const TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/;
const BOX = /[│┌┐└┘├┤┬┴┼─]/;

let sandbox: SandboxProcess;
let env: Record<string, string>;
let completed: string;
let arabic: string;
let failedEvent: string;
let refusedError: string;

const run = (args: string[], input?: string) =>
  execFileSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
  });

beforeAll(async () => {
  // A session that outlives the tests': killing a test's session never leaves the server without
  // one, so it does not exit under the next test's new-session ("server exited unexpectedly").
  tmux('new-session', '-d', '-s', `anchor-${process.pid}`, 'sleep 3600');
  sandbox = await startSandboxProcess({ args: ['--speed', '60'] });
  env = {
    SIGN_CONFIG_DIR: tempDir(),
    SIGN_STATE_DIR: tempDir(),
    SIGN_BASE_URL: sandbox.baseUrl,
    SIGN_API_KEY: sandbox.apiKey,
    NO_COLOR: '1',
  };
  run(['keys', 'add', 'sbx', '--stdin'], sandbox.apiKey);
  run(
    ['keys', 'add', 'laptop-with-a-long-name', '--stdin', '--offline', '--expires', '2027-11-23'],
    'sk_live_LocalOnlyKeyForTables0042',
  );
  const sample = JSON.parse(run(['envelopes', 'sample'])) as Record<string, unknown>;
  // Its events go to a port nobody listens on: failed deliveries whose error is a long one.
  completed = run(
    ['envelopes', 'create', '-f', '-', '--query', 'envelope.id'],
    JSON.stringify({ ...sample, contract_id: 'CTR-TABLES-0001', webhook_url: 'http://127.0.0.1:9/hooks' }),
  ).trim();
  arabic = run(
    ['envelopes', 'create', '-f', '-', '--query', 'envelope.id'],
    JSON.stringify({
      ...sample,
      title: 'عقد إيجار مكتب في دبي للعام 2027 مع التجديد',
      contract_id: 'CTR-TABLES-0002',
    }),
  ).trim();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const deliveries = run(['webhooks', 'deliveries', '--envelope', completed, '--json'])
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(
        (l) =>
          JSON.parse(l) as { event_id: string; last_error?: string; attempts: { error: string | null }[] },
      );
    const failing = deliveries.find((d) => d.attempts.some((a) => a.error));
    const status = (JSON.parse(run(['envelopes', 'get', completed, '--json'])) as { status: string }).status;
    if (failing && status === 'completed') {
      failedEvent = failing.event_id;
      refusedError = failing.attempts.at(-1)!.error ?? failing.attempts.find((a) => a.error)!.error!;
      break;
    }
    if (Date.now() > deadline)
      throw new Error('the envelope did not complete with a failed delivery in time');
    await new Promise((r) => setTimeout(r, 200));
  }
});

afterAll(async () => {
  spawnSync('tmux', [...TMUX, 'kill-server']);
  await sandbox?.stop();
});

/** The screen after `args` ran in a terminal `width` columns wide, wrapped lines joined. */
async function atWidth(width: number, args: string[]): Promise<string[]> {
  const session = `${SESSION}-${width}`;
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    String(width),
    '-y',
    '50',
    `cd ${ROOT} && ${sourcedEnv(env, { unsetCi: true })}${process.execPath} ${BIN} ${args.join(' ')}; echo "EXIT=$?"; sleep 60`,
  );
  try {
    const deadline = Date.now() + 60_000;
    let shown = '';
    while (!/EXIT=\d/.test((shown = tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-200')))) {
      if (Date.now() > deadline) throw new Error(`did not finish; screen:\n${shown}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(shown, args.join(' ')).toContain('EXIT=0');
    return shown
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l !== '' && !l.startsWith('EXIT='));
  } finally {
    spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
  }
}

/** What every table shows at every width: fits, no borders, and its read-by values whole. */
function oneFace(
  lines: string[],
  width: number,
  layout: 'table' | 'stacked',
  heads: string[],
  whole: string[],
): void {
  const text = lines.join('\n');
  expect(
    lines.filter((l) => [...l].length > width),
    text,
  ).toEqual([]);
  expect(text).not.toMatch(BOX);
  if (layout === 'table')
    expect(
      lines.find((l) => l.startsWith(heads[0]!)),
      text,
    ).toMatch(new RegExp(`^${heads.join('\\s+')}$`));
  else for (const head of heads) expect(text).toMatch(new RegExp(`^${head.toLowerCase()}:\\s`, 'm'));
  for (const value of whole) expect(text, `${value} whole`).toContain(value);
  // One time format: no ISO T-times, no bare clock times.
  expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
  expect(text).not.toMatch(/(?<![\d:-])\d\d:\d\d:\d\d(?!Z)/);
}

describe.each([80, 120])('at %i columns', (width) => {
  it('keys list: every key stacked rather than a cut date or scope', async () => {
    const lines = await atWidth(width, ['keys', 'list']);
    oneFace(
      lines,
      width,
      'stacked',
      ['NAME', 'ENV', 'KEY', 'LAST USED', 'EXPIRES', 'SCOPES', 'SOURCE'],
      [
        'laptop-with-a-long-name',
        `sk_test_****${sandbox.apiKey.slice(-4)}`,
        'sk_live_****0042',
        '2027-11-23',
        'envelopes:write envelopes:read contracts:read audit:read',
      ],
    );
    expect(lines.join('\n')).toMatch(new RegExp(`^last used:\\s+${TIME.source}$`, 'm'));
  });

  it('webhooks deliveries: ids, type, state, the whole error and the time', async () => {
    const lines = await atWidth(width, ['webhooks', 'deliveries', '--envelope', completed, '--failed']);
    oneFace(
      lines,
      width,
      'stacked',
      ['EVENT', 'TYPE', 'ENVELOPE', 'STATE', 'ATTEMPTS', 'LAST RESULT', 'LAST ATTEMPT', 'URL'],
      [completed, refusedError],
    );
    expect(lines.join('\n')).toMatch(new RegExp(`^last attempt:\\s+${TIME.source}$`, 'm'));
    const all = await atWidth(width, ['webhooks', 'deliveries', '--envelope', completed, '--all']);
    expect(all.join('\n')).toContain(failedEvent);
  });

  it('envelopes list: only the title gives way, never the contract id; stacked at 80, a table at 120', async () => {
    const lines = await atWidth(width, ['envelopes', 'list']);
    oneFace(
      lines,
      width,
      width === 80 ? 'stacked' : 'table',
      ['ID', 'STATUS', 'SIGNED', 'CREATED', 'CONTRACT', 'TITLE'],
      [completed, arabic, 'CTR-TABLES-0001', 'CTR-TABLES-0002'],
    );
    if (width === 120)
      expect(lines.find((l) => l.startsWith(completed))).toMatch(
        new RegExp(`^${completed}\\s+completed\\s+2/2\\s+${TIME.source}\\s+CTR-TABLES-0001\\s`),
      );
    else expect(lines.join('\n')).toMatch(new RegExp(`^id:\\s+${completed}$`, 'm'));
  });

  it('envelopes audit: the actor whole; stacked at 80, a table at 120', async () => {
    const lines = await atWidth(width, ['envelopes', 'audit', completed]);
    oneFace(
      lines,
      width,
      width === 80 ? 'stacked' : 'table',
      ['#', 'TIME', 'EVENT', 'ACTOR', 'DETAIL'],
      ['envelope.created', 'envelope.completed', '(Layla Haddad)', '(Omar Khalil)'],
    );
    expect(lines.join('\n')).toMatch(/signer:sgn_\w+ \(Layla Haddad\)/);
  });

  it('envelopes get: the envelope as label: value lines, then its signers as a table', async () => {
    const lines = await atWidth(width, ['envelopes', 'get', arabic]);
    oneFace(
      lines,
      width,
      'table',
      ['ORDER', 'NAME', 'CHANNEL', 'CONTACT', 'VERIFICATION', 'STATUS'],
      [arabic, 'Layla Haddad', 'Omar Khalil', '+971501234567', 'uae_pass'],
    );
    expect(lines.join('\n')).toMatch(new RegExp(`^created_at:\\s+${TIME.source}$`, 'm'));
    expect(lines[0]).toBe(`id:               ${arabic}`);
  });

  it('config list: each value and where it comes from', async () => {
    const lines = await atWidth(width, ['config', 'list']);
    oneFace(
      lines,
      width,
      'table',
      ['NAME', 'VALUE', 'SOURCE'],
      ['env SIGN_BASE_URL', 'env SIGN_API_KEY', `sk_test_****${sandbox.apiKey.slice(-4)}`],
    );
    expect(lines.join('\n')).not.toContain(sandbox.apiKey);
  });
});

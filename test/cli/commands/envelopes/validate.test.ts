/** `envelopes validate`, in process: exit codes, JSON paths, warnings; never a request. */
import { describe, expect, it } from 'vitest';
import { EXAMPLE, example, workspace } from '../../../helpers/envelopes.js';
import { runCommand } from '../../../helpers/in-process.js';
import { KNOWN_VALUES } from '../../../../src/core/envelope/envelope.js';
import { SANDBOX_VALUES } from '../../../../src/sandbox/rules.js';

const work = workspace('sign-cli-validate-');
// Nothing listens here: validate must not need a service, and would fail loudly if it tried.
const env = { SIGN_BASE_URL: 'http://127.0.0.1:9' };

describe('envelopes validate', () => {
  it('exits 0 for valid files and 2 for invalid ones, with JSON paths', async () => {
    const ok = await runCommand(['envelopes', 'validate', EXAMPLE], { env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/✓ .*envelope\.json: valid/);
    const bad = work.write('v-bad.json', {
      ...example(),
      signers: [{ name: 'A', channel: 'whatsapp', order: 1 }],
    });
    const result = await runCommand(['envelopes', 'validate', EXAMPLE, bad, '--json'], { env });
    expect(result.code).toBe(2);
    const reports = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(reports[0]).toMatchObject({ valid: true, errors: [] });
    expect(reports[1]).toMatchObject({ valid: false, errors: [{ path: 'signers[0].phone' }] });
  });

  it('reads NDJSON and stdin, and exits 2 when there is no envelope at all', async () => {
    const lines = work.write(
      'two.ndjson',
      `${JSON.stringify(example())}\n${JSON.stringify({ ...example(), title: 'Second' })}\n`,
    );
    expect((await runCommand(['envelopes', 'validate', '--ndjson', lines], { env })).code).toBe(0);
    const stdin = await runCommand(['envelopes', 'validate', '-', '--json'], {
      env,
      input: JSON.stringify(example()),
    });
    expect(JSON.parse(stdin.stdout)).toMatchObject({ input: '-', valid: true });
    const blank = work.write('blank.ndjson', '\n\n');
    expect((await runCommand(['envelopes', 'validate', '--ndjson', blank], { env })).code).toBe(2);
  });

  it('warns about values sign-cli does not know but keeps exit 0; an unknown field is an error unless allowed', async () => {
    const path = work.write('v-warn.json', { ...example(), locale: 'xx' });
    const warned = await runCommand(['envelopes', 'validate', path], { env });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(
      /warning: .*locale: "xx" is not among the values sign-cli knows \(ar, en, /,
    );
    const unknown = work.write('v-unknown.json', { ...example(), webhookUrl: 'https://example.com/hooks' });
    const refused = await runCommand(['envelopes', 'validate', unknown], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('webhookUrl: is not a field of an envelope; did you mean webhook_url?');
    const allowed = await runCommand(['envelopes', 'validate', unknown, '--allow-unknown-fields'], { env });
    expect(allowed.code).toBe(0);
  });

  it('takes the values the docs, the sample and the sandbox use without a warning', async () => {
    const base = example();
    const signers = base.signers as Record<string, unknown>[];
    const documented = work.write('v-documented.json', {
      ...base,
      locale: 'en',
      signature_level: 'qualified',
      signers: [
        { ...signers[0], verification: 'nafath' },
        { ...signers[1], verification: 'sms_otp' },
      ],
    });
    const result = await runCommand(['envelopes', 'validate', documented], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    // The very lists the sandbox accepts: the CLI warns about none of them.
    expect(KNOWN_VALUES).toEqual(SANDBOX_VALUES);
  });

  it('says a warning once per file, not once per row: validate and create', async () => {
    const rows = Array.from({ length: 15 }, (_, i) =>
      JSON.stringify({ ...example(), contract_id: `CTR-WARN-${i}`, locale: 'xx' }),
    );
    const file = work.write('fifteen.ndjson', `${rows.join('\n')}\n`);
    const validated = await runCommand(['envelopes', 'validate', '--ndjson', file], { env });
    expect(validated.code).toBe(0);
    const warnings = validated.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    expect(warnings).toEqual([
      `warning: ${file} (15 lines; first: line 1): locale: "xx" is not among the values sign-cli knows (ar, en, fr, de, es, tr, ur, hi); sent as is, the service decides`,
    ]);
    const dryRun = await runCommand(['envelopes', 'create', '--ndjson', '-f', file, '--dry-run'], { env });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toEqual(warnings);
  });

  it('on a terminal and in a pipe alike, each problem is one message with its input and path', async () => {
    const bad = work.write('two-problems.json', { ...example(), title: '', expires_in_days: -1 });
    for (const tty of [false, true]) {
      const result = await runCommand(['envelopes', 'validate', bad], { env, tty, columns: 80 });
      expect(result.code).toBe(2);
      // On a terminal a message wider than it goes on in indented lines.
      const lines = result.stderr
        .split(/\n(?! )/)
        .map((message) => message.replace(/\n +/g, ' '))
        .filter((l) => l.includes('two-problems.json'));
      expect(lines.some((l) => l.includes('title'))).toBe(true);
      expect(lines.some((l) => l.includes('expires_in_days'))).toBe(true);
    }
  });
});

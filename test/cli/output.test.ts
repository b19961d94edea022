import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { expiresCell } from '../../src/cli/commands/keys/list.js';
import type { KeyRow } from '../../src/cli/commands/keys/key-rows.js';
import { Output } from '../../src/cli/render/output.js';
import { Progress } from '../../src/cli/render/progress.js';
import { escapeControl, oneLine, untrusted } from '../../src/core/envelope/text.js';

/** A writable that records what is written, and claims to be (or not be) a terminal. */
function stream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const out = new Writable({
    write(chunk, _encoding, done) {
      out.text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream & { text: string };
  out.text = '';
  out.isTTY = isTTY;
  return out;
}

const row = (expires: string, status: KeyRow['status'], days: number): KeyRow => ({
  name: 'k',
  environment: 'live',
  key: 'sk_live_****abcd',
  last_used: null,
  expires,
  scopes: null,
  status,
  days_left: days,
  source: 'local',
  active: false,
  required_scopes: [],
  storage: 'file',
});

describe('terminal output', () => {
  it('colours expiry: red once expired, yellow within 14 days, plain after', () => {
    const output = new Output({
      json: false,
      verbose: false,
      color: true,
      stdout: stream(true),
      stderr: stream(true),
      env: {},
    });
    expect(expiresCell(output, row('2026-11-01', 'expired', -20))).toBe(
      '\u001b[31m2026-11-01 (expired 20 days ago)\u001b[39m',
    );
    expect(expiresCell(output, row('2026-12-01', 'expiring', 10))).toBe(
      '\u001b[33m2026-12-01 (10 days left)\u001b[39m',
    );
    expect(expiresCell(output, row('2027-06-01', 'active', 192))).toBe('2027-06-01 (192 days left)');
  });

  it('uses no colour under NO_COLOR, --no-color, or off a terminal', () => {
    for (const [color, tty, env] of [
      [true, true, { NO_COLOR: '1' }],
      [false, true, {}],
      [true, false, {}],
    ] as const) {
      const output = new Output({
        json: false,
        verbose: false,
        color,
        stdout: stream(tty),
        stderr: stream(tty),
        env,
      });
      expect(expiresCell(output, row('2026-11-01', 'expired', -20))).toBe('2026-11-01 (expired 20 days ago)');
    }
  });

  it('masks every secret it was told about, on both streams', () => {
    const stdout = stream(false);
    const stderr = stream(false);
    const output = new Output({ json: false, verbose: true, color: false, stdout, stderr, env: {} });
    const key = 'sk_live_0123456789abcdefghijkl';
    output.protect(key);
    output.line(`key ${key}`);
    output.jsonLine({ key });
    output.trace(`Authorization: Bearer ${key}`);
    output.error(new Error(`refused ${key}`));
    expect(stdout.text + stderr.text).not.toContain(key);
    expect(stdout.text).toContain('sk_live_****ijkl');
  });

  it('shows progress with count, rate and ETA only on a terminal, and clears it before other output', () => {
    const tty = stream(true);
    const output = new Output({
      json: false,
      verbose: false,
      color: false,
      stdout: stream(true),
      stderr: tty,
      env: {},
    });
    // The progress's clock is fixed (it is given one): rate and ETA are exact, however long the
    // lines between its start and the reading take on this machine.
    const start = 1_700_000_000_000;
    const fixed = { now: () => start };
    const progress = new Progress(output, 1000, fixed);
    for (let i = 0; i < 250; i++) progress.count(i % 50 === 0 ? 'failed' : 'created');
    const line = progress.line(start + 25_000);
    expect(line).toBe('250/1,000 · created 245 · failed 5 · 10.0/s · ETA 1m 15s');
    output.status(line);
    output.info('a warning');
    expect(tty.text).toContain('\r\u001b[2K250/1,000');
    // Cleared for the line, then drawn again under it: progress stays on screen between lines.
    expect(tty.text.endsWith(`\r\u001b[2Ka warning\n${line}`)).toBe(true);
    progress.done();
    expect(tty.text.endsWith('\r\u001b[2K')).toBe(true);

    // Inputs already created take no time: they are counted, but not in the rate or the ETA.
    const resumed = new Progress(output, 1000, fixed);
    for (let i = 0; i < 500; i++) resumed.count('skipped');
    for (let i = 0; i < 100; i++) resumed.count('created');
    expect(resumed.line(start + 10_000)).toBe(
      '600/1,000 · created 100 · already 500 · failed 0 · 10.0/s · ETA 40s',
    );
    resumed.done();

    const pipe = stream(false);
    const quiet = new Progress(
      new Output({ json: false, verbose: false, color: false, stdout: stream(false), stderr: pipe, env: {} }),
      1000,
    );
    quiet.done();
    expect(pipe.text).toBe('');
  });
});

describe('text from elsewhere on a terminal', () => {
  it('escapes control characters in every line, keeps our own colours, and keeps messages on one line', () => {
    const out = stream(true);
    const err = stream(true);
    const output = new Output({
      json: false,
      verbose: false,
      color: true,
      stdout: out,
      stderr: err,
      env: {},
    });
    output.line(`title ${'\u001b]0;PWNED\u0007'} and ${output.out.green('ok')} \u009b2J`);
    expect(out.text).toBe('title \\u001b]0;PWNED\\u0007 and \u001b[32mok\u001b[39m \\u009b2J\n');
    output.error(new Error('bad\ninput\r\u001b[2Jhere'));
    expect(err.text).not.toMatch(/\u001b\[2J/);
    expect(err.text.trimEnd().split('\n')).toHaveLength(1);
    expect(err.text).toContain('bad\\ninput\\n\\u001b[2Jhere');
  });

  it('without colour, escapes every escape sequence, and JSON output stays parseable', () => {
    const out = stream(false);
    const output = new Output({
      json: true,
      verbose: false,
      color: true,
      stdout: out,
      stderr: stream(false),
      env: {},
    });
    output.jsonLine({ title: 'a\u007fb\u0085c', colour: '\u001b[31mred' });
    expect(out.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(out.text)).toEqual({ title: 'a\u007fb\u0085c', colour: '\u001b[31mred' });
    expect(escapeControl('\u001b[31mred', false)).toBe('\\u001b[31mred');
    expect(oneLine('a\r\nb\nc')).toBe('a\\nb\\nc');
  });
});

describe('text that tries to look like output', () => {
  it("passes only sign-cli's own colours: conceal, black on black and a bidi override from elsewhere are shown escaped", () => {
    const out = stream(true);
    const output = new Output({
      json: false,
      verbose: false,
      color: true,
      stdout: out,
      stderr: stream(true),
      env: {},
    });
    output.line(`${output.out.green('ok')} \u001b[8mhidden\u001b[30;40m dark \u202eesrever \u001b[31m`);
    expect(out.text).toBe(
      '\u001b[32mok\u001b[39m \\u001b[8mhidden\\u001b[30;40m dark \\u202eesrever \u001b[31m\n',
    );
  });

  it('a warning or an error quoting a server cannot colour the terminal, even with our own codes', () => {
    const err = stream(true);
    const output = new Output({
      json: false,
      verbose: false,
      color: true,
      stdout: stream(true),
      stderr: err,
      env: {},
    });
    output.warn('the service said \u001b[32mgreen\u001b[39m\tand\nmore');
    output.error(new Error('HTTP 500 \u001b[2Jcleared'));
    expect(err.text).not.toMatch(/\u001b\[32mgreen|\u001b\[2J/);
    expect(err.text).toContain('the service said \\u001b[32mgreen\\u001b[39m\\tand\\nmore');
    expect(err.text.trimEnd().split('\n')).toHaveLength(2);
  });

  it('a status line stays on one row of the terminal: its last parts go first, whole', () => {
    const err = Object.assign(stream(true), { columns: 60 });
    const output = new Output({
      json: false,
      verbose: false,
      color: false,
      stdout: stream(true),
      stderr: err,
      env: {},
    });
    const line = '1,204/10,000 · created 1,200 · already 20 · failed 4 · 9.9/s · ETA 14m 48s';
    output.status(line);
    const shown = err.text.slice(err.text.lastIndexOf('\u001b[2K') + 4);
    expect(shown).toBe('1,204/10,000 · created 1,200 · already 20 · failed 4');
    expect([...shown].length).toBeLessThan(60);
    output.status('x'.repeat(100));
    expect(err.text.slice(err.text.lastIndexOf('\u001b[2K') + 4)).toBe(`${'x'.repeat(58)}…`);
  });

  it('on a terminal, a message wider than it is wrapped between words; in a pipe it is one line', () => {
    const message =
      `the sandbox's is served at <base-url>/_sandbox/ca.pem ${'and more words '.repeat(6)}`.trim();
    for (const tty of [true, false]) {
      const err = Object.assign(stream(tty), { columns: 40 });
      const output = new Output({
        json: false,
        verbose: false,
        color: false,
        stdout: stream(tty),
        stderr: err,
        env: {},
      });
      output.warn(message);
      const lines = err.text.trimEnd().split('\n');
      if (!tty) expect(lines).toEqual([`warning: ${message}`]);
      else {
        expect(lines.length).toBeGreaterThan(2);
        for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
        expect(lines.join(' ').replace(/ +/g, ' ')).toBe(`warning: ${message}`);
      }
    }
  });

  it('untrusted(): one line, every control and bidi character escaped', () => {
    expect(untrusted('Omar\n06:43:00  envelope.completed')).toBe('Omar\\n06:43:00  envelope.completed');
    expect(untrusted('a\tb\u2066c\u0085')).toBe('a\\tb\\u2066c\\u0085');
    expect(untrusted('عقد إيجار')).toBe('عقد إيجار');
  });
});

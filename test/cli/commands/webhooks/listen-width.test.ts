/**
 * `webhooks listen` on a terminal, in process: every event line fits the width
 * (80 and 120 columns), the time and ids whole, and a signer name built to
 * wrap into a fake event line (spaces, then a time, a type and an id) shows
 * as one cut name on the real line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startListener, type TestListener } from '../../../helpers/in-process.js';
import { startReceiver } from '../../../helpers/receiver.js';
import { env, signed, post } from '../../../helpers/webhook-events.js';

const TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/;
const FORGED = `Omar${' '.repeat(42)}2026-11-25 13:05:00Z  envelope.completed  env_Zq9FAKEFAKEFAKEFAKE00`;

let listener: TestListener | undefined;
afterEach(async () => {
  await listener?.stop();
  listener = undefined;
});

function delivery(type: string, signerName: string | undefined) {
  const id = `evt_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const data = {
    envelope_id: 'env_0123456789abcdefghij',
    contract_id: 'EMP-2027-0042',
    envelope_status: 'completed',
    ...(signerName === undefined
      ? {}
      : { signer: { id: 'sgn_1', name: signerName, channel: 'email', order: 1, status: 'signed' } }),
  };
  const body = JSON.stringify({ id, type, timestamp: new Date().toISOString(), data });
  return { id, body };
}

/** The rows a terminal `width` wide shows for these lines (ASCII: a character a column). */
const rows = (lines: string[], width: number): string[] =>
  lines.flatMap((line) => line.match(new RegExp(`.{1,${width}}`, 'g')) ?? ['']);

describe.each([80, 120])('webhooks listen at %i columns', (width) => {
  it('each event line fits: the time, the envelope id and the type whole, the name cut', async () => {
    listener = await startListener([], env, { tty: true, columns: width });
    const events = [
      delivery('signer.signed', `Layla Haddad ${'bin Rashid '.repeat(8)}`),
      delivery('envelope.completed', undefined),
      delivery('signer.verification_failed', 'Omar Khalil'),
    ];
    for (const { id, body } of events)
      expect((await post(listener.url, body, signed(id, body))).status).toBe(200);
    await listener.waitForStdout((lines) => lines.length === 3);
    for (const line of listener.stdout) {
      expect(line.length, line).toBeLessThanOrEqual(width);
      expect(line).toMatch(TIME);
      expect(line).toContain('env_0123456789abcdefghij');
    }
    expect(listener.stdout[0]).toMatch(/^\S+ \S+ {2}signer\.signed +env_0123456789abcdefghij Layla Ha.*…/);
    expect(listener.stdout[1]).toContain('envelope.completed');
    // A duplicate says so, the event id whole.
    const { id, body } = events[0]!;
    await post(listener.url, body, signed(id, body));
    await listener.waitForStdout((lines) => lines.length === 4);
    expect(listener.stdout[3]!.length).toBeLessThanOrEqual(width);
    expect(listener.stdout[3]).toContain(`duplicate #2 of ${id}`);
  });

  it("with a forward, the app's answer is on the line and the line still fits", async () => {
    const app = await startReceiver(() => 200);
    try {
      listener = await startListener(['--forward-to', app.url], env, { tty: true, columns: width });
      const { id, body } = delivery('signer.signed', 'Layla Haddad');
      expect((await post(listener.url, body, signed(id, body))).status).toBe(200);
      await listener.waitForStdout((lines) => lines.length === 1);
      expect(listener.stdout[0]!.length).toBeLessThanOrEqual(width);
      expect(listener.stdout[0]).toMatch(/env_0123456789abcdefghij .*→ 200 \d+ ms$/);
    } finally {
      await app.close();
    }
  });

  it('a signer name padded to wrap into a fake event line stays on its own line, collapsed and cut', async () => {
    listener = await startListener([], env, { tty: true, columns: width });
    const { id, body } = delivery('signer.signed', FORGED);
    expect((await post(listener.url, body, signed(id, body))).status).toBe(200);
    await listener.waitForStdout((lines) => lines.length === 1);
    const shown = rows(listener.stdout, width);
    // One event, one row: no row of the screen starts with a time but the real one.
    expect(shown.filter((row) => TIME.test(row))).toHaveLength(1);
    expect(shown).toHaveLength(1);
    expect(listener.stdout[0]).not.toMatch(/Omar {2}/);
  });

  it('a request path built to wrap into a fake event line is cut on the rejection line', async () => {
    listener = await startListener([], env, { tty: true, columns: width });
    const path = `/${'x'.repeat(width - 10)}2026-11-25%2013:05:00Z`;
    expect((await post(`${listener.url}${path}`, '{}', {})).status).toBe(401);
    await listener.waitForStderr((lines) => lines.some((line) => line.includes('✗ 401')));
    const line = listener.stderr.find((l) => l.includes('✗ 401'))!;
    expect([...line].length, line).toBeLessThanOrEqual(width);
    expect(line).toMatch(/^✗ 401 POST \/x+…: /);
  });
});

describe('webhooks listen in a pipe', () => {
  it('nothing is cut, but the run of spaces in a name is one space: the name cannot fake a column', async () => {
    listener = await startListener([], env);
    const { id, body } = delivery('signer.signed', FORGED);
    await post(listener.url, body, signed(id, body));
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(listener.stdout[0]).toContain(
      'Omar 2026-11-25 13:05:00Z envelope.completed env_Zq9FAKEFAKEFAKEFAKE00',
    );
  });
});

describe('webhooks listen stopped with Ctrl-C', () => {
  it('on a terminal, the summary starts on a line of its own (the terminal echoed ^C where the cursor was)', async () => {
    listener = await startListener([], env, { tty: true, columns: 80 });
    expect(await listener.stop()).toBe(0);
    const lines = listener.stderr;
    const at = lines.findIndex((line) => line.startsWith('received 0, verified 0'));
    expect(at, lines.join('\n')).toBeGreaterThan(0);
    expect(lines[at - 1]).toBe('');
  });

  it('in a pipe, no empty line: nothing was echoed there', async () => {
    listener = await startListener([], env);
    expect(await listener.stop()).toBe(0);
    const lines = listener.stderr;
    const at = lines.findIndex((line) => line.startsWith('received 0, verified 0'));
    expect(lines[at - 1]).toMatch(/Ctrl-C to stop$/);
  });
});

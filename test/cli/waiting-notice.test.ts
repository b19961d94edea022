/**
 * A server that accepts and never answers: after 10 s of an attempt without an answer, a line on
 * stderr says what is awaited and how long it may still take, in a pipe as on a terminal. The 10 s
 * are the command's clock's (injected): the test does not wait them.
 */
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { runCommand } from '../helpers/in-process.js';
import { unwrapped } from '../helpers/terminal-fit.js';

let port = 0;
const sockets = new Set<Socket>();
// Accepts every connection, reads what comes, says nothing.
const silent = createServer((socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.resume();
});

beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

/** The system clock, but the 10 s wait before the notice passes at once. */
const noticeAtOnce: Clock = {
  now: () => systemClock.now(),
  sleep: (ms, signal) => systemClock.sleep(ms === 10_000 ? 0 : ms, signal),
};

describe('a server that accepts and never answers', () => {
  for (const tty of [false, true]) {
    it(`is named on stderr after 10 s, ${tty ? 'on a terminal' : 'in a pipe'}: what is awaited and how long it may take`, async () => {
      const result = await runCommand(
        ['envelopes', 'get', 'env_silent', '--timeout', '0.5', '--retries', '1'],
        {
          tty,
          clock: noticeAtOnce,
          env: {
            SIGN_BASE_URL: `http://127.0.0.1:${port}`,
            SIGN_API_KEY: 'sk_test_waitingnotice0000000000000000abcd',
          },
        },
      );
      expect(result.code).toBe(1);
      // On a terminal a notice wider than it goes on in indented lines: one line each again.
      const waiting = unwrapped(result.stderr)
        .split('\n')
        .filter((line) => line.includes('waiting for'));
      expect(waiting[0]).toBe(
        `… waiting for http://127.0.0.1:${port} to answer GET /api/v1/envelopes/env_silent: no answer for 10 s (attempt 1 of 2); this attempt gives up at 0.5 s, then up to 1 more attempt (--timeout, --retries)`,
      );
      // Once per attempt that goes unanswered, the last one saying so.
      expect(waiting[1]).toMatch(/\(attempt 2 of 2\); this attempt gives up at 0.5 s \(--timeout\)$/);
      expect(unwrapped(result.stderr)).toMatch(/error: .*no complete answer within 0\.5 s/);
      expect(result.stderr).not.toContain('waitingnotice');
    });
  }

  it('is not named when the answer comes first', async () => {
    const result = await runCommand(['envelopes', 'get', 'env_x', '--timeout', '0.5', '--retries', '0'], {
      env: { SIGN_BASE_URL: 'http://127.0.0.1:9', SIGN_API_KEY: 'sk_test_waitingnotice0000000000000000abcd' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('waiting for');
  });
});

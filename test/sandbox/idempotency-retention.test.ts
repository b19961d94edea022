/**
 * Idempotency-Keys are remembered 24 hours, per account and environment (as
 * Stripe keeps them), or as long as the sandbox is told
 * (`idempotencyRetentionMs`, `sandbox --idempotency-retention`): within that a
 * re-send is answered with the first response; after it, the same key makes a
 * new envelope. Only Date is faked; the requests are real HTTP to the sandbox
 * in this process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { IDEMPOTENCY_RETENTION_MS } from '../../src/sandbox/server.js';
import { ROOT } from '../helpers/paths.js';
import { startTestSandbox, type TestSandbox } from '../helpers/in-process.js';

const ENVELOPE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;
let sandbox: TestSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await sandbox?.stop();
});

const create = async (idempotencyKey: string, apiKey = sandbox.apiKey, baseUrl = sandbox.baseUrl) => {
  const response = await fetch(`${baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body: JSON.stringify({ ...ENVELOPE, contract_id: `RET-${idempotencyKey}` }),
  });
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed') === 'true',
    id: ((await response.json()) as { id: string }).id,
  };
};

describe('Idempotency-Key retention', () => {
  it('replays within 24 hours and creates anew after them', async () => {
    expect(IDEMPOTENCY_RETENTION_MS).toBe(24 * 60 * 60 * 1000);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const first = await create('retention-1');
    expect(first.status).toBe(201);

    vi.setSystemTime(start + IDEMPOTENCY_RETENTION_MS - 60_000);
    const replay = await create('retention-1');
    expect(replay.id).toBe(first.id);

    vi.setSystemTime(start + IDEMPOTENCY_RETENTION_MS + 60_000);
    const later = await create('retention-1');
    expect(later.status).toBe(201);
    expect(later.id).not.toBe(first.id);
  });

  it('belongs to the account and environment: the same key string under a live key is a new envelope', async () => {
    const first = await create('retention-2');
    const live = await sandbox.mintKey({ environment: 'live' });
    const other = await create('retention-2', live);
    expect(other.status).toBe(201);
    expect(other.id).not.toBe(first.id);
  });

  it('is as long as the sandbox is told: 2 s replays within them and creates anew after them', async () => {
    const short = await startTestSandbox({ idempotencyRetentionMs: 2000 });
    try {
      expect(
        (await short.control<{ idempotency_retention_ms: number }>('/_sandbox/state'))
          .idempotency_retention_ms,
      ).toBe(2000);
      const start = Date.now();
      vi.useFakeTimers({ toFake: ['Date'], now: start });
      const first = await create('retention-3', short.apiKey, short.baseUrl);
      expect([first.status, first.replayed]).toEqual([201, false]);

      vi.setSystemTime(start + 1500);
      const replay = await create('retention-3', short.apiKey, short.baseUrl);
      expect([replay.id, replay.replayed]).toEqual([first.id, true]);

      vi.setSystemTime(start + 2500);
      const later = await create('retention-3', short.apiKey, short.baseUrl);
      expect([later.status, later.replayed]).toEqual([201, false]);
      expect(later.id).not.toBe(first.id);
      expect(await short.envelopeCount()).toBe(2);
    } finally {
      vi.useRealTimers();
      await short.stop();
    }
  });

  it('defaults to 24 hours', async () => {
    expect(
      (await sandbox.control<{ idempotency_retention_ms: number }>('/_sandbox/state'))
        .idempotency_retention_ms,
    ).toBe(IDEMPOTENCY_RETENTION_MS);
  });
});
